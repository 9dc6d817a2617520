"""Hostile players, on the app as ``scopa serve`` builds it with the players' limits on,
over SQLite and Postgres: guessing tokens, registering in a flood, squatting look-alike
handles, and feeding a rating from a second account by resigning in a loop."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.support import bearer, problem_type
from tests.api.test_limits import Clock, client_of, refused, serving


@pytest.fixture
def clock() -> Clock:
    return Clock()


async def test_guessed_player_tokens_are_refused_then_slowed(
    database_url: str, clock: Clock
) -> None:
    async with (
        serving(database_url, clock, bad_tokens_per_minute=3) as app,
        client_of(app, "10.1.0.1") as guesser,
        client_of(app, "10.1.0.2") as owner,
    ):
        real = (await owner.post("/v1/players", json={"handle": "ada"})).json()["token"]["token"]
        guesses = [real[:-1] + c for c in "ABCDEFG" if real[:-1] + c != real]
        for guess in guesses[:3]:
            answer = await guesser.get("/v1/me", headers=bearer(guess))
            assert answer.status_code == 401
            assert problem_type(answer) == "invalid-token"
        # Past the refusals an address may earn, even the right token waits: a guesser
        # learns nothing from the answers until the window ends.
        wait = refused(await guesser.get("/v1/me", headers=bearer(guesses[3])))
        refused(await guesser.get("/v1/me", headers=bearer(real)))
        # Another address is not slowed by it; seat tokens are not held up either.
        assert (await owner.get("/v1/me", headers=bearer(real))).status_code == 200
        assert (await guesser.get("/v1/matches")).status_code == 200
        clock.now += wait
        assert (await guesser.get("/v1/me", headers=bearer(real))).status_code == 200


async def test_registrations_per_address_are_limited(database_url: str, clock: Clock) -> None:
    async with (
        serving(database_url, clock, registrations_per_minute=3) as app,
        client_of(app, "10.2.0.1") as flood,
        client_of(app, "10.2.0.2") as other,
    ):
        for n in range(3):
            answer = await flood.post("/v1/players", json={"handle": f"bot_{n}"})
            assert answer.status_code == 201
        wait = refused(await flood.post("/v1/players", json={"handle": "bot_3"}))
        assert (await flood.get("/v1/players/bot_3")).status_code == 404  # nothing stored
        assert (await other.post("/v1/players", json={"handle": "bot_3"})).status_code == 201
        clock.now += wait
        assert (await flood.post("/v1/players", json={"handle": "bot_4"})).status_code == 201


async def test_look_alikes_of_a_handle_cannot_be_squatted(database_url: str, clock: Clock) -> None:
    async with serving(database_url, clock) as app, client_of(app) as client:
        assert (await client.post("/v1/players", json={"handle": "Il_Capo"})).status_code == 201
        squats = ["il_capo", "IL-CAPO", "1l_Cap0", "ii_capo", "Il_Cap0", "l1-cap0"]
        for squat in squats:
            answer = await client.post("/v1/players", json={"handle": squat})
            assert (answer.status_code, problem_type(answer)) == (409, "handle-taken"), squat
        # Unicode confusables never get as far as the comparison: handles are ASCII.
        # A Cyrillic a, a Greek omicron, a fullwidth I, a zero-width space.
        for confusable in ("Il_C\u0430po", "Il_Cap\u03bf", "\uff29l_Capo", "Il_Capo\u200b"):
            answer = await client.post("/v1/players", json={"handle": confusable})
            assert answer.status_code == 400, confusable
        # The real player's page still is the one.
        assert (await client.get("/v1/players/il_capo")).json()["handle"] == "Il_Capo"


async def test_resigning_in_a_loop_to_a_second_account_rates_nothing(
    database_url: str, clock: Clock
) -> None:
    async with serving(database_url, clock) as app, client_of(app, "10.3.0.1") as client:
        main = (await client.post("/v1/players", json={"handle": "main"})).json()["token"]["token"]
        alt = (await client.post("/v1/players", json={"handle": "alt"})).json()["token"]["token"]
        body: dict[str, Any] = {"seats": [{"kind": "human"}, {"kind": "open"}], "rated": True}
        for _ in range(5):
            created = await client.post("/v1/matches", json=body, headers=bearer(main))
            match_id = created.json()["match"]["id"]
            joined = await client.post(f"/v1/matches/{match_id}/seats/1/join", headers=bearer(alt))
            assert (joined.status_code, problem_type(joined)) == (409, "same-origin")
            await client.post(f"/v1/matches/{match_id}/abort", headers=bearer(main))
        # Unrated, the pair may play all it likes: no rating moves.
        for _ in range(3):
            created = await client.post(
                "/v1/matches", json={**body, "rated": False}, headers=bearer(main)
            )
            match_id = created.json()["match"]["id"]
            joined = await client.post(f"/v1/matches/{match_id}/seats/1/join", headers=bearer(alt))
            assert joined.status_code == 200
            resigned = await client.post(f"/v1/matches/{match_id}/resign", headers=bearer(alt))
            assert resigned.status_code == 200
        for handle in ("main", "alt"):
            page = (await client.get(f"/v1/players/{handle}")).json()
            assert page["ratings"] == []
            assert page["counts"]["played"] == 3  # the aborted ones are not counted
        board = await client.get(
            "/v1/leaderboard", params={"format": "2p-11", "provisional": "true"}
        )
        assert board.json()["players"] == []


async def test_a_challenge_flood_is_held_per_player(database_url: str, clock: Clock) -> None:
    async with (
        serving(database_url, clock, challenges_per_minute=3) as app,
        client_of(app, "10.4.0.1") as flooder,
        client_of(app, "10.4.0.2") as target,
    ):
        spam = (await flooder.post("/v1/players", json={"handle": "spam"})).json()["token"]
        spam = spam["token"]
        await target.post("/v1/players", json={"handle": "victim"})
        for _ in range(3):
            answer = await flooder.post(
                "/v1/challenges", json={"opponent": "victim"}, headers=bearer(spam)
            )
            assert answer.status_code == 201
        refused(await flooder.post("/v1/challenges", json={}, headers=bearer(spam)))
        # A second token of the same player does not get round it.
        second = (await flooder.post("/v1/me/tokens", headers=bearer(spam))).json()["token"]
        refused(await flooder.post("/v1/challenges", json={}, headers=bearer(second)))
        incoming = (await target.get("/v1/players/victim")).status_code
        assert incoming == 200


async def test_pending_challenges_are_capped_until_one_ends(
    database_url: str, clock: Clock
) -> None:
    async with (
        serving(database_url, clock, challenges_pending=2) as app,
        client_of(app) as client,
    ):
        spam = (await client.post("/v1/players", json={"handle": "spam"})).json()["token"]
        spam = spam["token"]
        made = [
            (await client.post("/v1/challenges", json={}, headers=bearer(spam))).json()["id"]
            for _ in range(2)
        ]
        refused(await client.post("/v1/challenges", json={}, headers=bearer(spam)))
        withdrawn = await client.delete(f"/v1/challenges/{made[0]}", headers=bearer(spam))
        assert withdrawn.status_code == 204
        again = await client.post("/v1/challenges", json={}, headers=bearer(spam))
        assert again.status_code == 201
        itself = await client.post(
            "/v1/challenges", json={"opponent": "SPAM"}, headers=bearer(spam)
        )
        assert (itself.status_code, problem_type(itself)) == (422, "invalid-setup")
