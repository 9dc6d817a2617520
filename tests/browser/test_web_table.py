"""The match screen as a card table: both decks drawn by the client, in both languages,
at a laptop's and a phone's size; no card's rank cut or covered (sweep cards lying
sideways included); the score header, the end-of-deal table, the rating change at the
end of a rated match; the settings (deck, motion) and the motion they turn off."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.test_web_play import create_over_api, deck_dealing
from tests.browser.web_client import WebClient, require

pytestmark = pytest.mark.browser

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LOCALES = {"en": "en-US", "it": "it-IT"}
# Seat 0 plays first and holds KD, whose only play takes the whole table: a sweep.
SWEEP_DEAL = deck_dealing(["KD", "7D", "6S"], ["2S", "3S", "5S"], ["AC", "2C", "3H", "4S"])
NAMES = {
    ("italian", "en"): {"KD": "king of coins", "7D": "seven of coins, the settebello"},
    ("italian", "it"): {"KD": "re di denari", "7D": "sette di denari, il settebello"},
    ("french", "en"): {"KD": "king of diamonds", "7D": "seven of diamonds, the settebello"},
    ("french", "it"): {"KD": "re di quadri", "7D": "sette di quadri, il settebello"},
}
KING_INDEX = {"italian": "10", "french": "K"}
WORDS = {
    "en": {
        "turn": "Your turn: pick a card",
        "deal": "Deal 1",
        "target": "to 11 points",
        "sweep": "Scopa! Take ",
        "you": "You",
        "computer": "Computer (easy)",
        "nobody": "nobody",
    },
    "it": {
        "turn": "Tocca a te: scegli una carta",
        "deal": "Smazzata 1",
        "target": "ai 11 punti",
        "sweep": "Scopa! Prendi ",
        "you": "Tu",
        "computer": "Computer (facile)",
        "nobody": "nessuno",
    },
}
SETTEBELLO_TEXT = {
    ("italian", "en"): "7 coins",
    ("italian", "it"): "7 denari",
    ("french", "en"): "7♦",
    ("french", "it"): "7♦",
}

# Every face-up card's rank index, checked where it is drawn: inside its card, on the
# screen, and the pixels there are the card's own (nothing covers or clips them); a
# sideways sweep card inside the box kept for it.
RANKS_CLEAR_JS = """async () => {
  // Cards still arriving or flying: measured where they come to rest (the seat to move
  // pulses for seconds, and moves no card).
  const moving = () => document.getAnimations()
    .filter((a) => a.playState === "running")
    .filter((a) => a.effect?.target?.closest?.(".card"));
  for (let rounds = 0; moving().length && rounds < 20; rounds += 1) {
    await Promise.all(moving().map((a) => a.finished.catch(() => null)));
  }
  const bad = [];
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5
    && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  const cards = [...document.querySelectorAll('#match-screen .card[data-card]')];
  for (const card of cards) {
    card.scrollIntoView({block: 'center', inline: 'center'});
    const name = card.dataset.card;
    const rank = card.querySelector('.rank');
    const r = rank.getBoundingClientRect();
    const c = card.getBoundingClientRect();
    if (!rank.textContent || r.width < 4 || r.height < 4) {
      bad.push(`${name}: no rank`);
      continue;
    }
    const screen = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
    if (!inside(r, c)) bad.push(`${name}: rank outside its card`);
    if (!inside(r, screen)) bad.push(`${name}: rank off screen`);
    const slot = card.closest('.sweep-slot');
    if (slot && !inside(c, slot.getBoundingClientRect())) bad.push(`${name}: outside its slot`);
    const points = [[r.left + 1, r.top + 1], [r.right - 1, r.top + 1], [r.left + 1, r.bottom - 1],
      [r.right - 1, r.bottom - 1], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]];
    for (const [x, y] of points) {
      const hit = document.elementFromPoint(x, y);
      if (!hit || !card.contains(hit)) bad.push(`${name}: rank hidden at ${x},${y}`);
    }
  }
  window.scrollTo(0, 0);
  return {bad, count: cards.length};
}"""


def ranks_clear(client: WebClient) -> int:
    """Fails naming every card whose rank is cut or covered; the number of cards checked."""
    result: dict[str, Any] = client.page.evaluate(RANKS_CLEAR_JS)
    assert result["bad"] == []
    return int(result["count"])


def cell(client: WebClient, what: str, team: int) -> str:
    return str(client.page.inner_text(f"#tally td[data-what={what}][data-team='{team}']"))


def play_sweep_match(client: WebClient) -> str:
    match_id, tokens = create_over_api(
        client.base_url,
        {
            "seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}],
            "decks": [SWEEP_DEAL],
            "first_dealer": 1,
        },
    )
    client.open_match(match_id, "ai", tokens)
    client.set_pace("fast")
    return match_id


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("deck", ["italian", "french"])
@pytest.mark.parametrize("language", ["en", "it"])
def test_both_decks_in_both_languages_at_both_sizes(
    open_page: Callable[..., WebClient], size: str, deck: str, language: str
) -> None:
    client = open_page(
        viewport=SIZES[size], locale=LOCALES[language], prefs={"deck": deck}, phone=size == "phone"
    )
    page = client.page
    words = WORDS[language]
    play_sweep_match(client)
    assert client.state() == "turn"
    assert page.evaluate("document.documentElement.lang") == language
    assert page.inner_text("#status-line") == words["turn"]
    king = page.locator(".hand.own .card[data-card='KD']")
    # A card's name begins with the index it shows, for speech input.
    assert king.get_attribute("aria-label") == f"{KING_INDEX[deck]}, {NAMES[deck, language]['KD']}"
    assert king.locator(".rank").inner_text() == KING_INDEX[deck]
    assert (
        page.get_attribute(".hand.own .card[data-card='7D']", "aria-label")
        == f"7, {NAMES[deck, language]['7D']}"
    )
    assert page.locator(f".hand.own .card.deck-{deck}").count() == 3
    # The settebello and the primiera's sevens, sixes and aces carry their marks.
    assert page.locator(".card[data-card='7D'] .mark-settebello").count() == 1
    # The primiera's value is drawn by the style sheet, so it is no text of the card's name.
    for card, value in (("7D", "21"), ("6S", "18"), ("AC", "16")):
        mark = page.locator(f".card[data-card='{card}'] .mark-primiera")
        assert mark.evaluate("m => getComputedStyle(m, '::after').content") == f'"{value}"'
    assert page.locator(".card[data-card='KD'] .mark-primiera").count() == 0
    # The cards fill the felt: readable at a glance, the hand and table on the screen.
    widths = page.eval_on_selector_all(
        ".hand.own .card, .table-cards .card",
        "els => els.map(e => e.offsetWidth)",
    )
    assert min(widths) >= 60
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    assert ranks_clear(client) == 7

    king.click()
    choice = page.locator(".choices-bar .choice:not(.cancel)")
    assert choice.count() == 1
    assert choice.inner_text().startswith(words["sweep"])
    choice.click()
    client.wait_gone("KD")
    sideways = page.locator(".pile[data-team='0'] .sweep-slot .card.sideways[data-card='KD']")
    sideways.wait_for()
    assert sideways.locator(".rank").inner_text() == KING_INDEX[deck]
    assert client.state() == "turn"
    assert ranks_clear(client) >= 3

    # The score header against the server's view: match points, target, deal, tally.
    view = client.view(0)
    assert page.inner_text("#tally .deal-number") == words["deal"]
    assert page.inner_text("#tally .target") == words["target"]
    assert page.inner_text("#tally tbody tr:first-child th") == words["you"]
    for team in (0, 1):
        t = view["teams"][team]
        assert cell(client, "score", team) == str(view["scores"][team])
        assert cell(client, "cards", team) == str(t["captured_count"])
        assert cell(client, "diamonds", team) == str(t["diamonds"])
        assert cell(client, "sweeps", team) == str(t["sweeps"])
        settebello = SETTEBELLO_TEXT[deck, language] if t["settebello"] else "\N{EM DASH}"
        assert cell(client, "settebello", team) == settebello
    assert view["teams"][0]["sweeps"] == 1
    assert view["teams"][0]["captured_count"] == 5

    for _ in range(3):
        client.play_one(tap=size == "phone")
        # Measured at rest: the computer has answered, nothing is landing or flying.
        assert client.state() == "turn"
        assert ranks_clear(client) >= 1
    if (size, deck, language) == ("desktop", "italian", "it"):
        client.shoot("sweep-desktop-it")
    if (size, deck, language) == ("phone", "french", "en"):
        client.shoot("table-phone-french", full_page=True)


@pytest.mark.parametrize("language", ["en", "it"])
def test_the_end_of_deal_table(open_page: Callable[..., WebClient], language: str) -> None:
    client = open_page(locale=LOCALES[language])
    page = client.page
    words = WORDS[language]
    play_sweep_match(client)
    while (state := client.state()) == "turn":
        client.play_one()
    assert state == "deal"
    scored = next(e for e in client.events(0) if e["type"] == "deal_scored")
    names = [words["you"], words["computer"]]
    table = page.locator("#deal-box .deal-score")
    assert table.locator("thead th").all_inner_texts()[:2] == names
    shown: dict[str, Callable[[dict[str, Any]], str]] = {
        "cards": lambda t: str(t["cards"]),
        "diamonds": lambda t: str(t["diamonds"]),
        "settebello": lambda t: "\N{CHECK MARK}" if t["settebello"] else "\N{EM DASH}",
        "primiera": lambda t: "\N{EM DASH}" if t["primiera"] is None else str(t["primiera"]),
        "sweeps": lambda t: str(t["sweeps"]),
    }
    for category, value in shown.items():
        cells = table.locator(f"tr[data-category={category}] td").all_inner_texts()
        expected = [
            value(t) + (f" +{t['points'][category]}" if t["points"][category] else "")
            for t in scored["teams"]
        ]
        winners = [names[t["team"]] for t in scored["teams"] if t["points"][category] > 0]
        assert cells == [*expected, ", ".join(winners) or words["nobody"]], category
    totals = table.locator("td.deal-total").all_inner_texts()
    assert totals == [str(t["total"]) for t in scored["teams"]]
    assert table.locator("td.match-total").all_inner_texts() == [str(s) for s in scored["scores"]]
    if language == "en":
        client.shoot("deal-table-desktop")
    page.click("#deal-box-buttons button")
    # The header carries the running match score on.
    for team in (0, 1):
        page.wait_for_function(
            "([team, score]) => document.querySelector("
            "`#tally td[data-what=score][data-team='${team}']`)?.textContent === score",
            arg=[team, str(scored["scores"][team])],
        )


def test_a_rated_match_ends_with_the_rating_change(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "resign", "rematch")
    client = open_page()
    page = client.page
    handle = f"tbl_{secrets.token_hex(3)}"
    answer = httpx.post(f"{client.base_url}/v1/players", json={"handle": handle}, timeout=10)
    assert answer.status_code == 201, answer.text
    player_token = answer.json()["token"]["token"]
    created = httpx.post(
        f"{client.base_url}/v1/matches",
        json={"seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}], "rated": True},
        headers={"Authorization": f"Bearer {player_token}"},
        timeout=10,
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["match"]["id"]
    page.goto("/")
    page.evaluate(
        "async ([handle, token]) => (await import('/static/js/storage.js')).signIn(handle, token)",
        [handle, player_token],
    )
    client.open_match(match_id, "ai", created.json()["tokens"])
    assert client.state() == "turn"
    page.click("[data-action=resign]")
    page.click("[data-action=resign].danger")
    assert client.state() == "end"
    games = httpx.get(
        f"{client.base_url}/v1/players/{handle}/ratings", params={"format": "2p-11"}, timeout=10
    ).json()["games"]
    assert [g["match"] for g in games] == [match_id]
    after = round(games[0]["rating"])
    change = after - 1500
    assert change < 0
    shown = page.locator("#deal-box .rating-change")
    shown.wait_for()
    assert (
        shown.inner_text()
        == f"Your rating: 1500 \N{RIGHTWARDS ARROW} {after} (\N{MINUS SIGN}{-change})"
    )
    assert page.inner_text("#deal-box-title") == "Computer (easy) wins"
    # The rematch is the first thing offered, and the biggest.
    rematch = page.locator("#deal-box [data-action=rematch]")
    assert "prominent" in (rematch.get_attribute("class") or "")
    assert page.evaluate("document.activeElement.dataset.action") == "rematch"
    client.shoot("final-rated-desktop")


def test_an_unrated_end_shows_no_rating(
    open_page: Callable[..., WebClient], features: dict[str, bool]
) -> None:
    require(features, "resign")
    client = open_page()
    play_sweep_match(client)
    assert client.state() == "turn"
    client.page.click("[data-action=resign]")
    client.page.click("[data-action=resign].danger")
    assert client.state() == "end"
    assert client.page.locator("#deal-box .rating-change").is_hidden()


def arriving(client: WebClient) -> int:
    return int(client.page.locator(".card.arrive").count())


def test_the_settings_switch_the_deck_and_the_motion(open_page: Callable[..., WebClient]) -> None:
    client = open_page()
    page = client.page
    play_sweep_match(client)
    assert client.state() == "turn"
    # Full motion, the default: the hand and table just dealt arrive in turn.
    assert arriving(client) == 7
    assert page.evaluate("document.documentElement.classList.contains('reduce-motion')") is False
    assert page.locator(".hand.own .card.deck-italian").count() == 3

    page.click("#settings-button")
    dialog = page.locator("#settings-box[open]")
    assert dialog.locator("input[name=deck][value=italian]").is_checked()
    dialog.locator("input[name=deck][value=french]").check()
    assert page.locator(".hand.own .card.deck-french").count() == 3
    assert page.inner_text(".hand.own .card[data-card='KD'] .rank") == "K"
    dialog.locator("input[name=motion][value=reduced]").check()
    assert page.evaluate("document.documentElement.classList.contains('reduce-motion')") is True
    dialog.locator("[data-close]").click()

    # Kept on this device: a reload deals nothing in motion, with the French cards.
    page.reload()
    assert client.state() == "turn"
    assert page.locator(".hand.own .card.deck-french").count() == 3
    assert arriving(client) == 0
    # Nothing moves, even while the computer's card lands after a play.
    client.play_one()
    assert page.evaluate("document.getAnimations().length") == 0
    assert client.state() == "turn"
    assert page.evaluate("document.getAnimations().length") == 0

    # A change of language redraws the table in the new one.
    page.evaluate("async () => (await import('/static/js/i18n.js')).setLanguage('it')")
    page.wait_for_function(
        "document.querySelector('#status-line').textContent === 'Tocca a te: scegli una carta'"
    )
    assert page.inner_text("#tally .target") == "ai 11 punti"
    names = page.eval_on_selector_all(".hand.own .card", "els => els.map(e => e.ariaLabel)")
    assert len(names) == 2
    assert all(" di " in name for name in names)


def test_the_systems_reduced_motion_turns_the_animations_off(
    open_page: Callable[..., WebClient],
) -> None:
    client = open_page()
    client.page.emulate_media(reduced_motion="reduce")
    play_sweep_match(client)
    assert client.state() == "turn"
    assert client.page.evaluate("document.documentElement.classList.contains('reduce-motion')")
    assert arriving(client) == 0
    assert client.page.evaluate("document.getAnimations().length") == 0
