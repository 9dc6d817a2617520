"""The frozen levels keep their decisions: ``expert-v1`` and ``hard-v1`` are the yardsticks
the new levels are measured against, so they must not drift when shared code changes.

The moves below are what the two levels chose, before issue 14 changed ``expert`` and
``hard``, on every fifth of 60 positions met in random classic play (seed 1414).
"""

from __future__ import annotations

import pytest

from scopa.domain.ai import LEVELS, OPPONENTS, decide
from tests.ai.positions import random_positions, rules_for

PINNED: dict[tuple[str, int], list[str]] = {
    ("expert-v1", 2): [
        "6H:", "QC:QS", "4D:4S", "JC:JS", "5H:5S", "QD:QH",
        "AC:AS", "4C:4H", "2C:2H", "4S:4D", "4C:", "7S:3C+4C",
    ],
    ("expert-v1", 4): [
        "2C:", "QC:QS", "7S:7H", "QH:3C+6S", "7D:", "AS:AC",
        "JD:7D+AS", "5C:5D", "2C:", "2H:2C", "JD:AD+7D", "7S:7D",
    ],
    ("hard-v1", 2): [
        "JS:", "QC:QS", "4D:4S", "JC:JS", "KD:KH", "QD:QH",
        "AC:AS", "4C:4H", "2C:2H", "4S:4D", "4C:", "7S:3C+4C",
    ],
    ("hard-v1", 4): [
        "6H:", "QC:QS", "7S:7H", "QH:3C+6S", "7D:", "AS:AC",
        "JD:7D+AS", "5C:5D", "QH:QC", "2H:2C", "JD:AD+7D", "7S:7D",
    ],
}  # fmt: skip


@pytest.mark.parametrize(("level", "players"), sorted(PINNED))
def test_frozen_levels_keep_their_decisions(level: str, players: int) -> None:
    positions = random_positions(rules_for("classic", players), players, 1414, 60)
    chosen = []
    for i, state in enumerate(positions):
        if i % 5 == 0:
            assert state.turn is not None
            chosen.append(str(decide(state, state.turn, level, i)[0]))
    assert chosen == PINNED[(level, players)]


def test_frozen_levels_are_opponents_not_levels_offered_to_players() -> None:
    assert LEVELS == ("easy", "medium", "hard", "expert")
    assert set(OPPONENTS) == {*LEVELS, "hard-v1", "expert-v1"}
