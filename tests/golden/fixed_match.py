"""A fixed match, built the same way every time, and what storage and the wire make of it.

A seat joins, the first deal is voided (three kings on the table), a turn times out and
is played for its seat, the match is played to its end and a rematch offered: every
kind of event. ``golden()`` is what is stored of it (bytes, in hex) and what a seat and a
spectator are sent (JSON); tests/golden/match.json keeps it as it was when written.

After a change that means to change either (a new field, say), write the file again
with ``python -m tests.golden.fixed_match`` and review the diff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from scopa.contract.events import for_viewer
from scopa.contract.views import match_view
from scopa.domain.events import StoredEvent
from scopa.domain.match import MatchState, Seat, join, new_match, offer_rematch, play, time_out
from scopa.domain.moves import Move
from scopa.domain.rules import make_rules
from scopa.infra import codec
from tests.unit.build import deck_for, first_move, play_through

GOLDEN = Path(__file__).with_name("match.json")
MATCH_ID = "golden-match"
# When the turn of the seat to play runs out, in unix seconds.
DEADLINE = 1_796_000_000.25


class FixedMatch(msgspec.Struct, frozen=True):
    initial: MatchState
    mid: MatchState  # in the second deal's play, a seat on the clock
    final: MatchState
    events: tuple[StoredEvent, ...]
    hint: tuple[Move, str]  # a hint's answer, as the hint queue keeps it


def fixed_match() -> FixedMatch:
    rules = make_rules(target=1, king_of_diamonds=True, turn_seconds=30)
    voided = deck_for(["AC 2C 3C", "4C 5C 6C"], "KC KD KH 7C", dealer=0)
    seats = [Seat("human", name="Ada"), Seat("open")]
    initial, events = new_match(rules, seats, 2026, [voided], 0, seeded=False, ai_secret=7)
    state, new = join(initial, 1, "Bo")
    events += new
    for _ in range(3):
        assert state.turn is not None
        state, new = play(state, state.turn, first_move(state))
        events += new
    state, new = time_out(state, first_move(state))
    events += new
    mid = state
    state, new = play_through(state)
    events += new
    final, new = offer_rematch(state, "golden-rematch")
    events += new
    return FixedMatch(initial, mid, final, tuple(events), (first_move(mid), "takes the most"))


def stored(match: FixedMatch) -> dict[str, Any]:
    """What storage keeps of the match, each blob in hex."""
    return {
        "initial": codec.encode(match.initial).hex(),
        "mid": codec.encode(match.mid).hex(),
        "final": codec.encode(match.final).hex(),
        "events": [codec.encode(e).hex() for e in match.events],
        "hint": codec.encode(match.hint).hex(),
    }


def wire(match: FixedMatch) -> dict[str, Any]:
    """What each seat and a spectator are sent of it, and the record, as JSON values."""

    def sent(value: object) -> Any:
        return json.loads(msgspec.json.encode(value))

    viewers = {"seat0": 0, "seat1": 1, "spectator": None}
    return {
        "views": {
            moment: {
                name: sent(match_view(MATCH_ID, state, seat, deadline=DEADLINE))
                for name, seat in viewers.items()
            }
            for moment, state in (("mid", match.mid), ("final", match.final))
        },
        "events": {
            **{
                name: sent([for_viewer(e, seat) for e in match.events])
                for name, seat in viewers.items()
            },
            "record": sent([for_viewer(e, None, every_hand=True) for e in match.events]),
        },
    }


def golden() -> dict[str, Any]:
    match = fixed_match()
    return {"stored": stored(match), "wire": wire(match)}


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(golden(), indent=1, sort_keys=True) + "\n")
