"""Scoring a deal, the live tally of the deal in progress, and the end of a match."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from scopa.domain.cards import (
    DECK,
    DIAMOND_RUN,
    IS_DIAMOND,
    KING_OF_DIAMONDS,
    PRIMIERA,
    SETTEBELLO,
    SUIT,
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


def primiera(pile: Sequence[int]) -> int | None:
    """Best primiera card per suit, summed; None without all four suits."""
    best = [0, 0, 0, 0]
    for card in pile:
        p = PRIMIERA[card]
        s = SUIT[card]
        if p > best[s]:
            best[s] = p
    return None if 0 in best else sum(best)


def diamond_sequence(pile: Sequence[int]) -> int:
    """A-2-3 of diamonds score 3, each further diamond in unbroken order one more."""
    held = set(pile)
    length = 0
    for card in DIAMOND_RUN:
        if card not in held:
            break
        length += 1
    return length if length >= 3 else 0


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


def _mask_primiera(mask: int) -> int | None:
    best = _BEST_IN_SUIT
    c = best[mask & 0x3FF]
    d = best[mask >> 10 & 0x3FF]
    h = best[mask >> 20 & 0x3FF]
    s = best[mask >> 30]
    return c + d + h + s if c and d and h and s else None


def _mask_sequence(mask: int) -> int:
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


def score_deal(
    rules: Rules,
    deal: int,
    piles: Sequence[Sequence[int]],
    sweeps: Sequence[int],
    before: Sequence[int],
) -> DealScore:
    """The full breakdown of a finished deal for both teams; ``before`` are match totals."""
    masks = [_mask(p) for p in piles]
    cards = [len(p) for p in piles]
    diamonds = [(m >> 10 & 0x3FF).bit_count() for m in masks]
    prim = [_mask_primiera(m) for m in masks]
    card_pts = _majority(cards[0], cards[1], 21)
    diamond_pts = _majority(diamonds[0], diamonds[1], 6)
    prim_pts = _primiera_points(prim[0], prim[1])
    teams = []
    for t in (0, 1):
        mask = masks[t]
        sette = bool(mask & _SETTEBELLO_BIT)
        king = bool(mask & _KING_OF_DIAMONDS_BIT)
        seq = _mask_sequence(mask)
        points = Points(
            sweeps=sweeps[t],
            cards=card_pts[t],
            diamonds=diamond_pts[t],
            settebello=int(sette),
            primiera=prim_pts[t],
            king_of_diamonds=int(king and rules.king_of_diamonds),
            diamond_sequence=seq if rules.diamond_sequence else 0,
        )
        total = (
            points.sweeps
            + points.cards
            + points.diamonds
            + points.settebello
            + points.primiera
            + points.king_of_diamonds
            + points.diamond_sequence
        )
        teams.append(
            TeamDealScore(
                team=t,
                cards=cards[t],
                diamonds=diamonds[t],
                settebello=sette,
                primiera=prim[t],
                sweeps=sweeps[t],
                king_of_diamonds=king,
                diamond_sequence=seq,
                points=points,
                total=total,
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
    m0 = _mask(piles[0])
    m1 = _mask(piles[1])
    a = sweeps[0]
    b = sweeps[1]
    n0 = len(piles[0])
    n1 = len(piles[1])
    if n0 > n1 and n0 >= 21:
        a += 1
    elif n1 > n0 and n1 >= 21:
        b += 1
    d0 = (m0 >> 10 & 0x3FF).bit_count()
    d1 = (m1 >> 10 & 0x3FF).bit_count()
    if d0 > d1 and d0 >= 6:
        a += 1
    elif d1 > d0 and d1 >= 6:
        b += 1
    if m0 & _SETTEBELLO_BIT:
        a += 1
    elif m1 & _SETTEBELLO_BIT:
        b += 1
    p0, p1 = _primiera_points(_mask_primiera(m0), _mask_primiera(m1))
    a += p0
    b += p1
    if rules.king_of_diamonds:
        if m0 & _KING_OF_DIAMONDS_BIT:
            a += 1
        elif m1 & _KING_OF_DIAMONDS_BIT:
            b += 1
    if rules.diamond_sequence:
        a += _mask_sequence(m0)
        b += _mask_sequence(m1)
    return a, b


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
        if cards >= 21:
            clinched.append("cards")
        if diamonds >= 6:
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
