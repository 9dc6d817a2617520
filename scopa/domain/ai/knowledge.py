"""What one seat may know, and the moves it can make from that alone.

Strategies receive a ``Knowledge`` and nothing else: it has no field for the order of the
stock, and another hand only where everyone sees it (``shown``), so a strategy cannot peek
even by accident. Every card taken is public (it was face up when taken), so the piles are
here in full.
"""

from __future__ import annotations

import msgspec

from scopa.domain.captures import CaptureRules, capture_rules, is_last_play, table_key
from scopa.domain.cards import DECK, VALUE
from scopa.domain.deal import team_of
from scopa.domain.match import MatchState, hand_shown
from scopa.domain.moves import Move
from scopa.domain.rules import Rules


# omit_defaults: with nothing shown a Knowledge encodes as it did before ``shown`` existed,
# so the coach's seeds (a hash of the encoding) are unchanged for such matches.
class Knowledge(msgspec.Struct, frozen=True, omit_defaults=True):
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
    # Per seat, the hand everyone sees under ``reveal_ai_hands`` (None: hidden). The coach
    # fills it; a seat in play is left without it, as the contract's AI seats see only
    # what their seat may know. (): nothing shown.
    shown: tuple[tuple[int, ...] | None, ...] = ()

    @property
    def team(self) -> int:
        return team_of(self.seat, self.players)

    @property
    def unseen(self) -> tuple[int, ...]:
        """The cards this seat has not seen: in hidden hands or in the stock."""
        seen = set(self.hand)
        seen.update(self.table)
        for pile in self.piles:
            seen.update(pile)
        for hand in self.shown:
            seen.update(hand or ())
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


def knowledge_of(state: MatchState, seat: int, *, with_shown: bool = False) -> Knowledge:
    """What ``seat`` knows of ``state``; ``with_shown`` adds the hands the rules show to
    everyone."""
    shown = tuple(h if hand_shown(state, i) else None for i, h in enumerate(state.hands))
    if not with_shown or all(h is None for h in shown):
        shown = ()
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
        shown=shown,
    )


def captures_from(rules: CaptureRules, table: tuple[int, ...], card: int) -> list[Move]:
    """The captures ``card`` may make from ``table``; empty if it takes nothing."""
    values = [VALUE[c] for c in table]
    return rules.captures(card, table, values, table_key(values))


def candidates(k: Knowledge) -> list[Move]:
    """Every legal move of ``k.seat``, in hand order, like ``domain.match.legal_moves``."""
    values = [VALUE[c] for c in k.table]
    return k.captures.legal_moves(k.hand, k.table, values, table_key(values))
