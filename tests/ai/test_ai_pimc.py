"""``pimc``, the sparring partner, plays the public algorithm and keeps playing it.

Its search is checked against a plain minimax written here, on deal ends where every
card is known (two players, the stock gone: every world is the truth); its decisions on
the frozen levels' 24 saved positions are pinned, so a change to shared code that would
move the yardstick fails here first.
"""

from __future__ import annotations

import pytest

from scopa.domain.ai import LEVELS, SPARRING, decide, pimc
from scopa.domain.ai.knowledge import candidates, knowledge_of
from scopa.domain.ai.search import world
from scopa.domain.deal import Deal, team_of
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import Rules
from scopa.domain.scoring import deal_points
from tests.ai.positions import random_positions, rules_for
from tests.ai.test_ai_frozen import SAVED

# pimc's moves on tests/ai/frozen_positions.json, in the file's order, each decided with
# the position's own seed.
PINNED = [
    "6D:", "QC:QS", "4D:4S", "JC:JS", "KD:KH", "4H:", "3D:3H", "4C:4H", "2C:2H", "4S:4D",
    "JC:", "7S:3C+4C", "6D:", "QC:QS", "7S:7H", "QH:3C+6S", "7D:", "AS:AC", "JD:7D+AS",
    "5C:5D", "QH:QC", "2H:2C", "JD:AD+7D", "7S:7D",
]  # fmt: skip


def test_pimc_keeps_its_decisions_on_the_saved_positions() -> None:
    chosen = []
    for p in SAVED:
        assert p.state.turn is not None
        chosen.append(str(decide(p.state, p.state.turn, "pimc", p.seed)[0]))
    assert chosen == PINNED


def test_pimc_is_a_tournament_opponent_not_a_level() -> None:
    assert SPARRING == ("pimc",)
    assert "pimc" not in LEVELS


def _minimax(rules: Rules, deal: Deal, team: int, depth: int) -> int:
    """Plain minimax, no pruning: ``team``'s points of the deal so far minus the other's,
    ``depth`` plays on (or at the deal's end, the table's last cards taken)."""
    if deal.is_over() or depth == 0:
        if deal.is_over():
            deal.take_leftovers()
        points = deal_points(rules, deal.piles, deal.sweeps)
        return points[team] - points[1 - team]
    values = []
    for move in deal.legal_moves():
        child = deal.clone()
        child.play(move)
        values.append(_minimax(rules, child, team, depth - 1))
    return max(values) if team_of(deal.turn, deal.players) == team else min(values)


@pytest.mark.parametrize("variant", ["classic", "fifteen", "ace_sweeps"])
def test_pimc_plays_the_best_move_of_a_five_play_search_when_every_card_is_known(
    variant: str,
) -> None:
    rules = rules_for(variant)
    checked = 0
    for state in random_positions(rules, 2, 77, 3000):
        if state.stock or state.turn is None:
            continue
        k = knowledge_of(state, state.turn)
        moves = candidates(k)
        if len(moves) < 2:
            continue
        truth = world(k, k.unseen, SplitMix64(0))
        values = []
        for move in moves:
            child = truth.clone()
            child.play(move)
            values.append(_minimax(rules, child, k.team, pimc.DEPTH - 1))
        chosen, _ = pimc.choose(k, SplitMix64(checked))
        assert values[moves.index(chosen)] == max(values), (state, chosen, values)
        checked += 1
        if checked == 40:
            break
    assert checked == 40
