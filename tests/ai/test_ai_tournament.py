"""Tournaments: duplicate deals, the figures, and the command line."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from scopa.domain.ai.tournament import play_match, run
from scopa.domain.rules import make_rules
from scopa.infra.ratings import fit
from scopa.infra.tournament import main, mean_ci, percentile, wilson


def test_matches_come_in_duplicate_pairs() -> None:
    result = run("easy", "medium", 6, seed=4, rules=make_rules(target=3))
    records = result.records
    assert len(records) == 6
    assert [r.a_team for r in records] == [0, 1] * 3
    for first, second in zip(records[::2], records[1::2], strict=True):
        assert first.seed == second.seed
    assert len({r.seed for r in records}) == 3
    for r in records:
        assert sum(r.deal_diffs) == r.scores[r.a_team] - r.scores[1 - r.a_team]
        assert r.a_won == (r.scores[r.a_team] > r.scores[1 - r.a_team])
    assert result.ms_a == result.ms_b == ()


def test_an_odd_number_of_matches_is_played_exactly() -> None:
    result = run("easy", "easy", 3, seed=1, rules=make_rules(target=2))
    assert [r.a_team for r in result.records] == [0, 1, 0]


def test_four_players_put_a_on_both_seats_of_its_team() -> None:
    ticks = itertools.count()
    result = run(
        "hard",
        "easy",
        2,
        seed=2,
        rules=make_rules(target=2, players=4),
        players=4,
        clock=lambda: float(next(ticks)),
    )
    assert result.players == 4
    # One tick per clock reading, two readings a decision: 1000 ms each.
    assert set(result.ms_a) == set(result.ms_b) == {1000.0}
    assert len(result.ms_a) > 0


def test_a_match_is_reproducible() -> None:
    rules = make_rules(target=4)
    first, _ = play_match(rules, ["expert", "hard"], 99)
    again, _ = play_match(rules, ["expert", "hard"], 99)
    assert first == again


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert (low, high) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)


def test_mean_ci_and_percentile() -> None:
    mean, (low, high) = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert low < 2.5 < high
    assert high - 2.5 == pytest.approx(1.96 * 1.2910 / 2, abs=1e-3)
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile([5.0], 99) == 5.0


def test_command_line_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--a", "medium", "--b", "easy", "--matches", "4", "--seed", "3", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["matches"] == 4
    assert out["wins_a"] + out["wins_b"] == 4
    low, high = out["ci95"]
    assert low <= out["mean_diff_per_deal"] <= high
    for side in ("ms_a", "ms_b"):
        assert out[side]["median_ms"] <= out[side]["p99_ms"]


def test_command_line_text(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--a", "hard", "--b", "easy", "--matches", "2", "--players", "4"])
    assert code == 0
    text = capsys.readouterr().out
    assert "wins A" in text
    assert "95% CI (Wilson)" in text
    assert "median" in text


def test_command_line_refuses_an_unknown_level(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--a", "grandmaster", "--b", "easy"])
    assert "grandmaster" in capsys.readouterr().err


def test_ratings_follow_the_win_rates() -> None:
    ratings = fit(["a", "b"], [("a", "b", 76, 24)])
    # 76.5 to 24.5 with the virtual draw: 400 log10(76.5 / 24.5) below the anchor.
    assert ratings["b"][0] == pytest.approx(-400 * math.log10(76.5 / 24.5))
    assert ratings["b"][1] < ratings["b"][0] < ratings["b"][2]
    three = fit(["x", "y", "z"], [("x", "y", 10, 90), ("y", "z", 50, 50), ("x", "z", 10, 90)])
    assert three["y"][0] == pytest.approx(three["z"][0], abs=1e-6)
    assert three["y"][0] > 300


def test_command_line_ladder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ladder", "easy,medium,hard", "--matches", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(p["a"], p["b"]) for p in out["pairings"]] == [
        ("easy", "medium"), ("easy", "hard"), ("medium", "hard")
    ]  # fmt: skip
    assert set(out["ratings"]) == {"easy", "medium", "hard"}
    assert out["ratings"]["easy"]["elo"] == 0.0


def test_a_ladder_over_processes_plays_the_same_matches(capsys: pytest.CaptureFixture[str]) -> None:
    def ladder(jobs: str) -> dict[str, object]:
        argv = ["--ladder", "easy,medium,hard", "--matches", "4", "--seed", "5", "--json"]
        assert main([*argv, "--jobs", jobs]) == 0
        out = json.loads(capsys.readouterr().out)
        for pairing in out["pairings"]:
            del pairing["ms_a"], pairing["ms_b"]  # CPU time differs run to run
        return dict(out)

    assert ladder("2") == ladder("1")
    assert main(["--ladder", "easy,medium", "--jobs", "0"]) == 2
    assert "--jobs" in capsys.readouterr().err
