"""What one seat may know, and the moves it can make from that alone.

Strategies receive a ``Knowledge`` and nothing else: it has no field for another hand or
the order of the stock, so a strategy cannot peek even by accident. Every card taken is
public (it was face up when taken), so the piles are here in full.
"""

from __future__ import annotations

import msgspec

from domain.captures import CaptureRules, capture_positions, capture_rules, is_last_play, table_key
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

    @property
    def captures(self) -> CaptureRules:
        return capture_rules(self.rules)


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


def capture_options(
    captures: CaptureRules, table: tuple[int, ...], card: int
) -> list[tuple[int, ...]]:
    """Each set of table cards ``card`` may take, in table order (empty: it takes nothing)."""
    values = [VALUE[c] for c in table]
    v = VALUE[card]
    takes, moves, _ = captures.tables[table_key(values)]
    return [tuple([table[i] for i in p]) for p in capture_positions(values, takes[v], moves[v])]


def candidates(k: Knowledge) -> list[Candidate]:
    """Every legal move of ``k.seat``, in hand order, like ``domain.match.legal_moves``."""
    captures = k.captures
    last_play = is_last_play(k.deck_count + sum(k.hand_counts))
    moves = []
    for card in k.hand:
        options = capture_options(captures, k.table, card)
        if not options:
            moves.append(Candidate(card, (), False))
            continue
        for taken in options:
            sweep = captures.is_sweep(VALUE[card], len(taken), len(k.table), last_play)
            moves.append(Candidate(card, taken, sweep))
    return moves
