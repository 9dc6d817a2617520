"""GET /v1/matches/{id}/record, and the fairness commitment it lets anyone check.

Each finished match is rebuilt from its record alone (its rules, decks, first dealer and
moves) with the engine, and must come to the same scores; the commitment shown from the
start must be the SHA-256 of the seed revealed at the end, and the decks must be the
shuffles docs/api.md's generator draws from that seed.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from scopa.domain.cards import parse_card, parse_cards
from scopa.domain.match import Seat, new_match, play, time_out
from scopa.domain.moves import Move
from scopa.domain.rules import Rules
from tests.api.support import (
    DECK,
    Client,
    bearer,
    create,
    finish,
    join,
    problem_type,
    tokens,
    view,
)
from tests.support.databases import sqlite_only
from tests.support.in_process import InProcess
from tests.unit import reference

database_url = sqlite_only()


HUMAN = {"kind": "human"}
SETUPS: dict[str, dict[str, Any]] = {
    "2p secret": {"seats": [HUMAN, HUMAN], "rules": {"target": 3}},
    "4p with the AI, secret": {
        "seats": [HUMAN, {"kind": "ai", "level": "easy"}, HUMAN, {"kind": "ai", "level": "hard"}],
        "rules": {"target": 1, "capture": "fifteen"},
    },
    "2p joined, secret, dealer named": {
        "seats": [HUMAN, {"kind": "open"}],
        "rules": {"target": 1, "hand_size": 6},
        "first_dealer": 1,
    },
    # Seed 44 voids its first deal: the record holds the voided deck too.
    "2p seeded with a redeal": {"seats": [HUMAN, HUMAN], "rules": {"target": 1}, "seed": 44},
    "2p an explicit first deck": {
        "seats": [HUMAN, HUMAN],
        "rules": {"target": 2, "ace_sweeps": "sweep"},
        "decks": [DECK],
    },
}


async def played(client: Client, body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The match created from ``body`` (its open seats joined), played to its end; its id and
    the create answer."""
    created = await create(client, body)
    match_id, seat = created["match"]["id"], tokens(created)
    for s in created["match"]["seats"]:
        if s["kind"] == "open":
            seat[s["seat"]] = (await join(client, match_id, s["seat"])).json()["token"]
    await finish(client, match_id, seat)
    return match_id, created


def rebuilt(record: dict[str, Any]) -> Any:
    """The match replayed by the engine from nothing but its record."""
    rules = Rules(**record["match"]["rules"])
    dealt = [e for e in record["events"] if e["type"] in ("redeal", "deal_started")]
    assert len(dealt) == len(record["decks"])
    # A voided deck is dealt again reshuffled: the deal is played from the last one.
    decks = [
        parse_cards(d)
        for d, e in zip(record["decks"], dealt, strict=True)
        if e["type"] == "deal_started"
    ]
    first = record["first_dealer"]
    if first is None:
        first = next(e["dealer"] for e in dealt if e["type"] == "deal_started")
    seats = [Seat("human")] * len(record["match"]["seats"])
    state, _ = new_match(rules, seats, 0, decks, first)
    for event in record["events"]:
        if event["type"] == "card_played":
            capture = [parse_card(c) for c in event["capture"]]
            move = Move.of(parse_card(event["card"]), capture)
            # A move the server made for a seat whose time ran out counts the timeout too.
            auto = event.get("auto", False)
            state, _ = time_out(state, move) if auto else play(state, event["seat"], move)
    return state


def documented_shuffles(record: dict[str, Any], players: int) -> tuple[int, list[list[str]]]:
    """The first dealer and the decks that docs/api.md's generator draws from the record's seed."""
    rng = reference.SplitMix64(record["seed"])
    first = record["first_dealer"]
    dealer = rng.below(players) if first is None else first
    decks: list[list[str]] = []
    previous = None
    for event in record["events"]:
        if event["type"] not in ("redeal", "deal_started"):
            continue
        deck = decks[-1][:] if previous == "redeal" else list(reference.ALL_CARDS)
        rng.shuffle(deck)
        decks.append(deck)
        previous = event["type"]
    return dealer, decks


@pytest.mark.parametrize("name", list(SETUPS))
async def test_each_finished_match_replays_from_its_record(stored: InProcess, name: str) -> None:
    client = stored.client
    body = SETUPS[name]
    match_id, created = await played(client, body)
    answer = await client.get(f"/v1/matches/{match_id}/record")
    assert answer.status_code == 200, answer.text
    record = answer.json()
    assert set(record) == {"match", "seed", "decks", "first_dealer", "events"}
    final = await view(client, match_id)
    assert record["match"] == final
    assert record["first_dealer"] == body.get("first_dealer")
    state = rebuilt(record)
    assert state.status == "finished"
    assert list(state.scores) == final["scores"]
    assert state.winner == final["winner"]
    assert len(state.deal_scores) == len(final["deal_scores"])
    # Every seat's cards, in every packet; the log's own seqs.
    for event in record["events"]:
        if event["type"] in ("deal_started", "cards_dealt"):
            assert event["hand"] is None
            assert len(event["hands"]) == len(final["seats"])
    assert [e["seq"] for e in record["events"]] == list(range(1, final["last_seq"] + 1))
    seeded = "seed" in body or "decks" in body
    assert final["seeded"] == created["match"]["seeded"] == seeded
    if body.get("decks"):
        assert record["decks"][0] == body["decks"][0]
    if body.get("seed") == 44:
        assert [e["type"] for e in record["events"][:2]] == ["redeal", "deal_started"]


@pytest.mark.parametrize(
    "name", [n for n, b in SETUPS.items() if "seed" not in b and "decks" not in b]
)
async def test_the_commitment_is_kept_and_the_seed_replays_the_shuffles(
    stored: InProcess, name: str
) -> None:
    client = stored.client
    match_id, created = await played(client, SETUPS[name])
    committed = created["match"]["fairness"]
    assert committed["seed"] is None
    record = (await client.get(f"/v1/matches/{match_id}/record")).json()
    seed = record["seed"]
    assert isinstance(seed, int)
    assert 0 <= seed < 2**63
    assert record["match"]["fairness"] == {"commitment": committed["commitment"], "seed": seed}
    assert hashlib.sha256(str(seed).encode("ascii")).hexdigest() == committed["commitment"]
    dealer, decks = documented_shuffles(record, len(record["match"]["seats"]))
    assert record["decks"] == decks
    first = next(e for e in record["events"] if e["type"] == "deal_started")
    assert first["dealer"] == dealer


async def test_a_seeded_match_shows_no_fairness_and_its_record_no_seed(stored: InProcess) -> None:
    client = stored.client
    match_id, created = await played(client, SETUPS["2p seeded with a redeal"])
    assert (created["match"]["seeded"], created["match"]["fairness"]) == (True, None)
    record = (await client.get(f"/v1/matches/{match_id}/record")).json()
    assert (record["seed"], record["match"]["fairness"]) == (None, None)


async def test_no_record_before_the_end(stored: InProcess) -> None:
    client = stored.client
    waiting = await create(client, {"seats": [HUMAN, {"kind": "open"}]})
    active = await create(client, {"seats": [HUMAN, HUMAN]})
    for created in (waiting, active):
        answer = await client.get(f"/v1/matches/{created['match']['id']}/record")
        assert answer.status_code == 409
        assert problem_type(answer) == "match-not-finished"
        fairness = created["match"]["fairness"]
        assert fairness["seed"] is None
        assert len(fairness["commitment"]) == 64
    unknown = await client.get("/v1/matches/" + "A" * 22 + "/record")
    assert (unknown.status_code, problem_type(unknown)) == (404, "not-found")
    forged = await client.get(
        f"/v1/matches/{active['match']['id']}/record", headers=bearer("forged")
    )
    assert (forged.status_code, problem_type(forged)) == (401, "invalid-token")


async def test_outside_the_record_no_event_shows_every_hand(stored: InProcess) -> None:
    client = stored.client
    match_id, created = await played(client, SETUPS["2p secret"])
    seat = tokens(created)
    for headers in ({}, bearer(seat[0])):
        events = (await client.get(f"/v1/matches/{match_id}/events", headers=headers)).json()
        dealt = [e for e in events["events"] if e["type"] in ("deal_started", "cards_dealt")]
        assert dealt
        assert all(e["hands"] is None for e in dealt)
        assert all("deck" not in e for e in events["events"])
