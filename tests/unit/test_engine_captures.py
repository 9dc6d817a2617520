"""The capture tables' summaries (move counts, whole-table captures) agree with the
captures they summarise, in every capture variant."""

from __future__ import annotations

import random

import pytest

from scopa.domain.captures import capture_positions, capture_rules, table_key
from scopa.domain.cards import DECK, VALUE
from scopa.domain.rules import Rules, make_rules

VARIANTS = [
    make_rules(),
    make_rules(capture="fifteen"),
    make_rules(ace_sweeps="sweep"),
    make_rules(ace_sweeps="no_point"),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.capture}-{r.ace_sweeps}")
def test_counts_and_whole_table_marks_match_the_captures(rules: Rules) -> None:
    captures = capture_rules(rules)
    rng = random.Random(rules.capture + rules.ace_sweeps)
    for _ in range(1500):
        table = rng.sample(DECK, rng.randint(0, 9))
        values = [VALUE[c] for c in table]
        key = table_key(values)
        takes, moves, clears = captures.tables[key]
        for v in range(1, 11):
            found = capture_positions(values, takes[v], moves[v])
            assert moves[v] == max(1, len(found))
            assert len(set(found)) == len(found)
            whole = any(len(p) == len(table) for p in found)
            assert bool(clears >> v & 1) is whole


def test_the_sweep_rule() -> None:
    plain, no_point = capture_rules(make_rules()), capture_rules(make_rules(ace_sweeps="no_point"))
    assert plain.is_sweep(5, 2, 2, last_play=False)
    assert not plain.is_sweep(5, 1, 2, last_play=False)
    assert not plain.is_sweep(5, 2, 2, last_play=True)
    assert not plain.is_sweep(5, 0, 0, last_play=False)
    assert plain.is_sweep(1, 1, 1, last_play=False)
    assert not no_point.is_sweep(1, 1, 1, last_play=False)
    assert no_point.is_sweep(2, 1, 1, last_play=False)
    assert (plain.sweeping, no_point.sweeping) == (0b11111111110, 0b11111111100)
