"""An Idempotency-Key belongs to its caller: the same key from
anyone else is a fresh request, never the first caller's answer and the secrets it holds;
and the routes of challenges and of a player's tokens make one thing per key."""

from __future__ import annotations

from typing import Any

from tests.api.support import Client, bearer, problem_type
from tests.support.databases import sqlite_only
from tests.support.in_process import InProcess

database_url = sqlite_only()


KEY = "0f3c2a9e-7d4b-4c1e-9a55-2b6f1d8e4c70"
TWO_SEATS = {"seats": [{"kind": "human"}, {"kind": "human"}]}
WAITING = {"seats": [{"kind": "human"}, {"kind": "open"}]}


def keyed(key: str = KEY, token: str | None = None) -> dict[str, str]:
    return {"Idempotency-Key": key, **(bearer(token) if token else {})}


async def player(client: Client, handle: str) -> str:
    answer = await client.post("/v1/players", json={"handle": handle})
    assert answer.status_code == 201, answer.text
    token: str = answer.json()["token"]["token"]
    return token


def secrets(answer: Any) -> set[str]:
    """Every token an answer of create, join or register holds."""
    if "tokens" in answer:
        return {t["token"] for t in answer["tokens"]}
    token = answer["token"]
    return {token["token"] if isinstance(token, dict) else token}


async def test_another_players_create_key_makes_its_own_match(stored: InProcess) -> None:
    """Player B sending A's key and body got A's answer: A's seat token, acting as A."""
    home, away = stored.client_at("10.7.0.1"), stored.client_at("10.7.0.2")
    async with home, away:
        ada, bea = await player(home, "ada"), await player(away, "bea")
        first = await home.post("/v1/matches", json=TWO_SEATS, headers=keyed(token=ada))
        assert first.status_code == 201, first.text
        again = await home.post("/v1/matches", json=TWO_SEATS, headers=keyed(token=ada))
        assert again.json() == first.json()
        other = await away.post("/v1/matches", json=TWO_SEATS, headers=keyed(token=bea))
        assert other.status_code == 201, other.text
        assert other.json()["match"]["id"] != first.json()["match"]["id"]
        assert not secrets(other.json()) & secrets(first.json())
        assert other.json()["match"]["seats"][0]["player"] == "bea"
        # Nor does the key reach from the player to an anonymous caller at its address.
        anonymous = await home.post("/v1/matches", json=TWO_SEATS, headers=keyed())
        assert anonymous.json()["match"]["id"] != first.json()["match"]["id"]
        assert not secrets(anonymous.json()) & secrets(first.json())
    assert await stored.match_count() == 3


async def test_an_anonymous_create_key_is_its_address(stored: InProcess) -> None:
    home, away = stored.client_at("10.7.1.1"), stored.client_at("10.7.1.2")
    async with home, away:
        first = await home.post("/v1/matches", json=TWO_SEATS, headers=keyed())
        again = await home.post("/v1/matches", json=TWO_SEATS, headers=keyed())
        assert again.json() == first.json()
        other = await away.post("/v1/matches", json=TWO_SEATS, headers=keyed())
        assert other.status_code == 201, other.text
        assert not secrets(other.json()) & secrets(first.json())
        # A seat token is a caller of its own, not the address it calls from.
        seat = first.json()["tokens"][0]["token"]
        carried = await home.post("/v1/matches", json=TWO_SEATS, headers=keyed(token=seat))
        assert not secrets(carried.json()) & secrets(first.json())
    assert await stored.match_count() == 3


async def test_a_join_key_replayed_without_the_token_is_a_fresh_join(stored: InProcess) -> None:
    """The replay without a token answered the player's seat token."""
    home, away = stored.client_at("10.7.2.1"), stored.client_at("10.7.2.2")
    async with home, away:
        ada, bea = await player(home, "ada"), await player(away, "bea")
        created = await home.post("/v1/matches", json=WAITING, headers=bearer(ada))
        join = f"/v1/matches/{created.json()['match']['id']}/seats/1/join"
        joined = await away.post(join, headers=keyed(token=bea))
        assert joined.status_code == 200, joined.text
        assert (await away.post(join, headers=keyed(token=bea))).json() == joined.json()
        for client in (away, home):
            replayed = await client.post(join, headers=keyed())
            assert (replayed.status_code, problem_type(replayed)) == (409, "seat-not-open")
        by_another = await home.post(join, headers=keyed(token=ada))
        assert (by_another.status_code, problem_type(by_another)) == (409, "seat-not-open")


async def test_an_anonymous_join_key_is_its_address(stored: InProcess) -> None:
    home, away = stored.client_at("10.7.3.1"), stored.client_at("10.7.3.2")
    async with home, away:
        created = await home.post("/v1/matches", json=WAITING)
        join = f"/v1/matches/{created.json()['match']['id']}/seats/1/join"
        joined = await home.post(join, headers=keyed())
        assert joined.status_code == 200, joined.text
        assert (await home.post(join, headers=keyed())).json() == joined.json()
        elsewhere = await away.post(join, headers=keyed())
        assert (elsewhere.status_code, problem_type(elsewhere)) == (409, "seat-not-open")


async def test_a_registration_key_from_another_address_is_a_fresh_registration(
    stored: InProcess,
) -> None:
    """From another address the replay answered the player token."""
    home, away = stored.client_at("10.7.4.1"), stored.client_at("10.7.4.2")
    body = {"handle": "ada"}
    async with home, away:
        first = await home.post("/v1/players", json=body, headers=keyed())
        assert first.status_code == 201, first.text
        assert (await home.post("/v1/players", json=body, headers=keyed())).json() == first.json()
        elsewhere = await away.post("/v1/players", json=body, headers=keyed())
        assert (elsewhere.status_code, problem_type(elsewhere)) == (409, "handle-taken")
        assert "scp_" not in elsewhere.text


async def test_a_retried_challenge_is_one_challenge(stored: InProcess) -> None:
    home, away = stored.client_at("10.7.5.1"), stored.client_at("10.7.5.2")
    async with home, away:
        ada, bea = await player(home, "ada"), await player(away, "bea")
        body = {"opponent": "bea"}
        first = await home.post("/v1/challenges", json=body, headers=keyed("c-1", ada))
        assert first.status_code == 201, first.text
        again = await home.post("/v1/challenges", json=body, headers=keyed("c-1", ada))
        assert (again.status_code, again.json()) == (201, first.json())
        assert again.headers["location"] == first.headers["location"]
        outgoing = (await home.get("/v1/me/challenges", headers=bearer(ada))).json()["outgoing"]
        assert [c["id"] for c in outgoing] == [first.json()["id"]]
        reused = await home.post("/v1/challenges", json={}, headers=keyed("c-1", ada))
        assert (reused.status_code, problem_type(reused)) == (422, "idempotency-key-reused")
        # The key is the challenger's: bea's own challenge under it is bea's.
        hers = await away.post("/v1/challenges", json={}, headers=keyed("c-1", bea))
        assert hers.status_code == 201, hers.text
        assert hers.json()["challenger"] == "bea"


async def test_a_retried_challenge_to_an_ai_level_is_one_match(stored: InProcess) -> None:
    client = stored.client
    ada = await player(client, "ada")
    body = {"level": "easy"}
    first = await client.post("/v1/challenges", json=body, headers=keyed("ai-1", ada))
    assert first.status_code == 201, first.text
    assert first.json()["status"] == "accepted"
    again = await client.post("/v1/challenges", json=body, headers=keyed("ai-1", ada))
    assert again.json() == first.json()
    assert await stored.match_count() == 1


async def test_a_retried_accept_gets_its_first_answer(stored: InProcess) -> None:
    """A retry was a 409 challenge-not-pending: the first answer was lost to the client."""
    home, away = stored.client_at("10.7.6.1"), stored.client_at("10.7.6.2")
    async with home, away:
        ada, bea = await player(home, "ada"), await player(away, "bea")
        cyd = await player(home, "cyd")
        made = await home.post("/v1/challenges", json={}, headers=bearer(ada))
        accept = f"/v1/challenges/{made.json()['id']}/accept"
        first = await away.post(accept, headers=keyed("a-1", bea))
        assert first.status_code == 200, first.text
        again = await away.post(accept, headers=keyed("a-1", bea))
        assert (again.status_code, again.json()) == (200, first.json())
        late = await away.post(accept, headers=keyed("a-1", cyd))
        assert (late.status_code, problem_type(late)) == (409, "challenge-not-pending")
    assert await stored.match_count() == 1


async def test_a_retried_new_token_is_one_token(stored: InProcess) -> None:
    home, away = stored.client_at("10.7.7.1"), stored.client_at("10.7.7.2")
    async with home, away:
        ada, bea = await player(home, "ada"), await player(away, "bea")
        body = {"label": "laptop"}
        first = await home.post("/v1/me/tokens", json=body, headers=keyed(token=ada))
        assert first.status_code == 201, first.text
        again = await home.post("/v1/me/tokens", json=body, headers=keyed(token=ada))
        assert (again.status_code, again.json()) == (201, first.json())
        tokens = (await home.get("/v1/me", headers=bearer(ada))).json()["tokens"]
        assert [t["label"] for t in tokens] == ["first", "laptop"]
        # Any token of the player replays it; another player's same key is its own token.
        other = first.json()["token"]
        assert (await home.post("/v1/me/tokens", json=body, headers=keyed(token=other))).json() == (
            first.json()
        )
        hers = await away.post("/v1/me/tokens", json=body, headers=keyed(token=bea))
        assert hers.status_code == 201, hers.text
        assert hers.json()["token"] != first.json()["token"]
        me = (await away.get("/v1/me", headers=bearer(hers.json()["token"]))).json()
        assert me["player"]["handle"] == "bea"
