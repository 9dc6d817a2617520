"""A domain refactor cannot change what is stored or what is sent without failing here:
the fixed match (tests/golden/fixed_match.py) must encode to the stored bytes kept in
tests/golden/match.json, those bytes must decode to the same match, and what its seats
and a spectator are sent must be the JSON kept there."""

from __future__ import annotations

import json
from typing import Any

import pytest

from scopa.infra import codec
from tests.golden.fixed_match import GOLDEN, FixedMatch, fixed_match, stored, wire


@pytest.fixture(scope="module")
def kept() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(GOLDEN.read_text())
    return loaded


@pytest.fixture(scope="module")
def match() -> FixedMatch:
    return fixed_match()


def test_the_match_is_stored_as_the_golden_bytes(kept: dict[str, Any], match: FixedMatch) -> None:
    assert stored(match) == kept["stored"]


def test_the_golden_bytes_read_back_as_the_match(kept: dict[str, Any], match: FixedMatch) -> None:
    blobs = kept["stored"]
    assert codec.decode_state(bytes.fromhex(blobs["initial"])) == match.initial
    assert codec.decode_state(bytes.fromhex(blobs["mid"])) == match.mid
    assert codec.decode_state(bytes.fromhex(blobs["final"])) == match.final
    events = tuple(codec.decode_event(bytes.fromhex(e)) for e in blobs["events"])
    assert events == match.events
    assert codec.decode_hint(bytes.fromhex(blobs["hint"])) == match.hint


def test_bytes_stored_before_players_existed_read_back_as_the_match(match: FixedMatch) -> None:
    """A database written before seats could hold players (and matches be rated) reads
    on: the fields since then take their defaults."""
    blobs = json.loads(GOLDEN.with_name("stored_before_players.json").read_text())
    assert codec.decode_state(bytes.fromhex(blobs["initial"])) == match.initial
    assert codec.decode_state(bytes.fromhex(blobs["final"])) == match.final
    events = tuple(codec.decode_event(bytes.fromhex(e)) for e in blobs["events"])
    assert events == match.events
    assert blobs["initial"] != stored(match)["initial"]


def test_bytes_stored_before_the_deal_option_read_back_as_the_match(match: FixedMatch) -> None:
    """Rules stored before a match could be dealt as scopone read on as scopa."""
    blobs = json.loads(GOLDEN.with_name("stored_before_scopone.json").read_text())
    assert codec.decode_state(bytes.fromhex(blobs["initial"])) == match.initial
    assert codec.decode_state(bytes.fromhex(blobs["mid"])) == match.mid
    assert codec.decode_state(bytes.fromhex(blobs["final"])) == match.final
    assert blobs["initial"] != stored(match)["initial"]
    assert match.initial.rules.deal == "scopa"


def test_seats_and_spectators_are_sent_the_golden_json(
    kept: dict[str, Any], match: FixedMatch
) -> None:
    assert wire(match) == kept["wire"]


def test_the_fixed_match_holds_every_kind_of_event(match: FixedMatch) -> None:
    kinds = {type(e).__name__ for e in match.events}
    assert kinds == {
        "SeatJoined",
        "Redeal",
        "DealStarted",
        "CardsDealt",
        "CardPlayed",
        "LeftoversTaken",
        "DealScored",
        "MatchFinished",
        "RematchOffered",
    }
    assert any(getattr(e, "auto", False) for e in match.events)
