"""Playing against the computer in the web client: a whole match by clicking only, a
capture with a choice made by keyboard alone, a hint, a reload that resumes, and the
phone-sized screen."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.web_client import WIDE_JS, WebClient
from tests.support.server_process import Server, start_server

pytestmark = pytest.mark.browser

RANKS = "A234567JQK"
DECK = [rank + suit for suit in "CDHS" for rank in RANKS]
# Counts the oscillators the page starts: two make one chime.
COUNT_CHIMES = """
window.chimes = 0;
const start = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  window.chimes += 1;
  return start.call(this);
};
"""


def deck_dealing(seat0: list[str], seat1: list[str], table: list[str]) -> list[str]:
    """A deck whose first deal (seat 1 dealing, so seat 0 first) gives these cards."""
    top = [card for pair in zip(seat0, seat1, strict=True) for card in pair] + table
    return top + [card for card in DECK if card not in top]


def create_over_api(base_url: str, body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    answer = httpx.post(f"{base_url}/v1/matches", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["match"]["id"], answer.json()["tokens"]


@pytest.mark.slow
def test_a_whole_match_against_easy_ai_by_clicking_only(
    open_page: Callable[..., WebClient],
) -> None:
    client = open_page(init_script=COUNT_CHIMES)
    client.page.goto("/")
    client.start("ai", level="easy")
    assert client.state() == "turn"
    client.page.locator(".hand.own .card.playable").first.click()
    client.shoot("table-desktop")
    client.page.click(".choices-bar .choice.cancel")
    played = client.play_to_end(shots=True)
    client.shoot("final-desktop")

    view = client.view(0)
    assert view["status"] == "finished"
    winner = view["winner"]
    assert winner is not None
    assert view["scores"][winner] >= view["rules"]["target"]
    assert view["scores"][winner] > view["scores"][1 - winner]
    # Every card the human held was played by a click: 18 per deal of 3-card hands.
    assert played == 18 * len(view["deal_scores"])
    box = client.page.locator("#deal-box")
    final = "Final score {} \N{EN DASH} {}".format(*view["scores"])
    assert box.locator(".final-score").inner_text() == final
    assert ("You win!" if winner == 0 else "Computer (easy) wins") == client.page.inner_text(
        "#deal-box-title"
    )
    tally = client.page.locator("#tally")
    for team in (0, 1):
        assert tally.locator(f"td[data-what=score][data-team='{team}']").inner_text() == str(
            view["scores"][team]
        )
        # The last deal's counters, lit where a threshold was passed.
        cards = tally.locator(f"td[data-what=cards][data-team='{team}']")
        assert cards.inner_text() == str(view["teams"][team]["captured_count"])
        lit = "reached" in (cards.get_attribute("class") or "")
        assert lit == (view["teams"][team]["captured_count"] >= 21)
        primiera = view["deal_scores"][-1]["teams"][team]["primiera"]
        shown = tally.locator(f"td[data-what=primiera][data-team='{team}']").inner_text()
        assert shown == ("\N{EM DASH}" if primiera is None else str(primiera))
    # Someone takes the settebello each deal, at least: the chime rang.
    assert client.page.evaluate("window.chimes") >= 2 * len(view["deal_scores"])


def settebello_first() -> dict[str, object]:
    """A match against the easy AI where seat 0 plays first and its 7D can only take the
    7C: the settebello is taken with the first card."""
    deck = deck_dealing(["7D", "KC", "QC"], ["2S", "3S", "5S"], ["7C", "2C", "4H", "6S"])
    return {
        "seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}],
        "decks": [deck],
        "first_dealer": 1,
    }


def test_the_alerts_chime_unless_muted_and_the_choice_is_kept(
    open_page: Callable[..., WebClient],
) -> None:
    # The French deck writes the settebello 7♦ (the Italian one, "7 coins").
    client = open_page(init_script=COUNT_CHIMES, prefs={"deck": "french"})
    page = client.page
    for sound in (True, False):
        match_id, tokens = create_over_api(client.base_url, settebello_first())
        client.open_match(match_id, "ai", tokens)
        assert client.state() == "turn"
        if not sound:
            page.click("#sound-button")
        assert page.get_attribute("#sound-button", "aria-pressed") == str(sound).lower()
        page.locator(".hand.own .card[data-card='7D']").click()
        page.locator(".hand.own .card[data-card='7D']").click()
        settebello = page.locator("#tally td[data-what=settebello][data-team='0']")
        settebello.and_(page.locator(".reached")).wait_for()
        assert settebello.inner_text() == "7\N{BLACK DIAMOND SUIT}"
        # Each match opens in a fresh page: two oscillators are one chime.
        assert page.evaluate("window.chimes") == (2 if sound else 0)
    page.reload()
    client.state()
    assert page.inner_text("#sound-button") == "\N{EIGHTH NOTE} Muted"


@pytest.mark.parametrize("locale", ["en-US", "it-IT"])
def test_the_tally_fits_a_phone_once_the_settebello_is_taken(
    open_page: Callable[..., WebClient], locale: str
) -> None:
    """The Italian deck names the settebello in words ("7 coins", "7 denari"), the widest
    cell of the tally, beside a side named "Computer (easy)": the whole still fits."""
    client = open_page(phone=True, locale=locale, prefs={"deck": "italian"})
    page = client.page
    match_id, tokens = create_over_api(client.base_url, settebello_first())
    client.open_match(match_id, "ai", tokens)
    assert client.state() == "turn"
    page.locator(".hand.own .card[data-card='7D']").tap()
    page.locator(".hand.own .card[data-card='7D']").tap()
    settebello = page.locator("#tally td[data-what=settebello][data-team='0']")
    settebello.and_(page.locator(".reached")).wait_for()
    assert "7" in settebello.inner_text()
    width = 360  # the phone size open_page gives
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.evaluate(
        WIDE_JS, width
    )


def test_a_capture_with_a_choice_made_by_keyboard(open_page: Callable[..., WebClient]) -> None:
    # The French deck, whose cards the buttons write as A♣ 2♣ 4♥.
    client = open_page(prefs={"deck": "french"})
    # Seat 0 holds KC 7D QC; the 7D can take AC+6S or AC+2C+4H.
    deck = deck_dealing(["KC", "7D", "QC"], ["2S", "3S", "5S"], ["AC", "2C", "4H", "6S"])
    match_id, tokens = create_over_api(
        client.base_url,
        {
            "seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}],
            "decks": [deck],
            "first_dealer": 1,
        },
    )
    client.open_match(match_id, "ai", tokens)
    assert client.state() == "turn"
    page = client.page
    for _ in range(10):
        if page.evaluate("document.activeElement.matches('.hand.own .card')"):
            break
        page.keyboard.press("Tab")
    focused = "document.activeElement.dataset.card"
    assert page.evaluate(focused) == "KC"
    page.keyboard.press("ArrowLeft")
    assert page.evaluate(focused) == "QC"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate(focused) == "7D"
    page.keyboard.press("Enter")
    choices = page.locator(".choices-bar .choice:not(.cancel)")
    labels = sorted(choices.all_inner_texts())
    assert labels == ["1\nTake A♣ 2♣ 4♥", "2\nTake A♣ 6♠"] or labels == [
        "1\nTake A♣ 6♠",
        "2\nTake A♣ 2♣ 4♥",
    ]
    assert sorted(client.table(".lit")) == ["2C", "4H", "6S", "AC"]
    # Pointing at a button shows its cards on the table.
    second = choices.nth(1)
    second_cards = ["AC", "2C", "4H"] if "4♥" in second.inner_text() else ["AC", "6S"]
    second.hover()
    assert sorted(client.table(".preview")) == sorted(second_cards)
    client.shoot("choice-desktop")
    page.mouse.move(0, 0)
    page.locator(".hand.own .card[data-card='7D']").focus()
    page.keyboard.press("Escape")
    assert choices.count() == 0
    assert page.evaluate(focused) == "7D"
    page.keyboard.press("Enter")
    page.keyboard.press("2")
    client.wait_gone("7D")

    played = next(e for e in client.events(0) if e["type"] == "card_played" and e["seat"] == 0)
    assert played["card"] == "7D"
    assert sorted(played["capture"]) == sorted(second_cards)


def test_the_hint_names_a_card_of_the_hand(open_page: Callable[..., WebClient]) -> None:
    client = open_page()
    client.start("ai", level="easy")
    assert client.state() == "turn"
    client.page.click("[data-action=hint]")
    client.page.wait_for_selector(".hand.own .card.hinted")
    hinted = client.page.get_attribute(".hand.own .card.hinted", "data-card")
    assert hinted in client.view(0)["hand"]
    assert client.page.inner_text("#status-line").startswith("Hint: ")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_server(request: pytest.FixtureRequest, server: Server, tmp_path: Path) -> Iterator[Server]:
    """The session's SQLite server, or a server of its own on a new Postgres database."""
    if request.param == "sqlite":
        yield server
        return
    make = request.getfixturevalue("new_postgres_database")
    own = start_server(make(), tmp_path)
    try:
        yield own
    finally:
        own.stop()


def test_a_reload_mid_match_resumes_from_the_browser_storage(
    open_page: Callable[..., WebClient], any_server: Server
) -> None:
    client = open_page(on=any_server)
    match_id = client.start("ai", level="easy")
    for _ in range(2):
        assert client.state() == "turn"
        client.play_one()
    assert client.state() == "turn"
    before = client.view(0)

    client.page.reload()
    assert client.state() == "turn"
    assert client.match_id == match_id
    assert client.hand() == before["hand"]
    assert sorted(client.table()) == sorted(before["table"])

    # From the start screen too: the match is still this device's current one.
    client.page.goto("/")
    client.page.click("#resume-button")
    assert client.state() == "turn"
    assert client.match_id == match_id
    client.play_one()
    assert client.state() == "turn"
    after = client.view(0)
    assert after["version"] > before["version"]
    assert client.hand() == after["hand"]


def test_the_phone_sized_screen(open_page: Callable[..., WebClient]) -> None:
    client = open_page(phone=True)
    page = client.page
    page.goto("/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    client.start("ai", level="easy")
    for move in range(4):
        assert client.state() == "turn"
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, page.evaluate(
            WIDE_JS, 360
        )
        for box in page.locator(".hand.own .card").all():
            edge = box.bounding_box()
            assert edge is not None
            assert edge["x"] >= 0
            assert edge["x"] + edge["width"] <= 360
        if move == 1:
            page.locator(".hand.own .card.playable").first.tap()
            client.shoot("choice-phone", full_page=True)
            page.locator(".choices-bar .choice.cancel").tap()
        if move == 2:
            client.shoot("table-phone", full_page=True)
        client.play_one(tap=True)
