"""Who sits where: two players passing one device, a 2 v 2 with a computer partner, a
match joined from the lobby on another device, and a spectator."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.test_web_play import create_over_api
from tests.browser.web_client import WebClient

pytestmark = pytest.mark.browser


def cards_in_dom(client: WebClient, cards: list[str]) -> list[str]:
    return [c for c in cards if client.page.locator(f"[data-card='{c}']").count()]


# Notes the path of every answer body the page has read, once the reader has gone on with
# it: a task queued after the body runs only when the reader's own steps are done.
NOTE_BODIES_READ = """(() => {
  const json = Response.prototype.json;
  window.bodiesRead = [];
  Response.prototype.json = function () {
    const path = new URL(this.url).pathname;
    return json.call(this).then((body) => {
      setTimeout(() => window.bodiesRead.push(path));
      return body;
    });
  };
})()"""


def test_the_match_opened_last_owns_the_cover(open_page: Callable[..., WebClient]) -> None:
    """Two changes of address at once (a link followed while the page still starts): each
    opens the match, and the first one's view may come back after the second's. The
    screen on show is the second: its cover hands the device over, and the first one,
    left before its view came, starts nothing behind it."""
    client = open_page(init_script=NOTE_BODIES_READ)
    page = client.page
    human = {"kind": "human"}
    match_id, tokens = create_over_api(client.base_url, {"seats": [human, human]})
    client.remember_seats(match_id, "hotseat", tokens)
    held: list[Any] = []

    def hold_the_first_view(route: Any) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    view = f"**/v1/matches/{match_id}"
    page.route(view, hold_the_first_view)
    with page.expect_request(view):
        page.evaluate("id => { location.hash = `#/match/${id}`; }", match_id)
    # The same address again, as a second link or a reload's own start would route it.
    page.evaluate("dispatchEvent(new HashChangeEvent('hashchange'))")
    assert client.state() == "cover"
    held[0].continue_()
    page.wait_for_function(
        "path => window.bodiesRead.filter((p) => p === path).length === 2",
        arg=f"/v1/matches/{match_id}",
    )
    page.click("#cover-button")
    assert client.state() == "turn"


def test_two_players_on_one_device_pass_it_behind_a_cover(
    open_page: Callable[..., WebClient],
) -> None:
    client = open_page()
    client.start("hotseat")
    page = client.page
    for handover in range(3):
        assert client.state() == "cover"
        view = client.view()
        turn = view["turn"]
        hands = {seat: client.view(seat)["hand"] for seat in (0, 1)}
        # Covered: neither hand is anywhere in the page, not even hidden.
        assert cards_in_dom(client, hands[0] + hands[1]) == []
        assert page.locator(".hand.own").count() == 0
        assert f"Player {turn + 1}" in page.inner_text("#cover-text")
        if handover == 1:
            client.shoot("cover-desktop")
        page.click("#cover-button")
        assert client.state() == "turn"
        # The player to move sits at the bottom, with their own hand.
        assert page.get_attribute(".seat.place-bottom", "data-seat") == str(turn)
        assert client.hand() == hands[turn]
        assert cards_in_dom(client, hands[1 - turn]) == []
        client.play_one()
    assert client.view()["version"] == 3


def test_two_against_two_with_a_computer_partner(open_page: Callable[..., WebClient]) -> None:
    client = open_page()
    client.start("team", level="easy")
    page = client.page
    places = {
        place: page.get_attribute(f".seat.place-{place}", "data-seat")
        for place in ("bottom", "right", "top", "left")
    }
    # Counter-clockwise from you: an opponent, your partner across, the other opponent.
    assert places == {"bottom": "0", "right": "1", "top": "2", "left": "3"}
    assert page.locator(".seat.place-top .chip:text-is('partner')").count() == 1
    assert page.locator(".chip:text-is('partner')").count() == 1
    assert page.locator(".pile").count() == 2
    for _ in range(3):
        assert client.state() == "turn"
        client.play_one()
    assert client.state() == "turn"
    client.shoot("team-desktop")
    view = client.view(0)
    assert [s["kind"] for s in view["seats"]] == ["human", "ai", "ai", "ai"]
    # Every card played reached the log once, in seat order round the table.
    plays = [e for e in client.events(0) if e["type"] == "card_played"]
    logged = client.logged_plays()
    assert logged == [e["seq"] for e in plays if e["seq"] >= logged[0]]
    seats = [e["seat"] for e in plays]
    assert all((b - a) % 4 == 1 for a, b in itertools.pairwise(seats))
    assert client.hand() == view["hand"]
    for seat in view["seats"][1:]:
        count = page.locator(f".seat[data-seat='{seat['seat']}'] .hand.backs .card").count()
        assert count == seat["hand_count"]
    # The score header has a row per side, named in its first cell.
    header = page.locator("#tally tbody th").all_inner_texts()
    assert header == ["Your team", "Opponents"]


def test_a_match_joined_from_the_lobby_and_watched(open_page: Callable[..., WebClient]) -> None:
    host = open_page()
    match_id = host.start("online")
    host.page.wait_for_selector("#status-line:has-text('Waiting for 1 more player')")

    guest = open_page()
    guest.page.goto("/#/lobby")
    entry = guest.page.locator(f"#lobby-waiting li[data-match='{match_id}']")
    entry.wait_for()
    guest.shoot("lobby-desktop")
    entry.locator("button[data-seat='1']").click()
    guest.page.wait_for_selector("#match-screen:not([hidden])")
    assert guest.match_id == match_id

    watcher = open_page()
    watcher.page.goto(f"/#/match/{match_id}")
    watcher.page.wait_for_selector(".seat.place-bottom")

    view = host.view(0)
    assert view["status"] == "active"
    first = view["turn"]
    players = {0: host, 1: guest}
    for move in range(3):
        mover = players[(first + move) % 2]
        assert mover.state() == "turn"
        mover.play_one()
    # The watcher sees the same table, and no hand but the counts.
    final = host.view()
    watcher.page.wait_for_function(
        "n => document.querySelectorAll('#move-log li.play').length === n", arg=3
    )
    assert sorted(watcher.table()) == sorted(final["table"])
    assert watcher.page.locator(".hand.own").count() == 0
    hidden = host.view(0)["hand"] + guest.view(1)["hand"]
    assert cards_in_dom(watcher, hidden) == []
