"""Every screen of the web client scanned by axe-core: no serious or critical violation,
at a desktop and a phone size, in English and Italian, with each deck; and every card in
a hand or on the table has an accessible name.

The sizes, languages and decks are crossed pairwise: each size meets each language and
each deck, and each language each deck, in four runs rather than eight.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.axe import assert_accessible, axe_script, serious_violations
from tests.browser.test_web_play import create_over_api, deck_dealing
from tests.browser.web_client import WebClient, require

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
COMBOS = [
    pytest.param(("desktop", "en", "italian"), id="desktop-en-italian"),
    pytest.param(("desktop", "it", "french"), id="desktop-it-french"),
    pytest.param(("phone", "en", "french"), id="phone-en-french"),
    pytest.param(("phone", "it", "italian"), id="phone-it-italian"),
]
# The preferences as the client keeps them (storage.js), set before its scripts run.
LOCALES = {"en": "en-US", "it": "it-IT"}
NAMED = re.compile(r"\w")


@pytest.fixture(params=COMBOS)
def combo(request: pytest.FixtureRequest) -> tuple[str, str, str]:
    """This run's size, language and deck."""
    chosen: tuple[str, str, str] = request.param
    return chosen


@pytest.fixture
def language(combo: tuple[str, str, str]) -> str:
    return combo[1]


@pytest.fixture
def scan_page(
    combo: tuple[str, str, str], open_page: Callable[..., WebClient]
) -> Callable[[], WebClient]:
    """Pages at the size, in the language and with the deck of this run."""
    size, language, deck = combo
    axe_script()

    def make() -> WebClient:
        return open_page(
            phone=size == "phone",
            viewport=PHONE if size == "phone" else DESKTOP,
            locale=LOCALES[language],
            prefs={"language": language, "deck": deck, "pace": "fast"},
            # A page that forbids inline scripts must still take the injected axe.
            bypass_csp=True,
        )

    return make


def visit(client: WebClient, language: str, address: str, ready: str) -> None:
    """Opens an address and waits for the catalogue of the run's language and ``ready``."""
    page = client.page
    page.goto(address)
    page.wait_for_function(
        "lang => document.documentElement.lang === lang"
        " && document.querySelector('#language-select')?.value === lang",
        arg=language,
    )
    page.wait_for_selector(ready, state="attached")


def shown_screens(page: Any) -> list[str]:
    shown = "els => els.filter(e => !e.hidden).map(e => e.id)"
    return list(page.eval_on_selector_all(".screen", shown))


def assert_cards_named(page: Any) -> None:
    """Every card a player can see in a hand or on the table is an image or a button with a
    name (a face-down card is hidden from assistive technology: its hand says how many)."""
    from playwright.sync_api import expect

    cards = page.locator(".hand .card:not([aria-hidden=true]), .table-cards .card")
    assert cards.count() > 0
    for card in cards.all():
        role = card.evaluate("el => el.getAttribute('role') || el.tagName.toLowerCase()")
        assert role in ("img", "button"), f"{card.get_attribute('data-card')}: role {role}"
        expect(card).to_have_accessible_name(NAMED)


def test_the_start_lobby_players_and_developers_screens(
    scan_page: Callable[[], WebClient], language: str
) -> None:
    client = scan_page()
    page = client.page
    # A match waiting for a player, so that the lobby lists one.
    create_over_api(client.base_url, {"seats": [{"kind": "human"}, {"kind": "open"}]})
    visit(client, language, "/", "#start-screen:not([hidden])")
    assert_accessible(page, "start screen")

    visit(client, language, "/#/lobby", "#lobby-waiting li:not(.empty)")
    assert_accessible(page, "lobby")

    visit(client, language, "/#/players", "#signup-form:not([hidden])")
    assert_accessible(page, "players, signed out")
    page.fill("#signup-form [name=handle]", f"axe_{secrets.token_hex(4)}")
    page.click("#signup-form button[type=submit]")
    page.wait_for_selector("#profile:not([hidden])")
    page.wait_for_selector("#leaderboard-rows tr, #leaderboard-empty:not([hidden])")
    assert_accessible(page, "players, signed in")

    visit(client, language, "/#/developers", "#players-screen[hidden]")
    # The developers' page, where the client has one; else the address shows the start.
    if shown_screens(page) != ["start-screen"]:
        assert_accessible(page, "developers")


def test_the_match_table_with_a_card_picked(
    scan_page: Callable[[], WebClient], language: str
) -> None:
    client = scan_page()
    page = client.page
    # Seat 0 holds KC 7D QC; the 7D can take AC+6S or AC+2C+4H: two capture choices.
    deck = deck_dealing(["KC", "7D", "QC"], ["2S", "3S", "5S"], ["AC", "2C", "4H", "6S"])
    match_id, tokens = create_over_api(
        client.base_url,
        {
            "seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}],
            "decks": [deck],
            "first_dealer": 1,
        },
    )
    visit(client, language, "/", "#start-screen:not([hidden])")
    client.open_match(match_id, "ai", tokens)
    assert client.state() == "turn"
    assert_cards_named(page)
    assert_accessible(page, "match, your turn")
    page.locator(".hand.own .card[data-card='7D']").click()
    assert page.locator(".choices-bar .choice:not(.cancel)").count() == 2
    assert_cards_named(page)
    assert_accessible(page, "match, a card picked and its captures offered")

    # Two players on one device, the first having swept: the second plays to a bare table.
    deck = deck_dealing(["KC", "7D", "QC"], ["2S", "3S", "5S"], ["AC", "2C", "3H", "4S"])
    match_id, tokens = create_over_api(
        client.base_url,
        {"seats": [{"kind": "human"}, {"kind": "human"}], "decks": [deck], "first_dealer": 1},
    )
    answer = httpx.post(
        f"{client.base_url}/v1/matches/{match_id}/moves",
        headers={"Authorization": f"Bearer {tokens[0]['token']}"},
        json={"card": "KC", "capture": ["AC", "2C", "3H", "4S"]},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    client.open_match(match_id, "hotseat", tokens)
    assert client.state() == "cover"
    page.click("#cover-button")
    assert client.state() == "turn"
    assert client.table() == []
    assert_accessible(page, "match, the table swept")


def play_over_api(base_url: str, match_id: str, tokens: dict[int, str], *, leave: int) -> None:
    """Plays the first legal move of whoever is to play until ``leave`` cards remain to be
    played in the deal (hands and the deck)."""

    def view_of(seat: int) -> dict[str, Any]:
        answer = httpx.get(
            f"{base_url}/v1/matches/{match_id}",
            headers={"Authorization": f"Bearer {tokens[seat]}"},
            timeout=10,
        )
        return dict(answer.json())

    view = view_of(0)
    while sum(s["hand_count"] for s in view["seats"]) + view["deck_count"] > leave:
        mine = view_of(view["turn"])
        move = mine["legal_moves"][0]
        answer = httpx.post(
            f"{base_url}/v1/matches/{match_id}/moves",
            headers={"Authorization": f"Bearer {tokens[view['turn']]}"},
            json={"card": move["card"], "capture": move["capture"]},
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        view = view_of(0)


def test_the_cover_the_end_of_a_deal_and_the_end_of_the_match(
    scan_page: Callable[[], WebClient], language: str, features: dict[str, bool]
) -> None:
    require(features, "resign")
    client = scan_page()
    page = client.page
    # Seeded: the same cards on every run, so a finding is seen again on the next.
    match_id, tokens = create_over_api(
        client.base_url, {"seats": [{"kind": "human"}, {"kind": "human"}], "seed": 27}
    )
    by_seat = {t["seat"]: t["token"] for t in tokens}
    play_over_api(client.base_url, match_id, by_seat, leave=1)
    visit(client, language, "/", "#start-screen:not([hidden])")
    client.open_match(match_id, "hotseat", tokens)

    assert client.state() == "cover"
    assert_accessible(page, "two players on one device, the cover")
    page.click("#cover-button")
    assert client.state() == "turn"
    assert_cards_named(page)
    client.play_one()

    assert client.state() == "deal"
    assert_accessible(page, "the end of a deal")
    page.click("#deal-box-buttons button")
    turn = client.view()["turn"]
    answer = httpx.post(
        f"{client.base_url}/v1/matches/{match_id}/resign",
        headers={"Authorization": f"Bearer {by_seat[turn]}"},
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    page.wait_for_selector("#deal-box[open] [data-action=new]")
    assert_accessible(page, "the end of the match")


def test_the_scan_finds_a_control_without_a_name(open_page: Callable[..., WebClient]) -> None:
    page = open_page(bypass_csp=True).page
    page.goto("/")
    page.evaluate("document.body.append(document.createElement('button'))")
    assert "button-name" in {v["id"] for v in serious_violations(page)}
