"""Challenges over SQLite and Postgres: to a player, open, to an AI level; accepted,
declined, withdrawn, expired; the news of them on each player's stream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from tests.api.support import Client, bearer, problem_type
from tests.support.in_process import InProcess, serve
from tests.support.stored import Clock


async def player(client: Client, handle: str) -> str:
    answer = await client.post("/v1/players", json={"handle": handle})
    assert answer.status_code == 201, answer.text
    token: str = answer.json()["token"]["token"]
    return token


async def challenge(client: Client, token: str, **body: Any) -> httpx.Response:
    return await client.post("/v1/challenges", json=body, headers=bearer(token))


def news(text: str) -> list[tuple[int, Any]]:
    """The (id, data) of each challenge event of a stream's text."""
    found = []
    for message in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in message.splitlines() if ": " in line)
        if fields.get("event") == "challenge":
            found.append((int(fields["id"]), json.loads(fields["data"])))
    return found


async def test_a_challenge_accepted_makes_the_match_with_both_seats_held(
    stored: InProcess,
) -> None:
    home, away = stored.client_at("10.9.0.1"), stored.client_at("10.9.0.2")
    async with home, away:
        ada, bea = await player(home, "ada"), await player(away, "bea")
        made = await challenge(home, ada, opponent="BEA", rules={"turn_seconds": 60}, rated=True)
        assert made.status_code == 201, made.text
        offer = made.json()
        assert made.headers["location"] == f"/v1/challenges/{offer['id']}"
        assert (offer["challenger"], offer["opponent"], offer["status"]) == (
            "ada",
            "bea",
            "pending",
        )
        assert offer["rules"]["turn_seconds"] == 60
        mine = (await away.get("/v1/me/challenges", headers=bearer(bea))).json()
        assert [c["id"] for c in mine["incoming"]] == [offer["id"]]
        theirs = (await home.get("/v1/me/challenges", headers=bearer(ada))).json()
        assert [c["id"] for c in theirs["outgoing"]] == [offer["id"]]
        own = await home.post(f"/v1/challenges/{offer['id']}/accept", headers=bearer(ada))
        assert (own.status_code, problem_type(own)) == (409, "not-your-challenge")
        accepted = await away.post(f"/v1/challenges/{offer['id']}/accept", headers=bearer(bea))
        assert accepted.status_code == 200, accepted.text
        match = accepted.json()["match"]
        assert accepted.json()["challenge"]["match"] == match["id"]
        assert [s["player"] for s in match["seats"]] == ["ada", "bea"]
        assert (match["rated"], match["status"], match["rules"]["turn_seconds"]) == (
            True,
            "active",
            60,
        )
        again = await away.post(f"/v1/challenges/{offer['id']}/accept", headers=bearer(bea))
        assert (again.status_code, problem_type(again)) == (409, "challenge-not-pending")
        # Each player plays its seat with its player token.
        view = await away.get(f"/v1/matches/{match['id']}", headers=bearer(bea))
        assert view.json()["you"] == 1
        read = (await home.get(f"/v1/challenges/{offer['id']}")).json()
        assert (read["status"], read["match"]) == ("accepted", match["id"])
        # Both heard all of it on their streams, in order.
        stream = await home.get("/v1/me/challenges/stream", headers=bearer(ada))
        assert [(n, c["status"]) for n, c in news(stream.text)] == [(1, "accepted")]
        stream = await away.get(f"/v1/me/challenges/stream?token={bea}")
        assert [(n, c["status"]) for n, c in news(stream.text)] == [(1, "pending"), (2, "accepted")]
        resumed = await away.get(
            "/v1/me/challenges/stream", headers={**bearer(bea), "Last-Event-ID": "1"}
        )
        assert [n for n, _ in news(resumed.text)] == [2]


async def test_challenges_refused_for_what_no_match_could_be(stored: InProcess) -> None:
    client = stored.client
    ada = await player(client, "ada")
    await player(client, "bea")
    refused: list[tuple[dict[str, Any], str]] = [
        ({"opponent": "ADA"}, "opponent"),
        ({"opponent": "nobody"}, "opponent"),
        ({"opponent": "bea", "level": "easy"}, "level"),
        ({"opponent": "bea", "rated": True, "rules": {"target": 16}}, "rated"),
        (
            {
                "opponent": "bea",
                "rules": {"capture": "fifteen", "ace_sweeps": "sweep"},
            },
            "rules.ace_sweeps",
        ),
    ]
    for body, field in refused:
        answer = await challenge(client, ada, **body)
        assert answer.status_code == 422, body
        assert field in [p["name"] for p in answer.json()["invalid_params"]], answer.text
    assert (await client.post("/v1/challenges", json={"opponent": "bea"})).status_code == 401
    assert (await challenge(client, ada, expires_in=5)).status_code == 400


async def test_an_ai_level_accepts_at_once(stored: InProcess) -> None:
    client = stored.client
    ada = await player(client, "ada")
    made = await challenge(client, ada, level="hard", rated=True)
    assert made.status_code == 201, made.text
    offer = made.json()
    assert (offer["status"], offer["level"]) == ("accepted", "hard")
    view = (await client.get(f"/v1/matches/{offer['match']}", headers=bearer(ada))).json()
    assert [(s["kind"], s["player"], s["level"]) for s in view["seats"]] == [
        ("human", "ada", None),
        ("ai", None, "hard"),
    ]
    assert view["rated"] is True


async def test_declined_withdrawn_and_expired_challenges_are_over(database_url: str) -> None:
    clock = Clock()
    async with serve(database_url, clock=clock) as stored:
        await declined_withdrawn_and_expired(stored, clock)


async def declined_withdrawn_and_expired(stored: InProcess, clock: Clock) -> None:
    client = stored.client
    ada, bea, cy = [await player(client, h) for h in ("ada", "bea", "cyd")]
    first = (await challenge(client, ada, opponent="bea")).json()
    stranger = await client.post(f"/v1/challenges/{first['id']}/decline", headers=bearer(cy))
    assert (stranger.status_code, problem_type(stranger)) == (409, "not-your-challenge")
    declined = await client.post(f"/v1/challenges/{first['id']}/decline", headers=bearer(bea))
    assert declined.json()["status"] == "declined"
    late = await client.post(f"/v1/challenges/{first['id']}/accept", headers=bearer(bea))
    assert (late.status_code, problem_type(late)) == (409, "challenge-not-pending")
    second = (await challenge(client, ada, opponent="bea")).json()
    foreign = await client.delete(f"/v1/challenges/{second['id']}", headers=bearer(bea))
    assert foreign.status_code == 409
    withdrawn = await client.delete(f"/v1/challenges/{second['id']}", headers=bearer(ada))
    assert withdrawn.status_code == 204
    # A DELETE deletes: the withdrawn challenge is gone to every route that names it.
    gone = f"/v1/challenges/{second['id']}"
    assert (await client.get(gone)).status_code == 404
    assert (await client.post(f"{gone}/accept", headers=bearer(bea))).status_code == 404
    assert (await client.delete(gone, headers=bearer(ada))).status_code == 404
    told = news((await client.get("/v1/me/challenges/stream", headers=bearer(bea))).text)
    assert told[-1][1]["status"] == "cancelled"
    third = (await challenge(client, ada, opponent="bea", expires_in=10)).json()
    clock.now += 11
    assert (await client.get(f"/v1/challenges/{third['id']}")).json()["status"] == "expired"
    expired = await client.post(f"/v1/challenges/{third['id']}/accept", headers=bearer(bea))
    assert (expired.status_code, problem_type(expired)) == (409, "challenge-not-pending")
    assert (await client.get("/v1/me/challenges", headers=bearer(bea))).json()["incoming"] == []
    assert (await client.get("/v1/challenges/c_nothing")).status_code == 404


async def test_an_open_challenge_goes_to_one_of_two_accepting_at_once(stored: InProcess) -> None:
    client = stored.client
    ada, bea, cy = [await player(client, h) for h in ("ada", "bea", "cyd")]
    offer = (await challenge(client, ada)).json()
    assert offer["opponent"] is None
    listed = (await client.get("/v1/challenges")).json()["challenges"]
    assert [c["id"] for c in listed] == [offer["id"]]
    # Open to anyone but the player who made it.
    own = await client.post(f"/v1/challenges/{offer['id']}/accept", headers=bearer(ada))
    assert (own.status_code, problem_type(own)) == (409, "not-your-challenge")
    assert own.json()["detail"] == "a player cannot accept its own challenge"
    answers = await asyncio.gather(
        *(client.post(f"/v1/challenges/{offer['id']}/accept", headers=bearer(t)) for t in (bea, cy))
    )
    assert sorted(a.status_code for a in answers) == [200, 409]
    assert (await client.get("/v1/challenges")).json()["challenges"] == []
    winner = next(a for a in answers if a.status_code == 200).json()
    assert winner["match"]["seats"][0]["player"] == "ada"


async def test_the_players_challenges_come_a_page_at_a_time(stored: InProcess) -> None:
    client = stored.client
    bea = await player(client, "bea")
    made = []
    for sender in ("ada", "cid", "dot"):
        token = await player(client, sender)
        for _ in range(8):
            answer = await challenge(client, token, opponent="bea")
            assert answer.status_code == 201, answer.text
            made.append(answer.json())
    made.extend([(await challenge(client, bea, opponent="ada")).json() for _ in range(2)])
    newest_first = sorted(made, key=lambda c: (c["created_at"], c["id"]), reverse=True)

    pages, cursor = [], None
    while True:
        query = {"limit": 10, **({"cursor": cursor} if cursor else {})}
        page = (await client.get("/v1/me/challenges", params=query, headers=bearer(bea))).json()
        pages.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [len(p["incoming"]) + len(p["outgoing"]) for p in pages] == [10, 10, 6]
    listed = [c for p in pages for c in (*p["incoming"], *p["outgoing"])]
    assert sorted(c["id"] for c in listed) == sorted(c["id"] for c in made)
    assert [c["id"] for p in pages for c in p["incoming"]] == [
        c["id"] for c in newest_first if c["opponent"] == "bea"
    ]
    first = (await client.get("/v1/me/challenges", headers=bearer(bea))).json()
    assert len(first["incoming"]) + len(first["outgoing"]) == 20
    for bad in ({"limit": 0}, {"limit": 101}, {"cursor": "bm90IGEgY3Vyc29y"}):
        answer = await client.get("/v1/me/challenges", params=bad, headers=bearer(bea))
        assert answer.status_code == 400, bad
