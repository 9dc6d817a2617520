"""The coach: each card one seat played in a finished match, judged by the expert.

The match is replayed from its start and its events. Before each card seat N played, the
expert's search values every legal move with what N knew then: its ``Knowledge`` (its
hand, the table, the piles, the counts, and under ``reveal_ai_hands`` the AI hands shown,
which every sampled world then deals as they are) and the deal's plays so far, each with
its seat.
Its worlds are drawn from a hash of exactly that, so the cards N could not see cannot
change the review, not even through the random draws. Values are in deal points (N's team
minus the other, over the rest of the deal), without the match-odds term the expert
plays with, so a ``loss`` reads as points given away.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import msgspec

from scopa.domain.ai import expert
from scopa.domain.ai.knowledge import Knowledge, candidates, knowledge_of
from scopa.domain.ai.medium import capture_reason
from scopa.domain.cards import NAME, parse_card
from scopa.domain.events import CardPlayed, DealStarted, StoredEvent
from scopa.domain.match import MatchState, redo
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64

# Worlds per reviewed move: more than a decision in play gets, as nobody is waiting on a
# move; a whole 2-player match stays within a few seconds of one core.
REVIEW_WORLDS = 48


class ReviewMove(msgspec.Struct, frozen=True):
    card: str
    capture: tuple[str, ...]


class ReviewedPlay(msgspec.Struct, frozen=True):
    seq: int
    deal: int
    played: ReviewMove
    best: ReviewMove
    loss: float  # expected deal points given away against best, >= 0, 2 decimals
    reason: str
    auto: bool  # played for the seat as its time ran out


class Review(msgspec.Struct, frozen=True):
    seat: int
    moves: tuple[ReviewedPlay, ...]
    total_loss: float


Play = tuple[int, int, tuple[int, ...]]  # seat, card, cards taken


def information_seed(k: Knowledge, plays: Sequence[Play]) -> int:
    """A seed drawn from what the seat knows and nothing else."""
    digest = hashlib.blake2b(msgspec.msgpack.encode((k, plays)), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def judge(k: Knowledge, plays: Sequence[Play], played: Move) -> tuple[Move, float, str]:
    """The expert's move from ``k``, how many deal points ``played`` gives away against it,
    and why the expert's move."""
    moves = candidates(k)
    if len(moves) == 1:
        return moves[0], 0.0, "its only move"
    rng = SplitMix64(information_seed(k, plays))
    means, _ = expert.evaluate(k, moves, rng, REVIEW_WORLDS, match=False, race=False)
    values = [m if m is not None else 0.0 for m in means]
    best = max(range(len(moves)), key=lambda i: values[i])
    loss = max(0.0, values[best] - values[moves.index(played)])
    move = moves[best]
    what = capture_reason(k, move) if move.capture else f"lays {NAME[move.card]}"
    if move == played:
        return move, 0.0, f"{what}: the expert's move"
    if round(loss, 2) == 0:
        return move, 0.0, f"{what}: as good as the move played"
    return move, loss, f"{what}: {loss:.2f} points better by the expert's estimate"


def review(initial: MatchState, events: Sequence[StoredEvent], seat: int) -> Review:
    """Seat ``seat``'s plays in the match that ``events`` took from ``initial``."""
    state = initial
    plays: list[Play] = []
    reviewed: list[ReviewedPlay] = []
    for event in events:
        if isinstance(event, DealStarted):
            plays = []
        elif isinstance(event, CardPlayed):
            move = Move.of(parse_card(event.card), [parse_card(c) for c in event.capture])
            if event.seat == seat:
                k = knowledge_of(state, seat, with_shown=True)
                best, loss, reason = judge(k, plays, move)
                reviewed.append(
                    ReviewedPlay(
                        seq=event.seq,
                        deal=state.deal,
                        played=_named(move, state.table),
                        best=_named(best, state.table),
                        loss=round(loss, 2),
                        reason=reason,
                        auto=event.auto,
                    )
                )
            plays.append((event.seat, move.card, move.capture))
        # Joins, claims, plays (autoplayed ones with their timeout) and early endings.
        redone = redo(state, event)
        if redone is not None:
            state = redone[0]
    total = round(sum(r.loss for r in reviewed), 2)
    return Review(seat=seat, moves=tuple(reviewed), total_loss=total)


def _named(move: Move, table: Sequence[int]) -> ReviewMove:
    return ReviewMove(NAME[move.card], tuple(NAME[c] for c in move.taken_from(table)))
