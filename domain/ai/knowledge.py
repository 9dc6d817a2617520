"""What one seat may know, and the moves it can make from that alone.

Strategies receive a ``Knowledge`` and nothing else: it has no field for another hand or
the order of the stock, so a strategy cannot peek even by accident. Every card taken is
public (it was face up when taken), so the piles are here in full.
"""

from __future__ import annotations

import msgspec

from domain.captures import WEIGHT, positions, take_options
from domain.cards import DECK, VALUE
from domain.deal import team_of
from domain.match import MatchState
from domain.rules import Rules


class Knowledge(msgspec.Struct, frozen=True):
    rules: Rules
    players: int
    seat: int
    dealer: int
    turn: int
    hand: tuple[int, ...]
    table: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]  # per team, every card taken so far this deal
    hand_counts: tuple[int, ...]
    deck_count: int
    sweeps: tuple[int, ...]
    last_capturer: int | None
    scores: tuple[int, ...]

    @property
    def team(self) -> int:
        return team_of(self.seat, self.players)

    @property
    def unseen(self) -> tuple[int, ...]:
        """The cards this seat has not seen: in other hands or in the stock."""
        seen = set(self.hand)
        seen.update(self.table)
        for pile in self.piles:
            seen.update(pile)
        return tuple(c for c in DECK if c not in seen)


class Candidate(msgspec.Struct, frozen=True):
    card: int
    capture: tuple[int, ...]  # table cards taken, () if the card stays on the table
    sweep: bool


def knowledge_of(state: MatchState, seat: int) -> Knowledge:
    return Knowledge(
        rules=state.rules,
        players=state.players,
        seat=seat,
        dealer=state.dealer or 0,
        turn=state.turn if state.turn is not None else seat,
        hand=state.hands[seat],
        table=state.table,
        piles=state.piles,
        hand_counts=tuple(len(h) for h in state.hands),
        deck_count=len(state.stock),
        sweeps=state.sweeps,
        last_capturer=state.last_capturer,
        scores=state.scores,
    )


def ace_mode(rules: Rules) -> int:
    """0: aces are ordinary; 1: an ace sweep scores; 2: no ace capture scores a sweep."""
    return ("off", "sweep", "no_point").index(rules.ace_sweeps)


def capture_options(
    table: tuple[int, ...] | list[int], card: int, fifteen: bool, aces: int
) -> list[tuple[int, ...]]:
    """Each set of table cards ``card`` may take (empty list: it takes nothing)."""
    values = [VALUE[c] for c in table]
    v = VALUE[card]
    if v == 1 and aces and values and 1 not in values:
        return [tuple(table)]
    key = 0
    for x in values:
        key += WEIGHT[x]
    return [
        tuple(table[i] for i in pos)
        for take in take_options(key, fifteen)[v]
        for pos in positions(values, take)
    ]


def candidates(k: Knowledge) -> list[Candidate]:
    """Every legal move of ``k.seat``, in hand order, like ``domain.match.legal_moves``."""
    fifteen = k.rules.capture == "fifteen"
    aces = ace_mode(k.rules)
    nxt = (k.seat + 1) % k.players
    last_play = k.deck_count == 0 and len(k.hand) == 1 and k.hand_counts[nxt] == 0
    moves = []
    for card in k.hand:
        options = capture_options(k.table, card, fifteen, aces)
        if not options:
            moves.append(Candidate(card, (), False))
            continue
        for taken in options:
            sweep = (
                len(taken) == len(k.table)
                and not last_play
                and not (aces == 2 and VALUE[card] == 1)
            )
            moves.append(Candidate(card, taken, sweep))
    return moves
