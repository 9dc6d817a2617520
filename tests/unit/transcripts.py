"""Saved whole matches (tests/transcripts/*.json), perft-style: the setup, every move a
fixed policy chose (in the moves' text form, ``7D:3C+4H``), and what each deal scored.
``test_engine_transcripts.py`` replays them.

Regenerate (only when a rule change is meant to change them) with

    python -m tests.unit.transcripts

and review the diff: each file is checked against the reference model as well.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from scopa.domain.cards import NAME, names, parse_cards
from scopa.domain.deal import team_of
from scopa.domain.events import (
    CardPlayed,
    DealScored,
    DealStarted,
    LeftoversTaken,
    Redeal,
    StoredEvent,
)
from scopa.domain.match import MatchState, is_sweep, legal_moves, new_match, play
from scopa.domain.moves import Move
from scopa.domain.rng import SplitMix64
from scopa.domain.rules import make_rules
from tests.unit.build import deck_for, humans

FOLDER = Path(__file__).resolve().parent.parent / "transcripts"

# name, what it shows, seed, make_rules options, players, policy; first dealer, decks
SPECS: list[dict[str, Any]] = [
    {"name": "classic-2p", "about": "default rules, 2 players", "seed": 1, "rules": {},
     "players": 2, "policy": "greedy"},
    {"name": "four-players", "about": "4 players in two teams, random moves", "seed": 2,
     "rules": {}, "players": 4, "policy": "random:7"},
    {"name": "six-card-hands", "about": "2 players, 6-card hands, 3 packets", "seed": 3,
     "rules": {"hand_size": 6}, "players": 2, "policy": "greedy"},
    {"name": "fifteen-napola", "about": "capture fifteen with the diamond sequence (target 21)",
     "seed": 4, "rules": {"capture": "fifteen", "diamond_sequence": True}, "players": 2,
     "policy": "random:11"},
    {"name": "ace-sweeps-king", "about": "Scopa d'Assi with the king of diamonds", "seed": 5,
     "rules": {"ace_sweeps": "sweep", "king_of_diamonds": True}, "players": 2,
     "policy": "greedy"},
    {"name": "ace-no-point-redeal-4p",
     "about": "aces take all but never score a sweep; the named first deck shows three "
     "kings and is redealt", "seed": 6, "rules": {"ace_sweeps": "no_point", "target": 6},
     "players": 4, "policy": "random:3", "first_dealer": 2,
     "decks": [names(deck_for(["AC 2C 3C", "4C 5C 6C", "7C JC QC", "AD 2D 3D"], "KC KD KH 4D",
                              dealer=2))]},
    {"name": "scopone-plain", "about": "scopone: ten cards a seat, an empty table, no stock",
     "seed": 7, "rules": {"deal": "scopone"}, "players": 4, "policy": "random:13"},
    {"name": "scopone-napola-16", "about": "scopone to 16 with the napola and scopa d'assi",
     "seed": 8, "rules": {"deal": "scopone", "diamond_sequence": True, "target": 16,
                          "ace_sweeps": "sweep"}, "players": 4, "policy": "greedy",
     "first_dealer": 3},
]  # fmt: skip


def choose(policy: str, state: MatchState, rng: SplitMix64 | None) -> Move:
    """``greedy``: the move taking most cards, a sweep first, then the lowest card and
    capture; ``random:N``: uniform over the moves in that same order, from SplitMix64(N).
    Neither depends on the order legal_moves lists the moves in."""
    moves = legal_moves(state)
    ordered = sorted(
        moves, key=lambda m: (-len(m.capture), not is_sweep(state, m), m.card, m.capture)
    )
    if policy == "greedy":
        return ordered[0]
    assert rng is not None
    return ordered[rng.below(len(ordered))]


def policy_rng(policy: str) -> SplitMix64 | None:
    return SplitMix64(int(policy.split(":")[1])) if policy.startswith("random:") else None


def setup(spec: dict[str, Any]) -> tuple[MatchState, list[StoredEvent]]:
    players = spec["players"]
    rules = make_rules(players=players, **spec["rules"])
    decks = [parse_cards(d) for d in spec.get("decks", [])]
    return new_match(rules, humans(players), spec["seed"], decks, spec.get("first_dealer"))


def summary(events: list[StoredEvent], players: int) -> list[dict[str, Any]]:
    """Each deal of a match from its events: how it started, the moves, the piles as
    scored (leftovers included) and the score."""
    deals: list[dict[str, Any]] = []
    redeals = 0
    for event in events:
        if isinstance(event, Redeal):
            redeals += 1
        elif isinstance(event, DealStarted):
            deal: dict[str, Any] = {"deal": event.deal, "dealer": event.dealer,
                                    "redeals": redeals, "table": " ".join(event.table)}  # fmt: skip
            moves: list[str] = []
            piles: list[list[str]] = [[], []]
            deals.append(deal)
            redeals = 0
        elif isinstance(event, CardPlayed):
            move = Move.of(NAME.index(event.card), [NAME.index(c) for c in event.capture])
            moves.append(str(move))
            if event.capture:
                piles[team_of(event.seat, players)] += [*event.capture, event.card]
        elif isinstance(event, LeftoversTaken):
            deal["leftovers"] = [event.team, " ".join(event.cards)]
            if event.team is not None:
                piles[event.team] += event.cards
        elif isinstance(event, DealScored):
            deal["moves"] = " ".join(moves)
            deal["captured"] = [" ".join(p) for p in piles]
            deal["teams"] = [
                {"cards": t.cards, "diamonds": t.diamonds, "settebello": t.settebello,
                 "primiera": t.primiera, "sweeps": t.sweeps,
                 "king_of_diamonds": t.king_of_diamonds, "diamond_sequence": t.diamond_sequence,
                 "points": msgspec.structs.asdict(t.points), "total": t.total}
                for t in event.teams
            ]  # fmt: skip
            deal["scores"] = list(event.scores)
    return deals


# Options of the clock, which no transcript has: it records how the cards were played.
CLOCK_OPTIONS = ("turn_seconds", "on_timeout")


def record(spec: dict[str, Any]) -> dict[str, Any]:
    state, events = setup(spec)
    rng = policy_rng(spec["policy"])
    while state.status == "active":
        assert state.turn is not None
        state, new = play(state, state.turn, choose(spec["policy"], state, rng))
        events += new
    return {
        **spec,
        "rules": {
            k: v for k, v in msgspec.structs.asdict(state.rules).items() if k not in CLOCK_OPTIONS
        },
        "deals": summary(events, spec["players"]),
        "scores": list(state.scores),
        "winner": state.winner,
    }


def dump(transcript: dict[str, Any]) -> str:
    """One key a line; each deal's entries one to a line, so a diff reads well."""
    lines = []
    for key, value in transcript.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            inner = ",\n".join("  " + json.dumps(v) for v in value)
            lines.append(f"{json.dumps(key)}: [\n{inner}\n ]")
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(lines) + "\n}\n"


def main() -> None:
    FOLDER.mkdir(exist_ok=True)
    for spec in SPECS:
        path = FOLDER / f"{spec['name']}.json"
        path.write_text(dump(record(spec)))
        print(path)


if __name__ == "__main__":
    main()
