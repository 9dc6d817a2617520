"""Hard as it was before 0.4.0, frozen as the tournament opponent ``hard-v1``: the
medium weighing, minus what the next player can answer with.

The next player is always a rival (in 2v2 the partner sits two seats on). Its hand is
some ``h`` of the ``n`` unseen cards, each set equally likely as far as this seat knows,
so the rival's best reply has an exact expectation: rank the unseen cards by the damage
each would do on the table this move leaves, and the chance that the best card the rival
holds is among the top ``i`` is ``1 - C(n - i, h) / C(n, h)``. Damage counts a sweep, the
settebello and sevens through the card weights; near the end it counts the leftovers that
go with the last capture.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from scopa.domain.ai.evaluate import SWEEP, card_weights, discard_order_key
from scopa.domain.ai.knowledge import Knowledge, candidates, captures_from
from scopa.domain.ai.medium import capture_gain, capture_reason
from scopa.domain.captures import table_key
from scopa.domain.cards import VALUE
from scopa.domain.deal import team_of
from scopa.domain.moves import Move


def expected_best(damages: list[float], held: int) -> float:
    """The mean of the largest of ``held`` values drawn without replacement."""
    n = len(damages)
    if held <= 0 or n == 0:
        return 0.0
    damages.sort(reverse=True)
    total = comb(n, held)
    expected = 0.0
    before = 0.0
    for i, d in enumerate(damages, 1):
        p = 1.0 - comb(n - i, held) / total
        expected += d * (p - before)
        before = p
    return expected


class _Situation:
    """What stays fixed while the candidate moves of one decision are compared."""

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        self.team = k.team
        self.weights = card_weights(k.rules, k.piles, self.team)
        self.unseen = k.unseen
        self.captures = k.captures
        # The values among the unseen cards that would score a sweep on a table they clear.
        unseen_values = 0
        for u in self.unseen:
            unseen_values |= 1 << VALUE[u]
        self.sweepers = unseen_values & self.captures.sweeping
        players = k.players
        nxt = (k.seat + 1) % players
        held = k.hand_counts[nxt]
        if held == 0 and k.deck_count:
            held = k.rules.hand_size  # my card empties the last hand: a new packet comes
        self.rival_held = held
        self.rival_team = team_of(nxt, players)
        # My card ends the deal: nobody answers, the leftovers go to the last capturer.
        self.ends_with_me = k.deck_count == 0 and len(k.hand) == 1 and held == 0
        after_rival = (k.seat + 2) % players
        left_after_rival = len(k.hand) - 1 if after_rival == k.seat else k.hand_counts[after_rival]
        self.rival_ends = k.deck_count == 0 and held == 1 and left_after_rival == 0

    def signed(self, cards: Sequence[int], team: int | None) -> float:
        """Cards going to ``team``, counted for me (+) or against me (-)."""
        if team is None:
            return 0.0
        worth = sum(self.weights[c] for c in cards)
        return worth if team == self.team else -worth

    def table_after(self, move: Move) -> tuple[int, ...]:
        table = self.k.table
        if not move.capture:
            return (*table, move.card)
        return tuple(c for c in table if c not in move.capture)

    def leaves_sweep(self, table: tuple[int, ...]) -> bool:
        key = table_key([VALUE[c] for c in table])
        return bool(self.captures.tables[key].clears & self.sweepers)

    def rival_reply(self, table: tuple[int, ...], last_capturer: int | None) -> float:
        """The expected damage of the rival's best answer, counted in my points."""
        w = self.weights
        best_take: dict[int, float | None] = {}
        for u in self.unseen:
            v = VALUE[u]
            if v in best_take:
                continue
            best: float | None = None
            for move in captures_from(self.captures, table, u):
                taken = move.capture
                worth = sum(w[c] for c in taken)
                if self.rival_ends:
                    worth += sum(w[c] for c in table if c not in taken)
                elif self.captures.is_sweep(v, len(taken), len(table), False):
                    worth += SWEEP
                if best is None or worth > best:
                    best = worth
            best_take[v] = best
        damages = []
        for u in self.unseen:
            take = best_take[VALUE[u]]
            if take is not None:
                damages.append(take + w[u])
            elif self.rival_ends:
                damages.append(-self.signed((*table, u), last_capturer))
            else:
                damages.append(0.0)
        return expected_best(damages, self.rival_held)

    def value(self, move: Move) -> float:
        table = self.table_after(move)
        gain = capture_gain(self.k, move, self.weights)
        last = self.team if move.capture else self.k.last_capturer
        if self.ends_with_me:
            return gain + self.signed(table, last)
        return gain - self.rival_reply(table, last)


def choose(k: Knowledge) -> tuple[Move, str]:
    moves = candidates(k)
    situation = _Situation(k)
    if len(moves) == 1:
        return moves[0], "its only move"
    weights = situation.weights
    scored = [(situation.value(m), -discard_order_key(m.card, weights)[0], m) for m in moves]
    best = max(scored, key=lambda s: (s[0], s[1]))[2]
    return best, _reason(situation, best, moves)


def _reason(s: _Situation, best: Move, moves: list[Move]) -> str:
    if s.k.is_sweep(best):
        return "sweeps the table"
    if s.ends_with_me and best.capture:
        return "makes the last capture"
    greedy = max(moves, key=lambda m: capture_gain(s.k, m, s.weights))
    if greedy != best and s.leaves_sweep(s.table_after(greedy)):
        return "avoids leaving a sweep"
    if best.capture:
        return capture_reason(s.k, best)
    if any(not m.capture and s.leaves_sweep(s.table_after(m)) for m in moves):
        return "avoids leaving a sweep"
    return "discards its least useful card"
