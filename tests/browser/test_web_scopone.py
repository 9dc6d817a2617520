"""Scopone scientifico in the web client: chosen on the start page for a two-against-two
match, played by clicking at a phone's and a laptop's size, with the ten-card hand on
screen whole (no sideways scrolling, every card's rank index showing), the other hands as
backs with counts, the header naming the game and no stock shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.browser.test_web_table import SIZES, ranks_clear
from tests.browser.web_client import WIDE_JS, WebClient

pytestmark = pytest.mark.browser

# Own plays per size: enough for the AIs to answer and the table to fill a little.
MOVES = 4


def start_scopone(client: WebClient) -> dict[str, Any]:
    """Creates the match on the start page: you and an easy AI partner against two easy AIs."""
    page = client.page
    page.goto("/")
    page.check("input[name=mode][value=team]")
    sixteen = page.locator("input[name=target][value='16']")
    assert not sixteen.is_visible()  # Scopone's own target, not Scopa's
    page.check("input[name=game][value=scopone]")
    sixteen.check()
    page.select_option("select[name=level]", "easy")
    page.select_option("select[name=partner_level]", "easy")
    page.click("#new-match button[type=submit]")
    page.wait_for_selector("#match-screen:not([hidden])")
    client.set_pace("fast")
    return client.view(0)


def play_one(client: WebClient) -> str:
    """Plays the hand's first card as a person would, tapping the part of it the fan leaves
    showing (its index), then its first play. The card played."""
    page = client.page
    card = page.locator(".hand.own .card.playable").first
    code = str(card.get_attribute("data-card"))
    corner = {"x": 6, "y": 12}
    card.click(position=corner)
    choices = page.locator(".choices-bar .choice:not(.cancel)")
    assert choices.count() >= 1
    again = page.locator(f".hand.own .card[data-card='{code}']")
    if choices.count() == 1:
        again.click(position=corner)
    else:
        choices.first.click()
    client.wait_gone(code)
    return code


def fits(client: WebClient, width: int) -> None:
    """No sideways scrolling: nothing reaches past the screen's width."""
    page = client.page
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.evaluate(
        WIDE_JS, width
    )


@pytest.mark.parametrize("size", list(SIZES))
def test_a_scopone_match_from_the_start_page(
    open_page: Callable[..., WebClient], size: str
) -> None:
    client = open_page(viewport=SIZES[size], phone=size == "phone")
    page = client.page
    width = SIZES[size]["width"]
    view = start_scopone(client)
    assert view["rules"]["deal"] == "scopone"
    assert view["rules"]["target"] == 16
    assert [s["kind"] for s in view["seats"]] == ["human", "ai", "ai", "ai"]
    assert {s["level"] for s in view["seats"][1:]} == {"easy"}

    assert client.state() == "turn"
    # Your first turn comes before you have played: all ten cards (the AIs may have played).
    assert len(client.hand()) == view["seats"][0]["hand_count"] == 10
    assert "Scopone" in page.inner_text("#tally .deal-line")
    assert page.locator("#board .deck").count() == 0
    backs = page.locator(".seat:not(.place-bottom) .hand.backs")
    assert backs.count() == 3
    for i in range(3):
        assert backs.nth(i).locator(".count").inner_text() in {"9", "10"}
    fits(client, width)
    assert ranks_clear(client) >= 10
    client.shoot(f"scopone-{size}", full_page=size == "phone")

    for played in range(1, MOVES + 1):
        assert client.state() == "turn"
        card = play_one(client)
        assert card not in client.hand()
        assert len(client.hand()) == 10 - played
        fits(client, width)
    assert client.state() == "turn"
    assert ranks_clear(client) >= 10 - MOVES
    plays = [e for e in client.events(0) if e["type"] == "card_played"]
    assert len([e for e in plays if e["seat"] == 0]) == MOVES
    assert not [e for e in client.events(0) if e["type"] == "cards_dealt"]
