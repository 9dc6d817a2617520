"""A rematch of a match registered players held, on SQLite and Postgres: every way of
claiming its reserved seat seats the player and deals, and each player's list of matches
names the rematch once, at its seat."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.api.support import Client, bearer, event_types, join, problem_type, rematch, view
from tests.api.test_challenges import player
from tests.support.in_process import InProcess

OPEN_SEAT = {"seats": [{"kind": "human"}, {"kind": "open"}]}


@dataclass(frozen=True)
class Side:
    """One seat of the first match: its player token (None: anonymous) and its seat token."""

    player: str | None
    seat: str

    @property
    def token(self) -> str:
        """What a client of this side sends: its player token when it has one."""
        return self.player or self.seat


@asynccontextmanager
async def apart(stored: InProcess, net: str) -> AsyncIterator[tuple[Client, Client, str, str]]:
    """P's client and Q's, at two addresses of ``net`` (a rated match wants two), and
    their player tokens."""
    home, away = stored.client_at(f"{net}.1"), stored.client_at(f"{net}.2")
    async with home, away:
        yield home, away, await player(home, "pia"), await player(away, "quin")


async def played(
    p_client: Client, q_client: Client, p: str | None, q: str | None, body: dict[str, Any]
) -> tuple[str, Side, Side]:
    """P (player token ``p``, or anonymous) creates ``body``, Q joins its open seat 1, P
    resigns: the finished match's id and both sides."""
    created = await p_client.post("/v1/matches", json=body, headers=bearer(p) if p else {})
    assert created.status_code == 201, created.text
    match_id = created.json()["match"]["id"]
    [p_seat] = created.json()["tokens"]
    joined = await join(q_client, match_id, 1, headers=bearer(q) if q else {})
    assert joined.status_code == 200, joined.text
    p_side, q_side = Side(p, p_seat["token"]), Side(q, joined.json()["token"])
    resigned = await p_client.post(f"/v1/matches/{match_id}/resign", headers=bearer(p_side.token))
    assert resigned.status_code == 200, resigned.text
    return match_id, p_side, q_side


async def offered(client: Client, old_id: str, asker: Side) -> str:
    made = await rematch(client, old_id, asker.token)
    assert made.status_code == 201, made.text
    assert [s["kind"] for s in made.json()["match"]["seats"]] == ["human", "reserved"]
    new_id: str = made.json()["match"]["id"]
    return new_id


async def claimed_and_dealt(
    client: Client, old_id: str, new_id: str, claim: httpx.Response, p: Side, q: Side
) -> None:
    """Q's claim seated Q on seat 1 and dealt; each player lists the rematch once, at its
    seat, above the match before."""
    assert claim.status_code == 200, claim.text
    assert claim.json()["seat"] == 1
    mine = await view(client, new_id, claim.json()["token"])
    assert (mine["you"], mine["status"], mine["deal"], len(mine["hand"])) == (1, "active", 1, 3)
    assert [s["kind"] for s in mine["seats"]] == ["human", "human"]
    handles = [s["player"] for s in mine["seats"]]
    events = (await client.get(f"/v1/matches/{new_id}/events")).json()["events"]
    assert event_types(events) == ["seat_joined", "deal_started"]
    assert (events[0]["seat"], events[0]["player"]) == (1, handles[1])
    for seat, side in enumerate((p, q)):
        if side.player is None:
            assert handles[seat] is None
            continue
        listed = (await client.get("/v1/me/matches", headers=bearer(side.player))).json()
        assert [(m["seat"], m["match"]["id"], m["match"]["status"]) for m in listed["matches"]] == [
            (seat, new_id, "active"),
            (seat, old_id, "finished"),
        ]
        # The player token plays its seat in the rematch.
        held = await client.get(f"/v1/matches/{new_id}", headers=bearer(side.player))
        assert held.json()["you"] == seat


@pytest.mark.parametrize(
    ("p_registered", "q_registered", "route", "token"),
    [
        pytest.param(True, True, "join", "player", id="player-token-join"),
        pytest.param(True, True, "rematch", "player", id="player-token-rematch"),
        pytest.param(True, True, "join", "seat", id="old-seat-token-join"),
        pytest.param(True, True, "rematch", "seat", id="old-seat-token-rematch"),
        pytest.param(False, True, "join", "player", id="anonymous-asks-player-claims"),
        pytest.param(True, False, "join", "seat", id="player-asks-anonymous-claims"),
    ],
)
async def test_each_way_of_claiming_a_reserved_seat_seats_its_player_and_deals(
    stored: InProcess, p_registered: bool, q_registered: bool, route: str, token: str
) -> None:
    client = stored.client
    p = await player(client, "pia") if p_registered else None
    q = await player(client, "quin") if q_registered else None
    old_id, p_side, q_side = await played(client, client, p, q, OPEN_SEAT)
    new_id = await offered(client, old_id, p_side)
    if q is not None:
        # The reserved seat is the player's from the offer on.
        listed = (await client.get("/v1/me/matches?status=waiting", headers=bearer(q))).json()
        assert [(m["seat"], m["match"]["id"]) for m in listed["matches"]] == [(1, new_id)]
        busy = await client.delete("/v1/me", headers=bearer(q))
        assert (busy.status_code, problem_type(busy)) == (409, "player-busy")
    claimer = q if token == "player" else q_side.seat
    assert claimer is not None
    if route == "join":
        claim = await join(client, new_id, 1, headers=bearer(claimer))
    else:
        claim = await rematch(client, old_id, claimer)
    await claimed_and_dealt(client, old_id, new_id, claim, p_side, q_side)


async def test_a_player_claims_its_seat_in_a_rated_rematch_which_rates_both_again(
    stored: InProcess,
) -> None:
    async with apart(stored, "10.7.0") as (home, away, p, q):
        old_id, p_side, q_side = await played(home, away, p, q, {**OPEN_SEAT, "rated": True})
        new_id = await offered(home, old_id, p_side)
        assert (await view(home, new_id))["rated"] is True
        claim = await join(away, new_id, 1, headers=bearer(q))
        await claimed_and_dealt(away, old_id, new_id, claim, p_side, q_side)
        resigned = await away.post(f"/v1/matches/{new_id}/resign", headers=bearer(q))
        assert resigned.status_code == 200, resigned.text
        pages = [(await home.get(f"/v1/players/{h}")).json() for h in ("pia", "quin")]
    # Each seat row took its result and its rating: one win and one loss each, two games.
    for page in pages:
        assert page["counts"] == {"played": 2, "won": 1, "lost": 1}
        assert [r["games"] for r in page["ratings"]] == [2]


async def test_a_player_claims_its_seat_in_the_rematch_of_a_challenges_match(
    stored: InProcess,
) -> None:
    async with apart(stored, "10.8.0") as (home, away, p, q):
        made = await home.post("/v1/challenges", json={"opponent": "quin"}, headers=bearer(p))
        assert made.status_code == 201, made.text
        accepted = await away.post(f"/v1/challenges/{made.json()['id']}/accept", headers=bearer(q))
        assert accepted.status_code == 200, accepted.text
        old_id = accepted.json()["match"]["id"]
        resigned = await home.post(f"/v1/matches/{old_id}/resign", headers=bearer(p))
        assert resigned.status_code == 200, resigned.text
        # Challengers play by their player tokens alone: they never got a seat token.
        p_side, q_side = Side(p, ""), Side(q, "")
        new_id = await offered(home, old_id, p_side)
        claim = await join(away, new_id, 1, headers=bearer(q))
        await claimed_and_dealt(away, old_id, new_id, claim, p_side, q_side)


async def test_a_claimed_seat_is_claimed_once_whatever_the_token(stored: InProcess) -> None:
    client = stored.client
    p, q = await player(client, "pia"), await player(client, "quin")
    old_id, p_side, q_side = await played(client, client, p, q, OPEN_SEAT)
    new_id = await offered(client, old_id, p_side)
    claim = await join(client, new_id, 1, headers=bearer(q))
    assert claim.status_code == 200, claim.text
    version = (await view(client, new_id))["version"]
    for token in (q, q_side.seat):
        again = await join(client, new_id, 1, headers=bearer(token))
        assert (again.status_code, problem_type(again)) == (409, "seat-not-open")
        asked = await rematch(client, old_id, token)
        assert (asked.status_code, problem_type(asked)) == (409, "seat-not-open")
    assert (await view(client, new_id))["version"] == version
