"""The frozen levels keep their decisions: ``expert-v1`` and ``hard-v1`` are the yardsticks
the new levels are measured against, so they must not drift when shared code changes.

``frozen_positions.json`` holds 24 saved positions (every fifth of 60 met in random
classic play, seed 1414, 12 with 2 players and 12 with 4) and the move each frozen level
chose there, before issue 14 changed ``expert`` and ``hard``, with the position's index as
the decision's seed. The positions are saved rather than replayed, so a change to how
random play or dealing goes cannot move them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

from scopa.domain.ai import FROZEN, LEVELS, OPPONENTS, decide
from scopa.domain.match import MatchState

PACKAGE = Path(__file__).resolve().parents[2] / "scopa"
FROZEN_PACKAGE = PACKAGE / "domain" / "ai" / "frozen"


class Pinned(msgspec.Struct, frozen=True):
    seed: int
    moves: dict[str, str]
    state: MatchState


SAVED = msgspec.json.decode(
    (Path(__file__).parent / "frozen_positions.json").read_bytes(), type=list[Pinned]
)


@pytest.mark.parametrize("level", FROZEN)
@pytest.mark.parametrize("players", [2, 4])
def test_frozen_levels_keep_their_decisions(level: str, players: int) -> None:
    saved = [p for p in SAVED if p.state.players == players]
    assert len(saved) == 12
    chosen = []
    for p in saved:
        assert p.state.turn is not None
        chosen.append(str(decide(p.state, p.state.turn, level, p.seed)[0]))
    assert chosen == [p.moves[level] for p in saved]


def test_frozen_levels_are_opponents_not_levels_offered_to_players() -> None:
    assert LEVELS == ("easy", "medium", "hard", "expert")
    assert set(OPPONENTS) == {*LEVELS, "hard-v1", "expert-v1", "pimc"}


def test_the_server_reaches_the_frozen_levels_only_through_decide() -> None:
    """Nothing builds on the frozen code, so it can stay frozen: only ``decide``'s module
    (and the frozen levels themselves) import it."""
    importers = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            if any(n.startswith("scopa.domain.ai.frozen") for n in names):
                importers.add(path)
    outside = {p.relative_to(PACKAGE) for p in importers if FROZEN_PACKAGE not in p.parents}
    assert outside == {Path("domain/ai/__init__.py")}
