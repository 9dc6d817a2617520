"""The start page for players, in English and Italian, on a desktop and a phone: three
choices (the computer, a friend, watching), the rules variants tucked away, the
language and the deck in a small settings area; the developers' page of its own,
linked from the footer of every screen; a friend brought to a match by a link; and the
installable app: its manifest, and a service worker that keeps the client's files, so
the page opens offline."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.web_client import WebClient
from tests.support.server_process import Server

pytestmark = pytest.mark.browser

CATALOGUES = {
    language: json.loads(
        (
            Path(__file__).resolve().parents[2]
            / "scopa"
            / "api"
            / "static"
            / "i18n"
            / f"{language}.json"
        ).read_text()
    )
    for language in ("en", "it")
}
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
LOCALES = {"en": "en-US", "it": "it-IT"}
READY = "#new-match button[type=submit]:not([disabled])"


@pytest.fixture
def open_in(open_page: Callable[..., WebClient]) -> Callable[..., WebClient]:
    """A page whose browser speaks ``language``, at one of SIZES."""

    def make(language: str = "en", size: str = "desktop") -> WebClient:
        return open_page(phone=size == "phone", viewport=SIZES[size], locale=LOCALES[language])

    return make


def text_of(page: Any, selector: str) -> str:
    return " ".join(page.inner_text(selector).split())


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("language", ["en", "it"])
def test_the_start_page_offers_three_choices_in_the_browsers_language(
    open_in: Callable[..., WebClient], language: str, size: str
) -> None:
    words = CATALOGUES[language]
    client = open_in(language, size)
    page = client.page
    page.goto("/")
    page.wait_for_selector(READY)
    assert page.get_attribute("html", "lang") == language
    assert text_of(page, ".tagline") == words["start.tagline"]
    assert text_of(page, "#choice-computer legend [data-i18n]") == words["start.computer.title"]
    assert text_of(page, "#choice-friend legend [data-i18n]") == words["start.friend.title"]
    assert text_of(page, "#choice-watch h2 [data-i18n]") == words["start.watch.title"]
    for choice in ("#choice-computer", "#choice-friend", "#choice-watch"):
        assert page.locator(choice).is_visible()
    # Playing the computer, one against one, is the choice already made.
    assert page.is_checked("input[name=mode][value=ai]")
    assert text_of(page, "#new-match button[type=submit]") == words["start.submit"]
    # The rules variants are there, folded away.
    assert page.locator(".variants").get_attribute("open") is None
    assert not page.locator("select[name=capture]").is_visible()
    assert page.input_value("#language-select") == language
    assert page.input_value("#deck-select") == "italian"
    assert text_of(page, "#deck-select option[value=italian]") == words["start.deck.italian"]
    # Nothing for developers on the players' page but the footer's link.
    start = page.inner_text("#start-screen")
    for developerish in ("/v1", "/schema", "OpenAPI", "Swagger"):
        assert developerish not in start
    assert text_of(page, "#developers-link") == words["footer.developers"]
    width = SIZES[size]["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for box in page.locator(
        "#start-screen .choice-card:visible, #start-screen .panel:visible"
    ).all():
        edge = box.bounding_box()
        assert edge is not None
        assert edge["x"] >= 0
        assert edge["x"] + edge["width"] <= width
    name = f"start-{size}" if language == "en" else f"start-{size}-{language}"
    client.shoot(name, full_page=size == "phone")


def test_the_language_switch_translates_every_screen_and_is_kept(
    open_in: Callable[..., WebClient],
) -> None:
    it = CATALOGUES["it"]
    en = CATALOGUES["en"]
    page = open_in("en").page
    page.goto("/")
    page.wait_for_selector(READY)
    page.select_option("#language-select", "it")
    page.wait_for_function("() => document.documentElement.lang === 'it'")
    assert text_of(page, "#choice-computer legend [data-i18n]") == it["start.computer.title"]
    assert page.get_attribute("input[name=name]", "placeholder") == it["common.optional"]
    page.reload()
    page.wait_for_selector(READY)
    assert page.get_attribute("html", "lang") == "it"
    assert text_of(page, "#choice-friend legend [data-i18n]") == it["start.friend.title"]
    # Lists drawn from the server's answers are drawn in the language chosen too.
    page.click("#watch-button")
    page.wait_for_selector("#lobby-screen:not([hidden])")
    assert text_of(page, "#lobby-title") == it["lobby.title"]
    # The footer's switch names the other language in itself, on every screen.
    assert text_of(page, "#footer-language") == "English"
    page.click("#footer-language")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert text_of(page, "#lobby-title") == en["lobby.title"]
    assert text_of(page, "#footer-language") == "Italiano"
    stored = page.evaluate("async () => (await import('/static/js/storage.js')).pref('language')")
    assert stored == "en"


def test_each_level_says_how_it_plays_in_the_language_chosen(
    open_in: Callable[..., WebClient],
) -> None:
    en = CATALOGUES["en"]
    it = CATALOGUES["it"]
    page = open_in("en").page
    page.goto("/")
    page.wait_for_selector(READY)
    # The level already chosen is described, and the description is the select's.
    assert text_of(page, "#level-about") == en["level.about.medium"]
    assert page.get_attribute("select[name=level]", "aria-describedby") == "level-about"
    assert not page.locator("#partner-level-about").is_visible()
    for level in ("easy", "hard", "expert"):
        page.select_option("select[name=level]", level)
        assert text_of(page, "#level-about") == en[f"level.about.{level}"]
    # Playing with a partner, each of the two levels chosen is described.
    page.check("input[name=mode][value=team]")
    page.select_option("select[name=partner_level]", "easy")
    assert text_of(page, "#partner-level-about") == en["level.about.easy"]
    assert text_of(page, "#level-about") == en["level.about.expert"]
    page.select_option("#language-select", "it")
    page.wait_for_function("() => document.documentElement.lang === 'it'")
    assert text_of(page, "#level-about") == it["level.about.expert"]
    assert text_of(page, "#partner-level-about") == it["level.about.easy"]


def test_the_deck_chosen_on_the_start_page_is_kept_on_this_device(
    open_in: Callable[..., WebClient],
) -> None:
    page = open_in("it", "phone").page
    page.goto("/")
    page.wait_for_selector(READY)
    page.select_option("#deck-select", "french")
    stored = page.evaluate("async () => (await import('/static/js/storage.js')).pref('deck')")
    assert stored == "french"
    page.reload()
    page.wait_for_selector(READY)
    assert page.input_value("#deck-select") == "french"


@pytest.mark.parametrize("language", ["en", "it"])
def test_the_developers_page_is_linked_from_every_screens_footer(
    open_in: Callable[..., WebClient], server: Server, language: str
) -> None:
    words = CATALOGUES[language]
    client = open_in(language)
    page = client.page
    body = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "easy"}]}
    created = httpx.post(f"{server.base_url}/v1/matches", json=body, timeout=10)
    assert created.status_code == 201, created.text
    watched = created.json()["match"]["id"]
    for place, screen in (
        ("#/", "#start-screen"),
        ("#/lobby", "#lobby-screen"),
        ("#/players", "#players-screen"),
        (f"#/match/{watched}", "#match-screen"),
    ):
        page.goto(f"/{place}")
        page.wait_for_selector(f"{screen}:not([hidden])")
        assert page.locator(".site-footer #developers-link").is_visible(), place
    page.click("#developers-link")
    page.wait_for_selector("#developers-screen:not([hidden])")
    assert page.url.endswith("#/developers")
    assert text_of(page, "#developers-title") == words["dev.title"]
    assert text_of(page, "#developers-screen [data-i18n='dev.about']") == words["dev.about"]
    links = page.eval_on_selector_all(
        "#developers-screen a[href^='/']", "els => els.map(e => e.getAttribute('href'))"
    )
    assert {"/schema/swagger", "/schema/openapi.json", "/v1/matches"} <= set(links)
    version = httpx.get(f"{server.base_url}/schema/openapi.json", timeout=10).json()["info"]
    assert text_of(page, "#server-version") == version["version"]
    for screen in ("#start-screen", "#lobby-screen", "#players-screen", "#match-screen"):
        assert page.locator(screen).is_hidden()
    client.shoot(f"developers-desktop{'' if language == 'en' else '-it'}")


def test_a_friend_is_brought_to_the_free_seat_by_the_link(
    open_page: Callable[..., WebClient],
) -> None:
    host = open_page()
    match_id = host.start("online")
    invite = host.page.locator("#invite")
    invite.wait_for()
    link = host.page.input_value("#invite-link")
    assert link == f"{host.base_url}/#/join/{match_id}"
    host.shoot("invite-desktop")

    friend = open_page(phone=True)
    friend.page.goto(link.removeprefix(host.base_url))
    entry = friend.page.locator(f"#lobby-invited li[data-match='{match_id}']")
    entry.wait_for()
    assert friend.page.locator("#lobby-invite").is_visible()
    entry.locator("button[data-seat='1']").click()
    friend.page.wait_for_selector("#match-screen:not([hidden])")
    assert friend.match_id == match_id
    assert [s["kind"] for s in friend.view(match_id=match_id)["seats"]] == ["human", "human"]
    # Once the seat is taken, the host's invitation goes.
    invite.wait_for(state="hidden")
    assert host.page.locator("#match-screen").is_visible()

    # The link again, now that the seats are taken: the match is there to watch.
    late = open_page()
    late.page.goto(link.removeprefix(host.base_url))
    late.page.wait_for_selector(f"#lobby-invited li[data-match='{match_id}'] [data-watch]")
    assert late.page.locator("#lobby-invited button[data-seat]").count() == 0


def test_the_app_installs_and_its_service_worker_keeps_the_client(
    open_in: Callable[..., WebClient], server: Server
) -> None:
    client = open_in("en")
    page = client.page
    page.goto("/")
    page.wait_for_selector(READY)
    manifest = page.evaluate(
        """async () => {
          const href = document.querySelector('link[rel=manifest]').href;
          const answer = await fetch(href);
          return { type: answer.headers.get('content-type'), body: await answer.json() };
        }"""
    )
    assert manifest["type"].startswith("application/manifest+json")
    assert manifest["body"]["start_url"] == "/"
    assert manifest["body"]["display"] == "standalone"
    worker = page.evaluate(
        """async () => {
          const ready = await navigator.serviceWorker.ready;
          return { scope: ready.scope, script: ready.active.scriptURL };
        }"""
    )
    assert worker == {"scope": f"{server.base_url}/", "script": f"{server.base_url}/sw.js"}
    version = httpx.get(f"{server.base_url}/schema/openapi.json", timeout=10).json()["info"]
    kept = page.evaluate(
        """async () => {
          const names = await caches.keys();
          const urls = [];
          for (const name of names) {
            for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
          }
          return { names, paths: urls.map((url) => new URL(url).pathname) };
        }"""
    )
    assert kept["names"] == [f"scopa-shell-{version['version']}"]
    assert {"/", "/static/js/main.js", "/static/i18n/it.json", "/static/scopa.css"} <= set(
        kept["paths"]
    )
    assert all(path == "/" or path.startswith("/static/") for path in kept["paths"])
    # The reloaded page is under the worker, which leaves the API's answers uncached.
    page.reload()
    page.wait_for_selector(READY)
    assert page.evaluate("Boolean(navigator.serviceWorker.controller)")
    page.goto("/#/lobby")
    page.wait_for_selector("#lobby-screen:not([hidden])")
    after = page.evaluate(
        """async () => {
          const urls = [];
          for (const name of await caches.keys()) {
            for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
          }
          return urls.map((url) => new URL(url).pathname);
        }"""
    )
    assert not [path for path in after if path.startswith(("/v1", "/schema"))]

    # Offline, the page still opens: from the worker's copy of the client's files.
    page.context.set_offline(True)
    page.goto("/")
    page.wait_for_selector(READY)
    assert (
        text_of(page, "#choice-computer legend [data-i18n]")
        == CATALOGUES["en"]["start.computer.title"]
    )
    # The API cannot answer offline, and the browser says so; nothing else may fail.
    client.errors[:] = [e for e in client.errors if "ERR_INTERNET_DISCONNECTED" not in e]
    page.context.set_offline(False)
