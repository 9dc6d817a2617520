"""Players in the web client: signing up, the profile with its rating chart, the
leaderboard, challenging the computer, and a challenge from another player accepted as
it arrives."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.web_client import WebClient

pytestmark = pytest.mark.browser


def handle(prefix: str) -> str:
    """A handle of its own per test: the server is the session's."""
    return f"{prefix}_{secrets.token_hex(3)}"


def sign_up(client: WebClient, name: str, display: str) -> dict[str, Any]:
    page = client.page
    page.goto("/")
    page.click("#players-button")
    page.wait_for_selector("#players-screen:not([hidden])")
    page.fill("#signup-form [name=handle]", name)
    page.fill("#signup-form [name=display]", display)
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#profile:not([hidden])")
    me: dict[str, Any] = page.evaluate(
        "async () => (await import('/static/js/storage.js')).signedIn()"
    )
    return me


def test_a_player_signs_up_and_sees_its_profile_and_the_leaderboard(
    open_page: Callable[..., WebClient],
) -> None:
    client = open_page()
    mine = handle("web")
    me = sign_up(client, mine, "Web Ada")
    page = client.page
    assert me["handle"] == mine
    assert me["token"].startswith("scp_")
    assert page.inner_text("#profile-name") == f"Web Ada ({mine})"
    assert page.inner_text("#profile-rating") == "No rated match yet"
    assert page.inner_text("#profile-counts") == "0 played, 0 won, 0 lost"
    assert page.locator("#leaderboard-rows").count() == 1
    assert page.locator("#signup-form").is_hidden()
    client.shoot("players-desktop", full_page=True)
    page.click("#signout-button")
    page.wait_for_selector("#signup-form:not([hidden])")
    assert page.evaluate("async () => (await import('/static/js/storage.js')).signedIn()") is None


def test_a_rated_challenge_to_the_computer_charts_the_rating(
    open_page: Callable[..., WebClient],
) -> None:
    client = open_page()
    mine = handle("chart")
    me = sign_up(client, mine, "Chart")
    page = client.page
    page.select_option("#challenge-form [name=level]", "easy")
    page.check("#challenge-form [name=rated]")
    page.click("#challenge-form button[type=submit]")
    page.wait_for_selector("#match-screen:not([hidden])")
    match_id = client.match_id
    seats = client.view(match_id=match_id)["seats"]
    assert [(s["player"], s["level"]) for s in seats] == [(mine, None), (None, "easy")]
    # The player's seat plays with the player token: resign with it.
    auth = {"Authorization": f"Bearer {me['token']}"}
    resigned = httpx.post(f"{client.base_url}/v1/matches/{match_id}/resign", headers=auth)
    assert resigned.status_code == 200
    page.goto("/#/players")
    page.wait_for_selector("#profile-chart svg")
    assert page.inner_text("#profile-rating").startswith("Rating ")
    assert "(provisional)" in page.inner_text("#profile-rating")
    label = page.get_attribute("#profile-chart svg", "aria-label") or ""
    assert label.startswith("Rating over the last rated match, now ")
    assert "Chart" in page.inner_text("#provisional-rows")
    assert "Against the easy computer: lost, 0-0, rated" in page.inner_text("#profile-matches")


def test_a_challenge_from_another_player_is_shown_live_and_accepted(
    open_page: Callable[..., WebClient],
) -> None:
    client = open_page()
    mine = handle("bea")
    sign_up(client, mine, "Bea")
    page = client.page
    page.wait_for_selector("#incoming li.empty")
    rival = handle("ada")
    registered = httpx.post(f"{client.base_url}/v1/players", json={"handle": rival}).json()
    auth = {"Authorization": f"Bearer {registered['token']['token']}"}
    made = httpx.post(f"{client.base_url}/v1/challenges", json={"opponent": mine}, headers=auth)
    assert made.status_code == 201
    challenge_id = made.json()["id"]
    # No reload: the challenge stream brings it.
    page.wait_for_selector(f"#incoming li[data-challenge='{challenge_id}']")
    assert f"{rival} challenges you" in page.inner_text("#incoming")
    client.shoot("players-challenged", full_page=True)
    page.click(f"#incoming li[data-challenge='{challenge_id}'] button.primary")
    page.wait_for_selector("#match-screen:not([hidden])")
    view = client.view(match_id=client.match_id)
    assert [s["player"] for s in view["seats"]] == [rival, mine]
    answer = httpx.get(f"{client.base_url}/v1/challenges/{challenge_id}").json()
    assert (answer["status"], answer["match"]) == ("accepted", client.match_id)
