"""Hard: the expert's search made small, a few worlds searched a few plays ahead.

It is the level most players meet, so it must be a real opponent and cheap: ``WORLDS``
worlds of the cards it has not seen, alpha-beta ``DEPTH`` plays deep in each (the
expert's ``evaluate``, racing included), so a decision costs a millisecond or two.
"""

from __future__ import annotations

from scopa.domain.ai.expert import search
from scopa.domain.ai.knowledge import Knowledge, candidates
from scopa.domain.ai.medium import capture_reason
from scopa.domain.captures import table_key
from scopa.domain.cards import VALUE
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64

WORLDS = 6
DEPTH = 3
# With so few worlds a looser race: hard's figures (docs/ai.md) were measured with it.
RACE_Z = 2.0


def choose(k: Knowledge, rng: SplitMix64) -> tuple[Move, str]:
    moves = candidates(k)
    if len(moves) == 1:
        return moves[0], "its only move"
    move, _ = search(k, moves, rng, WORLDS, DEPTH, race_z=RACE_Z)
    if move.capture:
        return move, capture_reason(k, move)
    if not leaves_sweep(k, move) and any(leaves_sweep(k, m) for m in moves):
        return move, "avoids leaving a sweep"
    return move, "keeps its better cards"


def leaves_sweep(k: Knowledge, move: Move) -> bool:
    """Whether a card this seat has not seen could sweep the table ``move`` leaves."""
    table = [c for c in k.table if c not in move.capture]
    if not move.capture:
        table.append(move.card)
    if not table:
        return False
    held = 0
    for c in k.unseen:
        held |= 1 << VALUE[c]
    captures = k.captures
    return bool(
        held & captures.sweeping & captures.tables[table_key([VALUE[c] for c in table])].clears
    )
