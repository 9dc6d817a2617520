"""Saved matches (tests/transcripts/*.json) replayed move by move, perft-style.

Each file holds a match's setup, the moves a fixed policy chose, and how each deal started
and scored. Replaying must choose the same moves, deal the same cards and score the same;
the slow reference model must agree with every number. Deal 1 of ace-sweeps-king.json was
also checked by hand against docs/rules.md (see the last test).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scopa.domain.cards import NAME, names
from scopa.domain.events import StoredEvent
from scopa.domain.match import play
from scopa.domain.moves import Move
from scopa.domain.rules import make_rules
from tests.unit import reference
from tests.unit.transcripts import FOLDER, SPECS, choose, dump, policy_rng, record, setup, summary

FILES = sorted(FOLDER.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def moves_of(transcript: dict[str, Any]) -> list[Move]:
    return [Move.parse(text) for deal in transcript["deals"] for text in deal["moves"].split()]


def test_there_is_one_file_per_spec() -> None:
    assert [p.stem for p in FILES] == sorted(s["name"] for s in SPECS)
    assert len(FILES) >= 6


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_transcript_replays_to_the_same_deals_scores_and_winner(path: Path) -> None:
    transcript = load(path)
    state, events = setup(transcript)
    rng = policy_rng(transcript["policy"])
    log: list[StoredEvent] = list(events)
    for move in moves_of(transcript):
        assert state.status == "active"
        assert state.turn is not None
        chosen = choose(transcript["policy"], state, rng)
        assert chosen == move
        state, events = play(state, state.turn, chosen)
        log += events
    assert state.status == "finished"
    assert summary(log, transcript["players"]) == transcript["deals"]
    assert list(state.scores) == transcript["scores"]
    assert state.winner == transcript["winner"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_reference_model_agrees_with_every_transcript(path: Path) -> None:
    transcript = load(path)
    rules = make_rules(players=transcript["players"], **transcript["rules"])
    model = reference.Match(
        rules,
        transcript["players"],
        transcript["seed"],
        transcript.get("decks", []),
        transcript.get("first_dealer"),
    )
    moves = iter(moves_of(transcript))
    for n, deal in enumerate(transcript["deals"]):
        assert (model.number, model.deal.dealer) == (deal["deal"], deal["dealer"])
        assert " ".join(model.deal.table) == deal["table"]
        assert len(model.redeals) == sum(d["redeals"] for d in transcript["deals"][: n + 1])
        while len(model.deal_scores) == n:
            move = next(moves)
            card, taken = NAME[move.card], frozenset(names(move.capture))
            assert (card, taken) in {(c, t) for c, t, _ in model.deal.moves()}
            model.play(card, taken)
        piles = model.scored_piles[n]
        assert [sorted(p) for p in piles] == [sorted(p.split()) for p in deal["captured"]]
        assert model.deal_scores[n] == deal["teams"]
        assert model.scores == deal["scores"]
    assert next(moves, None) is None
    assert (model.scores, model.winner) == (transcript["scores"], transcript["winner"])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s["name"])
def test_the_files_are_what_the_generator_writes(spec: dict[str, Any]) -> None:
    assert (FOLDER / f"{spec['name']}.json").read_text() == dump(record(spec))


def test_the_hand_checked_deal() -> None:
    """ace-sweeps-king, deal 1, counted by hand from its moves: sweeps by AC (all four),
    JC (JH), AH (all four) for team 1 and AD (all four), AS (QH) for team 0; 4D:4C last,
    leftovers 7C 5S to team 0. Team 0: 22 cards, 7 diamonds, 7D, primiera 7C+7D+5H+AS =
    73, AD..5D; team 1: 18 cards, primiera AC+6D+7H+7S = 76, KD."""
    deal = load(FOLDER / "ace-sweeps-king.json")["deals"][0]
    zero, one = deal["teams"]
    assert deal["leftovers"] == [0, "7C 5S"]
    assert (zero["cards"], zero["diamonds"], zero["settebello"]) == (22, 7, True)
    assert (zero["primiera"], zero["sweeps"], zero["diamond_sequence"]) == (73, 2, 5)
    assert (one["cards"], one["primiera"], one["sweeps"]) == (18, 76, 3)
    assert one["king_of_diamonds"] is True
    assert zero["points"] == {
        "sweeps": 2, "cards": 1, "diamonds": 1, "settebello": 1, "primiera": 0,
        "king_of_diamonds": 0, "diamond_sequence": 0,
    }  # fmt: skip
    assert one["points"] == {
        "sweeps": 3, "cards": 0, "diamonds": 0, "settebello": 0, "primiera": 1,
        "king_of_diamonds": 1, "diamond_sequence": 0,
    }  # fmt: skip
    assert deal["scores"] == [5, 5]
