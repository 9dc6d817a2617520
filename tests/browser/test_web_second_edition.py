"""The client's side of the later routes and fields: resign, abort, rematch,
names, the turn clock, revealed computer hands, the record, the review, seeded matches
and the lobby of matches being played.

Each test reads the served OpenAPI document first and skips, naming the route or field,
while the server lacks it; once the server has it, the test runs as it stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.web_client import WebClient, require

pytestmark = pytest.mark.browser
SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def shown(cards: list[str]) -> str:
    """Cards as the client writes them: "7♦ A♠"."""
    return " ".join(card[:-1] + SUITS[card[-1]] for card in cards)


def finished_match(client: WebClient) -> str:
    """A match to 1 point against the easy computer, played out by clicking."""
    answer = httpx.post(
        f"{client.base_url}/v1/matches",
        json={
            "seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}],
            "rules": {"target": 1},
        },
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    match_id = answer.json()["match"]["id"]
    client.open_match(match_id, "ai", answer.json()["tokens"])
    client.set_pace("fast")
    client.play_to_end()
    return str(match_id)


def confirm(client: WebClient, action: str) -> None:
    client.page.click(f"[data-action={action}]")
    client.page.click(f"[data-action={action}].danger")


def test_resign(open_page: Callable[..., WebClient], features: dict[str, bool]) -> None:
    require(features, "resign", "end_reason")
    client = open_page()
    client.start("ai", level="easy")
    assert client.state() == "turn"
    confirm(client, "resign")
    assert client.state() == "end"
    assert "a side resigned" in client.page.inner_text("#deal-box")
    view = client.view(0)
    assert (view["status"], view["end_reason"], view["winner"]) == ("finished", "resigned", 1)
    assert client.page.inner_text("#deal-box-title") == "Computer (easy) wins"


def test_abort_a_match_nobody_joined(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "abort", "end_reason")
    client = open_page()
    client.start("online")
    confirm(client, "abort")
    assert client.state() == "end"
    assert "the match was aborted" in client.page.inner_text("#deal-box")
    assert client.view(0)["end_reason"] == "aborted"


def test_play_again(open_page: Callable[..., WebClient], features: dict[str, bool]) -> None:
    require(features, "rematch")
    client = open_page()
    old = finished_match(client)
    client.page.click("#deal-box [data-action=rematch]")
    client.page.wait_for_url(re.compile(r"#/match/(?!" + re.escape(old) + ")"))
    new = client.match_id
    assert client.state() in ("turn", "deal")
    # The old match as a spectator sees it: the session now holds the new seat token.
    before, after = client.view(match_id=old), client.view(0)
    assert before["rematch"] == new
    assert after["status"] == "active"
    assert after["rules"] == before["rules"]
    assert [s["kind"] for s in after["seats"]] == ["human", "ai"]


def test_names_are_shown_at_the_table_and_in_the_lobby(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "names")
    client = open_page()
    client.start("ai", level="easy", name="Ada")
    assert client.page.inner_text(".seat.place-bottom .seat-name") == "Ada"
    assert client.view()["seats"][0]["name"] == "Ada"

    host = open_page()
    match_id = host.start("online", name="Bea")
    guest = open_page()
    guest.page.goto("/#/lobby")
    entry = guest.page.locator(f"#lobby-waiting li[data-match='{match_id}']")
    assert "Bea" in entry.inner_text()
    guest.page.fill("#lobby-name", "Cy")
    entry.locator("button[data-seat='1']").click()
    guest.page.wait_for_selector(".seat.place-bottom .seat-name:text-is('Cy')")
    host.page.wait_for_selector(".seat.place-top .seat-name:text-is('Cy')")


def test_the_turn_clock_counts_down(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "clock")
    client = open_page()
    client.start("ai", level="easy", turn_seconds="60")
    assert client.state() == "turn"
    deadline = client.view(0)["turn_deadline"]
    assert deadline is not None
    clock = client.page.locator("#clock")
    first = clock.inner_text()
    assert re.fullmatch(r"⏱ [01]:\d\d", first)
    client.page.wait_for_function(
        "before => document.querySelector('#clock').textContent !== before", arg=first
    )
    seconds = [
        int(m) * 60 + int(s) for m, s in re.findall(r"(\d+):(\d+)", first + clock.inner_text())
    ]
    assert seconds[1] < seconds[0] <= 60


def test_reveal_and_hide_the_computers_cards(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "reveal")
    client = open_page()
    client.start("ai", level="easy", reveal_ai_hands=True)
    assert client.state() == "turn"
    ai_hand = client.view(0)["seats"][1]["hand"]
    computer = client.page.locator(".seat[data-seat='1'] .hand")
    faces = computer.locator(".card[data-card]")
    assert sorted(faces.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(ai_hand)
    client.shoot("reveal-desktop")
    client.page.click("[data-action=reveal]")
    assert computer.locator(".card[data-card]").count() == 0
    assert computer.locator(".card.back").count() == len(ai_hand)
    client.page.click("[data-action=reveal]")
    assert faces.count() == len(ai_hand)


def test_the_record_of_a_finished_match(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "record")
    # The French deck, whose cards the record writes as shown() does.
    client = open_page(prefs={"deck": "french"})
    match_id = finished_match(client)
    client.page.click("#deal-box [data-action=record]")
    box = client.page.locator("#record-box[open]")
    record = httpx.get(f"{client.base_url}/v1/matches/{match_id}/record", timeout=10).json()
    plays = [e for e in record["events"] if e["type"] == "card_played"]
    lines = box.locator("ol.record li").all_inner_texts()
    assert len([line for line in lines if line.startswith(("You:", "Computer (easy):"))]) == len(
        plays
    )
    # Every hand dealt is in it: the computer's too.
    first_deal = next(e for e in record["events"] if e["type"] == "deal_started")
    assert f"Computer (easy): {shown(first_deal['hands'][1])}" in lines[0]


def test_the_review_of_a_finished_match(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "review")
    client = open_page()
    match_id = finished_match(client)
    client.page.click("#deal-box [data-action=review]")
    box = client.page.locator("#record-box[open]")
    review = httpx.get(
        f"{client.base_url}/v1/matches/{match_id}/review", params={"seat": 0}, timeout=60
    ).json()
    # The box opens at once and fills when the client's own fetch of the review answers.
    box.locator(".review ol li").first.wait_for(timeout=60_000)
    assert box.locator(".review ol li").count() == len(review["moves"])
    assert f"{review['total_loss']:.2f}" in box.inner_text()


def test_the_lobby_marks_seeded_matches(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "seeded")
    client = open_page()
    ids = {}
    for seeded in (True, False):
        body: dict[str, Any] = {"seats": [{"kind": "human"}, {"kind": "open"}]}
        if seeded:
            body["seed"] = 42
        answer = httpx.post(f"{client.base_url}/v1/matches", json=body, timeout=10)
        assert answer.status_code == 201, answer.text
        ids[seeded] = answer.json()["match"]["id"]
    client.page.goto("/#/lobby")
    for seeded, match_id in ids.items():
        entry = client.page.locator(f"#lobby-waiting li[data-match='{match_id}']")
        entry.wait_for()
        assert entry.locator(".badge.seeded").count() == int(seeded)


def test_watch_a_match_from_the_lobby(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "activeLobby")
    player = open_page()
    match_id = player.start("ai", level="easy")
    watcher = open_page()
    watcher.page.goto("/#/lobby")
    watcher.page.click(f"#lobby-active [data-watch='{match_id}']")
    watcher.page.wait_for_selector(".seat.place-bottom")
    assert watcher.match_id == match_id
    assert watcher.page.locator(".hand.own").count() == 0
    assert player.state() == "turn"
    player.play_one()
    watcher.page.wait_for_selector("#move-log li.play")
