"""The reference web client (api/static/) in Debian's Chromium, driven by Playwright for
Python, against the real server process.

``server``: one ``scopa serve`` on SQLite for the session. ``browser``: Chromium,
headless. ``open_page``: a fresh browser context (its own localStorage) and page on a
server, at a desktop or phone viewport; every page collects console errors and uncaught
exceptions, and the test fails at teardown if there was any; the client's "fast" pace is
instant there (the pacing test uses "normal"). ``screenshots``: the folder pages are shot
into, a temporary one of the worker's unless SCOPA_SCREENSHOTS_DIR names one (docs/screenshots
to refresh the docs' pictures), so a run writes no tracked file. Without Chromium or
Playwright these tests skip, unless ``CI`` is set: then they fail, so CI never passes by
skipping them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.web_client import WebClient, server_features, unavailable
from tests.support.server_process import Server, start_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 360, "height": 740}
# The client shows each event for the time its pace says: waiting out the "fast" pace is
# most of a clicked-through match, and what a test checks does not depend on it. Once the
# page's modules have run, the same module instance is changed in place.
INSTANT_FAST_PACE = """document.addEventListener("DOMContentLoaded", () => {
  if (location.protocol.startsWith("http")) import("/static/js/game.js").then(
    (game) => Object.assign(game.PACES.fast, { play: 0, own: 0, after: 0, deal: 0 }));
});"""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A page in Chromium against a server process is never the inner loop: every
    browser test is slow."""
    here = Path(__file__).parent
    for item in items:
        if item.path.parent == here:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium for one module: Playwright's sync API runs an event loop in this thread
    while it lives, which later async tests of the session could not start beside."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright for Python is not installed: pip install playwright")
    if not CHROMIUM.exists():
        unavailable(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("web")
    running = start_server(f"sqlite+aiosqlite:///{folder / 'scopa.db'}", folder)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("SCOPA_SCREENSHOTS_DIR")
    return Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="session")
def features(server: Server) -> dict[str, bool]:
    """What the served contract offers beyond the first edition (as the client reads it)."""
    return server_features(server.base_url)


@pytest.fixture
def open_page(
    browser: Any, server: Server, screenshots: Path
) -> Iterator[Callable[..., WebClient]]:
    """Call it for a client page: ``open_page()``, ``open_page(phone=True)``,
    ``open_page(on=other_server)``; ``init_script`` runs before the page's own;
    ``viewport`` ({"width", "height"}) overrides the size, ``locale`` the browser's
    language, and ``prefs`` are the device's first preferences (``{"deck": "french"}``);
    ``bypass_csp`` lets a test inject a script of its own (the accessibility scan)."""
    contexts: list[Any] = []
    clients: list[WebClient] = []

    def make(
        *,
        phone: bool = False,
        on: Server | None = None,
        init_script: str | None = None,
        viewport: dict[str, int] | None = None,
        locale: str = "en-US",
        prefs: dict[str, str] | None = None,
        bypass_csp: bool = False,
    ) -> WebClient:
        target = on or server
        context = browser.new_context(
            viewport=viewport or (PHONE if phone else DESKTOP),
            base_url=target.base_url,
            has_touch=phone,
            is_mobile=phone,
            locale=locale,
            bypass_csp=bypass_csp,
        )
        if prefs:
            # Only where the page has not chosen yet: a choice made in the page survives reloads.
            context.add_init_script(
                "(prefs => { const key = 'scopa.prefs';"
                " const mine = JSON.parse(localStorage.getItem(key) || '{}');"
                " localStorage.setItem(key, JSON.stringify({...prefs, ...mine})); })"
                f"({json.dumps(prefs)})"
            )
        context.add_init_script(INSTANT_FAST_PACE)
        if init_script:
            context.add_init_script(init_script)
        contexts.append(context)
        client = WebClient(context.new_page(), target.base_url, screenshots)
        clients.append(client)
        return client

    try:
        yield make
    finally:
        errors = [e for c in clients for e in c.errors]
        for context in contexts:
            context.close()
    assert not errors, f"console errors or uncaught exceptions: {errors}"
