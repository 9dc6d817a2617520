"""Hard: the expert's search made small, a few worlds searched a few plays ahead.

It is the level most players meet, so it must be a real opponent and cheap: ``WORLDS``
worlds of the cards it has not seen, alpha-beta ``DEPTH`` plays deep in each (the
expert's ``evaluate``, racing included), so a decision costs a millisecond or two.
"""

from __future__ import annotations

from domain.ai.expert import search
from domain.ai.knowledge import Knowledge, candidates
from domain.ai.medium import capture_reason
from domain.moves import Move
from domain.rng import SplitMix64

WORLDS = 6
DEPTH = 3


def choose(k: Knowledge, rng: SplitMix64) -> tuple[Move, str]:
    moves = candidates(k)
    if len(moves) == 1:
        return moves[0], "its only move"
    move, _ = search(k, moves, rng, WORLDS, DEPTH)
    if k.is_sweep(move):
        return move, "sweeps the table"
    return move, capture_reason(k, move) if move.capture else "keeps its better cards"
