"""Scoring a deal, the live tally of the deal in progress, and the end of a match."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from scopa.domain.cards import (
    DECK,
    IS_DIAMOND,
    KING_OF_DIAMONDS,
    PRIMIERA,
    SETTEBELLO,
)
from scopa.domain.rules import Rules


class Points(msgspec.Struct, frozen=True):
    sweeps: int
    cards: int
    diamonds: int
    settebello: int
    primiera: int
    king_of_diamonds: int
    diamond_sequence: int


class TeamDealScore(msgspec.Struct, frozen=True):
    team: int
    cards: int
    diamonds: int
    settebello: bool
    primiera: int | None
    sweeps: int
    king_of_diamonds: bool
    diamond_sequence: int
    points: Points
    total: int


class DealScore(msgspec.Struct, frozen=True):
    deal: int
    teams: tuple[TeamDealScore, ...]
    scores: tuple[int, ...]


class TeamTally(msgspec.Struct, frozen=True):
    team: int
    cards: int
    diamonds: int
    settebello: bool
    primiera: int | None
    sweeps: int
    clinched: tuple[str, ...]


class Tally(msgspec.Struct, frozen=True):
    deal: int
    teams: tuple[TeamTally, ...]


# The two races: more cards than the other side and at least 21; likewise 6 diamonds.
CARDS_TO_WIN = 21
DIAMONDS_TO_WIN = 6

# A pile as a 40-bit mask (bit ``card``): each suit is 10 bits (0x3FF), ranks A..K.
_BIT: tuple[int, ...] = tuple(1 << card for card in DECK)
# The best primiera value among the ranks set in one suit's 10 bits; 0 for none.
_BEST_IN_SUIT: tuple[int, ...] = tuple(
    max((PRIMIERA[rank] for rank in range(10) if bits >> rank & 1), default=0)
    for bits in range(1 << 10)
)
_SETTEBELLO_BIT = 1 << SETTEBELLO
_KING_OF_DIAMONDS_BIT = 1 << KING_OF_DIAMONDS


def _mask(pile: Sequence[int]) -> int:
    # A pile holds each card once, so adding the bits is OR-ing them, and faster.
    return sum(map(_BIT.__getitem__, pile))


def best_by_suit(pile: Sequence[int]) -> list[int]:
    """The best primiera value ``pile`` holds in each suit; 0 for a suit it lacks."""
    mask = _mask(pile)
    return [_BEST_IN_SUIT[mask >> shift & 0x3FF] for shift in (0, 10, 20, 30)]


def primiera(pile: Sequence[int]) -> int | None:
    """Best primiera card per suit, summed; None without all four suits."""
    return _mask_primiera(_mask(pile))


def _mask_primiera(mask: int) -> int | None:
    best = _BEST_IN_SUIT
    c = best[mask & 0x3FF]
    d = best[mask >> 10 & 0x3FF]
    h = best[mask >> 20 & 0x3FF]
    s = best[mask >> 30]
    return c + d + h + s if c and d and h and s else None


def _mask_sequence(mask: int) -> int:
    """A-2-3 of diamonds score 3, each further diamond in unbroken order one more."""
    diamonds = mask >> 10 & 0x3FF
    # The run from the ace is the number of trailing one bits.
    length = (diamonds ^ (diamonds + 1)).bit_length() - 1
    return length if length >= 3 else 0


def _majority(a: int, b: int, need: int) -> tuple[int, int]:
    return (int(a >= need and a > b), int(b >= need and b > a))


def _primiera_points(a: int | None, b: int | None) -> tuple[int, int]:
    if a is None and b is None:
        return (0, 0)
    if b is None:
        return (1, 0)
    if a is None:
        return (0, 1)
    return (int(a > b), int(b > a))


# A team's points by category, in ``Points`` order after the sweeps.
_Won = tuple[int, int, int, int, int, int]


def _won(rules: Rules, n0: int, n1: int, m0: int, m1: int) -> tuple[_Won, _Won]:
    """The one scoring of a finished deal: each team's points by category but the sweeps,
    from its card count and its pile's mask."""
    c0, c1 = _majority(n0, n1, CARDS_TO_WIN)
    d0, d1 = _majority(
        (m0 >> 10 & 0x3FF).bit_count(), (m1 >> 10 & 0x3FF).bit_count(), DIAMONDS_TO_WIN
    )
    p0, p1 = _primiera_points(_mask_primiera(m0), _mask_primiera(m1))
    s0 = m0 >> SETTEBELLO & 1
    s1 = m1 >> SETTEBELLO & 1
    k0 = k1 = q0 = q1 = 0
    if rules.king_of_diamonds:
        k0 = m0 >> KING_OF_DIAMONDS & 1
        k1 = m1 >> KING_OF_DIAMONDS & 1
    if rules.diamond_sequence:
        q0 = _mask_sequence(m0)
        q1 = _mask_sequence(m1)
    return (c0, d0, s0, p0, k0, q0), (c1, d1, s1, p1, k1, q1)


def score_deal(
    rules: Rules,
    deal: int,
    piles: Sequence[Sequence[int]],
    sweeps: Sequence[int],
    before: Sequence[int],
) -> DealScore:
    """The full breakdown of a finished deal for both teams; ``before`` are match totals."""
    cards = [len(p) for p in piles]
    masks = [_mask(p) for p in piles]
    won = _won(rules, cards[0], cards[1], masks[0], masks[1])
    teams = []
    for t in (0, 1):
        mask = masks[t]
        teams.append(
            TeamDealScore(
                team=t,
                cards=cards[t],
                diamonds=(mask >> 10 & 0x3FF).bit_count(),
                settebello=bool(mask & _SETTEBELLO_BIT),
                primiera=_mask_primiera(mask),
                sweeps=sweeps[t],
                king_of_diamonds=bool(mask & _KING_OF_DIAMONDS_BIT),
                diamond_sequence=_mask_sequence(mask),
                points=Points(sweeps[t], *won[t]),
                total=sweeps[t] + sum(won[t]),
            )
        )
    scores = (before[0] + teams[0].total, before[1] + teams[1].total)
    return DealScore(deal=deal, teams=tuple(teams), scores=scores)


def deal_points(
    rules: Rules, piles: Sequence[Sequence[int]], sweeps: Sequence[int]
) -> tuple[int, int]:
    """Each team's total for a finished deal, as ``score_deal`` counts it, without the breakdown.

    For simulations that score thousands of deals and only want who gained how much.
    """
    p0, p1 = piles
    a, b = _won(rules, len(p0), len(p1), _mask(p0), _mask(p1))
    return sweeps[0] + sum(a), sweeps[1] + sum(b)


def winner(scores: Sequence[int], target: int) -> int | None:
    """After a whole deal: the higher total once a team reaches the target; a tie plays on."""
    if max(scores) < target or scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1


def tally(rules: Rules, deal: int, piles: Sequence[Sequence[int]], sweeps: Sequence[int]) -> Tally:
    """Counts so far this deal, with the points each team can no longer lose."""
    taken = set(piles[0]) | set(piles[1])
    remaining = [c for c in DECK if c not in taken]
    teams = []
    for t in (0, 1):
        pile = piles[t]
        other = piles[1 - t]
        cards = len(pile)
        diamonds = sum(IS_DIAMOND[c] for c in pile)
        prim = primiera(pile)
        clinched = []
        if cards >= CARDS_TO_WIN:
            clinched.append("cards")
        if diamonds >= DIAMONDS_TO_WIN:
            clinched.append("diamonds")
        if SETTEBELLO in pile:
            clinched.append("settebello")
        if rules.king_of_diamonds and KING_OF_DIAMONDS in pile:
            clinched.append("king_of_diamonds")
        if prim is not None:
            rival_best = primiera([*other, *remaining])
            if rival_best is None or prim > rival_best:
                clinched.append("primiera")
        teams.append(
            TeamTally(
                team=t,
                cards=cards,
                diamonds=diamonds,
                settebello=SETTEBELLO in pile,
                primiera=prim,
                sweeps=sweeps[t],
                clinched=tuple(clinched),
            )
        )
    return Tally(deal=deal, teams=tuple(teams))
