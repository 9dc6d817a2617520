"""Players with an identity, over SQLite and Postgres: registering, tokens, seats held by
players, their matches, rated matches, the leaderboard, deleting a player."""

from __future__ import annotations

import hashlib
import math
from typing import Any

import httpx

from scopa.domain.glicko import Rating, Result, rate
from scopa.domain.rated import AI_RATINGS
from tests.api.support import Client, bearer, problem_type
from tests.support.in_process import InProcess


async def register(client: Client, handle: str, **fields: Any) -> Any:
    answer = await client.post("/v1/players", json={"handle": handle, **fields})
    assert answer.status_code == 201, answer.text
    return answer.json()


def token_of(registered: Any) -> str:
    token: str = registered["token"]["token"]
    return token


async def create(client: Client, token: str, body: dict[str, Any]) -> httpx.Response:
    return await client.post("/v1/matches", json=body, headers=bearer(token))


AGAINST_EXPERT = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "expert"}]}


async def test_a_player_registers_and_reads_itself_and_its_public_page(
    stored: InProcess,
) -> None:
    client = stored.client
    answer = await client.post(
        "/v1/players", json={"handle": "Ada", "name": "Ada L.", "kind": "bot"}
    )
    assert answer.status_code == 201, answer.text
    assert answer.headers["location"] == "/v1/players/Ada"
    registered = answer.json()
    token = token_of(registered)
    assert token.startswith("scp_")
    assert len(token) == 47
    assert registered["player"] == {
        "handle": "Ada",
        "name": "Ada L.",
        "kind": "bot",
        "joined_at": registered["player"]["joined_at"],
        "ratings": [],
        "counts": {"played": 0, "won": 0, "lost": 0},
    }
    assert registered["token"]["label"] == "first"
    public = await client.get("/v1/players/Ada")
    assert public.json() == registered["player"]
    assert (await client.get("/v1/players/nobody")).status_code == 404
    me = await client.get("/v1/me", headers=bearer(token))
    assert me.status_code == 200
    assert me.json()["player"] == registered["player"]
    [listed] = me.json()["tokens"]
    assert listed["id"] == registered["token"]["id"]
    assert listed["last_used_at"] is not None  # this very request used it
    # The secret and its hash appear in no answer but the one that issued it.
    secret_hash = hashlib.sha256(token.encode()).hexdigest()
    for shown in (public.text, me.text):
        assert token not in shown
        assert secret_hash not in shown


async def test_look_alike_handles_are_one_handle(stored: InProcess) -> None:
    client = stored.client
    await register(client, "a_da")
    await register(client, "lol")
    for taken in ("A_DA", "a-da", "A-Da", "1ol", "iOl", "l0l", "expert", "Admin", "OPEN", "ada"):
        answer = await client.post("/v1/players", json={"handle": taken})
        assert answer.status_code == 409, taken
        assert problem_type(answer) == "handle-taken"
    # A Cyrillic a (U+0430), a space, too short, too long: not a handle at all.
    for refused in ("\u0430da", "a da", "ab", "x" * 25, "ada!"):
        answer = await client.post("/v1/players", json={"handle": refused})
        assert answer.status_code == 400, refused
        assert problem_type(answer) == "validation-error"
    assert (
        await client.post("/v1/players", json={"handle": "ada", "kind": "cat"})
    ).status_code == 400


async def test_digits_read_as_letters_rn_as_m_and_separators_anywhere_are_one_handle(
    stored: InProcess,
) -> None:
    client = stored.client
    await register(client, "samuel")
    look_alikes = ("5amuel", "sarnuel", "s4muel", "samuel_", "_samuel", "samu-el", "SAMU3L")
    kept = ("serv3r", "h4rd", "deleted_player", "root", "Adm1n", "0pen", "3xpert-ai")
    for taken in (*look_alikes, *kept):
        answer = await client.post("/v1/players", json={"handle": taken})
        assert (answer.status_code, problem_type(answer)) == (409, "handle-taken"), taken
    # A letter of its own is another handle; a digit that reads as none stays a digit.
    for other in ("samuels", "samuel2", "sam"):
        await register(client, other)


async def test_a_display_name_the_server_shows_of_its_own_is_refused(stored: InProcess) -> None:
    client = stored.client
    for kept in ("deleted player", "Expert AI", "Computer (expert)", "the easy computer", "Open"):
        answer = await client.post("/v1/players", json={"handle": "namer", "name": kept})
        assert (answer.status_code, problem_type(answer)) == (422, "invalid-setup"), kept
        assert answer.json()["invalid_params"][0]["name"] == "name"
    assert (await register(client, "namer", name="Expert Ada"))["player"]["name"] == "Expert Ada"


async def test_tokens_are_made_listed_and_revoked_at_once(stored: InProcess) -> None:
    client = stored.client
    first = token_of(await register(client, "tok"))
    made = []
    for n in range(9):
        answer = await client.post(
            "/v1/me/tokens", json={"label": f"machine {n}"}, headers=bearer(first)
        )
        assert answer.status_code == 201, answer.text
        made.append(answer.json())
    eleventh = await client.post("/v1/me/tokens", headers=bearer(first))
    assert eleventh.status_code == 409
    assert problem_type(eleventh) == "too-many-tokens"
    listed = (await client.get("/v1/me", headers=bearer(made[0]["token"]))).json()["tokens"]
    assert len(listed) == 10
    assert all("token" not in t for t in listed)
    revoked = await client.delete(f"/v1/me/tokens/{made[0]['id']}", headers=bearer(first))
    assert revoked.status_code == 204
    refused = await client.get("/v1/me", headers=bearer(made[0]["token"]))
    assert refused.status_code == 401
    assert problem_type(refused) == "invalid-token"
    again = await client.delete(f"/v1/me/tokens/{made[0]['id']}", headers=bearer(first))
    assert again.status_code == 404
    # Another player cannot revoke this player's token.
    other = token_of(await register(client, "other"))
    foreign = await client.delete(f"/v1/me/tokens/{made[1]['id']}", headers=bearer(other))
    assert foreign.status_code == 404
    assert (await client.get("/v1/me", headers=bearer(made[1]["token"]))).status_code == 200
    assert (await client.get("/v1/me")).status_code == 401


async def test_a_player_token_holds_its_seat_and_finds_its_matches(stored: InProcess) -> None:
    client = stored.client
    token = token_of(await register(client, "bea", name="Bea"))
    answer = await create(client, token, AGAINST_EXPERT)
    assert answer.status_code == 201, answer.text
    match = answer.json()["match"]
    assert (match["seats"][0]["player"], match["seats"][0]["name"]) == ("bea", "Bea")
    assert match["seats"][1]["player"] is None
    # The player token stands for the seat: its view, with its hand, and its moves.
    seen = await client.get(f"/v1/matches/{match['id']}", headers=bearer(token))
    assert seen.status_code == 200
    assert seen.json()["you"] == 0
    assert len(seen.json()["hand"]) == 3
    mine = (await client.get("/v1/me/matches", headers=bearer(token))).json()
    assert [(m["seat"], m["match"]["id"]) for m in mine["matches"]] == [(0, match["id"])]
    # A player token of a player holding no seat there is no spectator.
    stranger = token_of(await register(client, "stranger"))
    refused = await client.get(f"/v1/matches/{match['id']}", headers=bearer(stranger))
    assert refused.status_code == 401
    named = await create(
        client, token, {"seats": [{"kind": "human", "name": "X"}, {"kind": "open"}]}
    )
    assert named.status_code == 422
    resigned = await client.post(f"/v1/matches/{match['id']}/resign", headers=bearer(token))
    assert resigned.status_code == 200, resigned.text
    finished = await client.get("/v1/me/matches?status=finished", headers=bearer(token))
    assert [m["match"]["id"] for m in finished.json()["matches"]] == [match["id"]]
    active = await client.get("/v1/me/matches?status=active", headers=bearer(token))
    assert active.json()["matches"] == []
    profile = (await client.get("/v1/players/bea")).json()
    assert profile["counts"] == {"played": 1, "won": 0, "lost": 1}
    assert profile["ratings"] == []  # not rated


async def test_my_matches_come_a_page_at_a_time(stored: InProcess) -> None:
    client = stored.client
    token = token_of(await register(client, "pager"))
    made = []
    for _ in range(5):
        answer = await create(client, token, {"seats": [{"kind": "human"}, {"kind": "open"}]})
        made.append(answer.json()["match"]["id"])
    seen: list[str] = []
    cursor = None
    while True:
        query = "/v1/me/matches?limit=2" + (f"&cursor={cursor}" if cursor else "")
        page = (await client.get(query, headers=bearer(token))).json()
        seen += [m["match"]["id"] for m in page["matches"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == made[::-1]


async def test_a_player_joins_an_open_seat(stored: InProcess) -> None:
    client = stored.client
    host = token_of(await register(client, "host"))
    guest = token_of(await register(client, "guest", name="Guest"))
    match = (await create(client, host, {"seats": [{"kind": "human"}, {"kind": "open"}]})).json()
    match_id = match["match"]["id"]
    named = await client.post(
        f"/v1/matches/{match_id}/seats/1/join", json={"name": "Z"}, headers=bearer(guest)
    )
    assert named.status_code == 422
    joined = await client.post(f"/v1/matches/{match_id}/seats/1/join", headers=bearer(guest))
    assert joined.status_code == 200, joined.text
    view = (await client.get(f"/v1/matches/{match_id}", headers=bearer(guest))).json()
    assert view["you"] == 1
    assert view["status"] == "active"
    assert [(s["player"], s["name"]) for s in view["seats"]] == [
        ("host", "host"),
        ("guest", "Guest"),
    ]
    events = (await client.get(f"/v1/matches/{match_id}/events")).json()["events"]
    assert events[0] == {
        "type": "seat_joined",
        "seq": 1,
        "seat": 1,
        "name": "Guest",
        "player": "guest",
    }


async def test_a_rated_match_against_the_ai_rates_its_player_once(stored: InProcess) -> None:
    client = stored.client
    token = token_of(await register(client, "rater"))
    answer = await create(client, token, {**AGAINST_EXPERT, "rated": True})
    assert answer.status_code == 201, answer.text
    match = answer.json()["match"]
    assert match["rated"] is True
    resigned = await client.post(f"/v1/matches/{match['id']}/resign", headers=bearer(token))
    assert resigned.status_code == 200
    [rating] = (await client.get("/v1/players/rater")).json()["ratings"]
    assert rating["format"] == "2p-11"
    assert rating["games"] == 1
    assert rating["rating"] < 1500
    assert rating["deviation"] < 350
    assert rating["provisional"]
    board = (await client.get("/v1/leaderboard?format=2p-11&provisional=true")).json()
    assert [(p["rank"], p["handle"]) for p in board["players"]] == [(1, "rater")]
    established = (await client.get("/v1/leaderboard?format=2p-11")).json()
    assert established["players"] == []
    history = (await client.get("/v1/players/RATER/ratings?format=2p-11")).json()
    assert history["handle"] == "rater"
    assert [(g["match"], g["rating"]) for g in history["games"]] == [
        (match["id"], rating["rating"])
    ]
    other = await client.get("/v1/players/rater/ratings?format=4p-21")
    assert other.json()["games"] == []
    assert (await client.get("/v1/players/nobody/ratings?format=2p-11")).status_code == 404
    assert (await client.get("/v1/leaderboard")).status_code == 400
    assert (await client.get("/v1/leaderboard?format=3p-11")).status_code == 400


async def test_the_leaderboard_pages_by_its_cursor_and_refuses_any_other(
    stored: InProcess,
) -> None:
    client = stored.client
    for handle in ("pager_a", "pager_b", "pager_c"):
        token = token_of(await register(client, handle))
        match = (await create(client, token, {**AGAINST_EXPERT, "rated": True})).json()["match"]
        resigned = await client.post(f"/v1/matches/{match['id']}/resign", headers=bearer(token))
        assert resigned.status_code == 200
    query = "/v1/leaderboard?format=2p-11&provisional=true&limit=2"
    first = (await client.get(query)).json()
    assert [p["rank"] for p in first["players"]] == [1, 2]
    second = (await client.get(f"{query}&cursor={first['next_cursor']}")).json()
    # Ranks count on across pages, and no player is on two.
    assert [p["rank"] for p in second["players"]] == [3]
    assert second["next_cursor"] is None
    handles = [p["handle"] for page in (first, second) for p in page["players"]]
    assert sorted(handles) == ["pager_a", "pager_b", "pager_c"]
    # Fits the pattern, but is no position this server gave out: base64 of "[1,2]", and
    # the same with the line break a pattern's "$" lets through.
    for cursor in ("0", "WzEsMl0", "WzEsMl0%0A"):
        answer = await client.get(f"{query}&cursor={cursor}")
        assert (answer.status_code, problem_type(answer)) == (400, "invalid-cursor"), cursor


async def test_a_player_holds_one_seat_of_a_match(stored: InProcess) -> None:
    client = stored.client
    token = token_of(await register(client, "oneseat"))
    body = {"seats": [{"kind": "human"}, {"kind": "open"}]}
    match = (await create(client, token, body)).json()["match"]
    second = await client.post(f"/v1/matches/{match['id']}/seats/1/join", headers=bearer(token))
    assert (second.status_code, problem_type(second)) == (409, "seat-not-open")
    assert "already holds a seat" in second.json()["detail"]
    after = (await client.get(f"/v1/matches/{match['id']}")).json()
    assert [s["kind"] for s in after["seats"]] == ["human", "open"]


async def test_a_match_created_with_a_player_token_needs_a_human_seat(
    stored: InProcess,
) -> None:
    client = stored.client
    token = token_of(await register(client, "nohuman"))
    ais = {"seats": [{"kind": "ai", "level": "easy"}, {"kind": "ai", "level": "easy"}]}
    answer = await create(client, token, ais)
    assert (answer.status_code, problem_type(answer)) == (422, "invalid-setup"), answer.text
    needs = {"name": "seats", "reason": "a match created with a player token needs a human seat"}
    assert needs in answer.json()["invalid_params"]
    mine = (await client.get("/v1/me/matches", headers=bearer(token))).json()
    assert mine["matches"] == []


async def test_a_rated_match_is_refused_where_it_could_be_rigged(stored: InProcess) -> None:
    client = stored.client
    token = token_of(await register(client, "rigger"))
    cases = [
        ({**AGAINST_EXPERT, "rated": True, "seed": 7}, None),
        ({**AGAINST_EXPERT, "rated": True, "rules": {"target": 16}}, None),
        ({"seats": [{"kind": "human"}, {"kind": "human"}], "rated": True}, "seats[1]"),
        ({**AGAINST_EXPERT, "rated": True}, "anonymous"),
    ]
    for body, why in cases:
        answer = await client.post(
            "/v1/matches", json=body, headers={} if why == "anonymous" else bearer(token)
        )
        assert answer.status_code == 422, body
        names = [p["name"] for p in answer.json()["invalid_params"]]
        assert (why if why not in (None, "anonymous") else "rated") in names


async def test_rated_seats_are_for_players_from_other_addresses(stored: InProcess) -> None:
    home, away = stored.client_at("10.0.0.1"), stored.client_at("10.0.0.2")
    async with home, away:
        ada = token_of(await register(home, "ada"))
        alt = token_of(await register(home, "ada-alt"))
        bea = token_of(await register(away, "bea"))
        body = {"seats": [{"kind": "human"}, {"kind": "open"}], "rated": True}
        match_id = (await create(home, ada, body)).json()["match"]["id"]
        join = f"/v1/matches/{match_id}/seats/1/join"
        anonymous = await home.post(join)
        assert anonymous.status_code == 409
        assert problem_type(anonymous) == "seat-not-open"
        second_account = await home.post(join, headers=bearer(alt))
        assert second_account.status_code == 409
        assert problem_type(second_account) == "same-origin"
        joined = await away.post(join, headers=bearer(bea))
        assert joined.status_code == 200, joined.text
        resigned = await away.post(f"/v1/matches/{match_id}/resign", headers=bearer(bea))
        assert resigned.status_code == 200
        winner = (await home.get("/v1/players/ada")).json()
        loser = (await home.get("/v1/players/bea")).json()
    assert (winner["counts"]["won"], loser["counts"]["lost"]) == (1, 1)
    # Two new players, one game: symmetric moves of the same size.
    up, down = winner["ratings"][0]["rating"] - 1500, 1500 - loser["ratings"][0]["rating"]
    assert up > 100
    assert abs(up - down) < 0.2


async def test_a_deleted_player_leaves_its_matches_and_keeps_its_handle(
    stored: InProcess,
) -> None:
    client = stored.client
    token = token_of(await register(client, "leaver", name="Leaver"))
    match_id = (await create(client, token, AGAINST_EXPERT)).json()["match"]["id"]
    busy = await client.delete("/v1/me", headers=bearer(token))
    assert busy.status_code == 409
    assert problem_type(busy) == "player-busy"
    await client.post(f"/v1/matches/{match_id}/resign", headers=bearer(token))
    gone = await client.delete("/v1/me", headers=bearer(token))
    assert gone.status_code == 204
    assert (await client.get("/v1/me", headers=bearer(token))).status_code == 401
    assert (await client.get("/v1/players/leaver")).status_code == 404
    again = await client.post("/v1/players", json={"handle": "Leaver"})
    assert again.status_code == 409
    seat = (await client.get(f"/v1/matches/{match_id}")).json()["seats"][0]
    assert seat["name"] == "deleted player"


async def test_a_retried_registration_of_a_deleted_player_is_refused(stored: InProcess) -> None:
    """The replay would hand out a player and a token that no longer exist."""
    client = stored.client
    keyed: dict[str, Any] = {"json": {"handle": "brief"}, "headers": {"Idempotency-Key": "k" * 16}}
    first = await client.post("/v1/players", **keyed)
    assert first.status_code == 201
    replayed = await client.post("/v1/players", **keyed)
    assert replayed.json() == first.json()
    deleted = await client.delete("/v1/me", headers=bearer(token_of(first.json())))
    assert deleted.status_code == 204
    retried = await client.post("/v1/players", **keyed)
    assert (retried.status_code, problem_type(retried)) == (409, "handle-taken")
    assert (await client.get("/v1/players/brief")).status_code == 404


async def test_a_rated_four_player_match_rates_each_player_against_the_other_team(
    stored: InProcess,
) -> None:
    home, away = stored.client_at("10.5.0.1"), stored.client_at("10.5.0.2")
    async with home, away:
        ada = token_of(await register(home, "ada4"))
        bea = token_of(await register(away, "bea4"))
        seats = [
            {"kind": "human"},
            {"kind": "open"},
            {"kind": "ai", "level": "medium"},
            {"kind": "ai", "level": "hard"},
        ]
        created = await create(home, ada, {"seats": seats, "rated": True})
        match_id = created.json()["match"]["id"]
        joined = await away.post(f"/v1/matches/{match_id}/seats/1/join", headers=bearer(bea))
        assert joined.status_code == 200, joined.text
        await home.post(f"/v1/matches/{match_id}/resign", headers=bearer(ada))
        pages = [(await home.get(f"/v1/players/{h}")).json() for h in ("ada4", "bea4")]
    [lost], [won] = (p["ratings"] for p in pages)
    assert (lost["format"], won["format"]) == ("4p-11", "4p-11")
    # Each met the other team as one: the mean of its ratings, the RMS of its deviations.
    new = Rating()
    hard, medium = AI_RATINGS["hard"].rating, AI_RATINGS["medium"].rating
    ada_rivals = Rating((1500 + hard) / 2, math.sqrt((350**2 + 50**2) / 2))
    bea_rivals = Rating((1500 + medium) / 2, math.sqrt((350**2 + 50**2) / 2))
    assert lost["rating"] == round(rate(new, [Result(ada_rivals, 0.0)]).rating, 1)
    assert won["rating"] == round(rate(new, [Result(bea_rivals, 1.0)]).rating, 1)
