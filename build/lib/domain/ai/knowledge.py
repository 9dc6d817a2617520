"""What one seat may know, and the moves it can make from that alone.

Strategies receive a ``Knowledge`` and nothing else: it has no field for another hand or
the order of the stock, so a strategy cannot peek even by accident. Every card taken is
public (it was face up when taken), so the piles are here in full.
"""

from __future__ import annotations

import msgspec

from domain.captures import CaptureRules, capture_rules, is_last_play, table_key
from domain.cards import DECK, VALUE
from domain.deal import team_of
from domain.match import MatchState
from domain.moves import Move
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

    def is_sweep(self, move: Move) -> bool:
        """Whether ``move`` (this seat's, now) scores a sweep."""
        last_play = is_last_play(self.deck_count + sum(self.hand_counts))
        return self.captures.is_sweep(
            VALUE[move.card], len(move.capture), len(self.table), last_play
        )


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


def captures_from(rules: CaptureRules, table: tuple[int, ...], card: int) -> list[Move]:
    """The captures ``card`` may make from ``table``; empty if it takes nothing."""
    values = [VALUE[c] for c in table]
    return rules.captures(card, table, values, table_key(values))


def candidates(k: Knowledge) -> list[Move]:
    """Every legal move of ``k.seat``, in hand order, like ``domain.match.legal_moves``."""
    values = [VALUE[c] for c in k.table]
    return k.captures.legal_moves(k.hand, k.table, values, table_key(values))
