"""POST /v1/matches/{id}/rematch and claims of reserved seats, on SQLite and Postgres."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from scopa.infra.notify import LocalEventBus
from tests.api.support import (
    Client,
    bearer,
    create,
    event_types,
    finish,
    join,
    problem_type,
    rematch,
    tokens,
    view,
    waited_on,
)
from tests.support.in_process import InProcess

NAMED = {
    "seats": [{"kind": "human", "name": "Ada"}, {"kind": "human", "name": "Bo"}],
    "rules": {"target": 1, "capture": "fifteen"},
}


async def finished(client: Client, body: dict[str, Any] = NAMED) -> tuple[str, dict[int, str]]:
    created = await create(client, body)
    match_id, seat = created["match"]["id"], tokens(created)
    await finish(client, match_id, seat)
    return match_id, seat


async def test_a_rematch_is_claimed_by_both_old_tokens_and_refused_to_a_stranger(
    stored: InProcess,
) -> None:
    client = stored.client
    old_id, old = await finished(client)
    stranger = tokens(await create(client))[0]
    before = await view(client, old_id)
    assert before["rematch"] is None

    made = await rematch(client, old_id, old[0])
    assert made.status_code == 201, made.text
    body = made.json()
    new_id = body["match"]["id"]
    assert made.headers["location"] == f"/v1/matches/{new_id}"
    assert set(body) == {"match", "seat", "token"}
    assert body["seat"] == 0
    assert (body["match"]["you"], body["match"]["hand"]) == (None, None)
    assert body["match"]["status"] == "waiting"
    assert body["match"]["version"] == 0
    assert body["match"]["rules"] == before["rules"]
    assert [(s["kind"], s["name"]) for s in body["match"]["seats"]] == [
        ("human", "Ada"),
        ("reserved", "Bo"),
    ]
    assert (body["match"]["seeded"], body["match"]["fairness"]["seed"]) == (False, None)
    after = await view(client, old_id)
    assert (after["version"], after["rematch"]) == (before["version"] + 1, new_id)
    log = (await client.get(f"/v1/matches/{old_id}/events")).json()["events"]
    assert log[-1] == {"seq": before["last_seq"] + 1, "type": "rematch_offered", "match_id": new_id}

    # Nobody but seat 1's old token takes seat 1.
    assert (await rematch(client, old_id, stranger)).status_code == 401
    for headers in ({}, bearer(stranger), bearer(body["token"]), bearer(old[0])):
        refused = await join(client, new_id, 1, headers=headers)
        assert refused.status_code == 409, refused.text
        assert problem_type(refused) == "seat-not-open"
    assert (await view(client, new_id))["version"] == 0

    claimed = await rematch(client, old_id, old[1])
    assert claimed.status_code == 200, claimed.text
    assert "location" not in claimed.headers
    assert (claimed.json()["match"]["id"], claimed.json()["seat"]) == (new_id, 1)
    assert claimed.json()["match"]["status"] == "active"
    mine = await view(client, new_id, claimed.json()["token"])
    assert (mine["you"], mine["version"], len(mine["hand"])) == (1, 1, 3)
    assert mine["seats"][1]["name"] == "Bo"
    assert (await view(client, new_id, body["token"]))["you"] == 0
    new_log = (await client.get(f"/v1/matches/{new_id}/events")).json()["events"]
    assert event_types(new_log) == ["seat_joined", "deal_started"]

    for token in old.values():
        again = await rematch(client, old_id, token)
        assert again.status_code == 409
        assert problem_type(again) == "seat-not-open"
    assert (await view(client, old_id))["version"] == before["version"] + 1


async def test_a_reserved_seat_is_claimed_through_join_with_the_old_token(
    stored: InProcess,
) -> None:
    client = stored.client
    old_id, old = await finished(client)
    new_id = (await rematch(client, old_id, old[1])).json()["match"]["id"]
    claimed = await join(client, new_id, 0, headers=bearer(old[0]), json={"name": "Ada L."})
    assert claimed.status_code == 200, claimed.text
    assert claimed.json()["seat"] == 0
    mine = await view(client, new_id, claimed.json()["token"])
    assert (mine["you"], mine["status"]) == (0, "active")
    assert [s["name"] for s in mine["seats"]] == ["Ada L.", "Bo"]
    events = (await client.get(f"/v1/matches/{new_id}/events")).json()["events"]
    assert events[0] == {
        "seq": 1,
        "type": "seat_joined",
        "seat": 0,
        "name": "Ada L.",
        "player": None,
    }
    # The old token plays nothing in the new match; its claim is spent.
    assert (await client.get(f"/v1/matches/{new_id}", headers=bearer(old[0]))).status_code == 401
    again = await rematch(client, old_id, old[0])
    assert again.status_code == 409


async def test_against_the_ai_the_rematch_starts_at_once(stored: InProcess) -> None:
    client = stored.client
    body = {"seats": [{"kind": "ai", "level": "easy"}, {"kind": "human"}], "rules": {"target": 1}}
    old_id, old = await finished(client, body)
    last_dealer = (await view(client, old_id))["dealer"]
    made = await rematch(client, old_id, old[1])
    assert made.status_code == 201
    new = made.json()["match"]
    assert new["status"] == "active"
    assert new["dealer"] == (last_dealer + 1) % 2
    assert [(s["kind"], s["level"]) for s in new["seats"]] == [("ai", "easy"), ("human", None)]
    record = (await client.get(f"/v1/matches/{new['id']}/record")).status_code
    assert record == 409


async def test_refusals_change_nothing(stored: InProcess) -> None:
    client = stored.client
    active = await create(client, NAMED)
    active_id = active["match"]["id"]
    answer = await rematch(client, active_id, tokens(active)[0])
    assert answer.status_code == 409
    assert problem_type(answer) == "match-not-active"
    old_id, old = await finished(client)
    version = (await view(client, old_id))["version"]
    refusals = [
        (await rematch(client, "A" * 22, old[0]), 404, "not-found"),
        (await rematch(client, old_id, None), 401, "invalid-token"),
        (await rematch(client, old_id, "forged"), 401, "invalid-token"),
        (await rematch(client, old_id, old[0], json={"seat": 1}), 400, "validation-error"),
        (await rematch(client, old_id, old[0], content=b"[]"), 400, "validation-error"),
        (
            await rematch(
                client, old_id, old[0], content=b"{}", headers={"Content-Type": "text/plain"}
            ),
            415,
            "unsupported-media-type",
        ),
        (
            await rematch(
                client, old_id, old[0], headers={"Idempotency-Key": "caf\u00e9".encode()}
            ),
            400,
            "validation-error",
        ),
    ]
    for answer, status, problem in refusals:
        assert (answer.status_code, problem_type(answer)) == (status, problem), answer.text
    after = await view(client, old_id)
    assert (after["version"], after["rematch"]) == (version, None)
    assert await stored.match_count() == 2


async def test_a_retry_with_the_same_key_gets_the_first_answer(stored: InProcess) -> None:
    client = stored.client
    old_id, old = await finished(client)
    key = {"Idempotency-Key": "rematch-0123456789"}
    first = await rematch(client, old_id, old[0], headers=key)
    again = await rematch(client, old_id, old[0], headers=key, content=b"{}")
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert again.headers["location"] == first.headers["location"]
    # Scoped to the token: the other seat's request with the same key is its own, a claim.
    claim = await rematch(client, old_id, old[1], headers=key)
    assert claim.status_code == 200
    assert (await rematch(client, old_id, old[1], headers=key)).json() == claim.json()
    assert await stored.match_count() == 2


async def test_both_seats_at_once_make_one_rematch(stored: InProcess) -> None:
    client = stored.client
    old_id, old = await finished(client)
    answers = await asyncio.gather(*(rematch(client, old_id, old[s]) for s in (0, 1)))
    assert sorted(a.status_code for a in answers) == [200, 201]
    assert len({a.json()["match"]["id"] for a in answers}) == 1
    assert await stored.match_count() == 2
    new = await view(client, answers[0].json()["match"]["id"])
    assert new["status"] == "active"


async def test_a_long_poll_on_the_finished_match_hears_the_offer(
    stored: InProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = stored.client
    old_id, old = await finished(client)
    last = (await view(client, old_id))["last_seq"]
    followed = waited_on(LocalEventBus, monkeypatch)
    waiting = asyncio.create_task(
        client.get(f"/v1/matches/{old_id}/events", params={"after": last, "wait": 5})
    )
    await asyncio.wait_for(followed.wait(), 5)
    made = (await rematch(client, old_id, old[0])).json()
    heard = (await waiting).json()
    assert heard["events"] == [
        {"seq": last + 1, "type": "rematch_offered", "match_id": made["match"]["id"]}
    ]


@pytest.mark.parametrize("name", [None, "Bea"])
async def test_a_claim_keeps_the_old_name_unless_given(stored: InProcess, name: str | None) -> None:
    client = stored.client
    old_id, old = await finished(client)
    new_id = (await rematch(client, old_id, old[0])).json()["match"]["id"]
    body = {} if name is None else {"name": name}
    claimed = await join(client, new_id, 1, headers=bearer(old[1]), json=body)
    assert claimed.status_code == 200
    assert (await view(client, new_id))["seats"][1]["name"] == (name or "Bo")
