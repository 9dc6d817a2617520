"""The reference web client (api/static/) in Debian's Chromium, driven by Playwright for
Python, against the real server process.

``server``: one ``scopa serve`` on SQLite for the session. ``browser``: the worker's one
headless Chromium, started once and connected to by each module. ``open_page``: a fresh
browser context (its own localStorage) and page on a server, at a desktop or phone
viewport; every page collects console errors and uncaught exceptions, and the test fails
at teardown if there was any; the client's "fast" pace is instant there (the pacing test
uses "normal"). ``screenshots``: the folder pages are shot into, a temporary one of the
worker's unless SCOPA_SCREENSHOTS_DIR names one (docs/screenshots to refresh the docs'
pictures), so a run writes no tracked file. Without Chromium or Playwright these tests
skip, unless ``CI`` is set: then they fail, so CI never passes by skipping them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.web_client import WebClient, server_features, unavailable
from tests.support.eventually import until
from tests.support.server_process import Server, start_server

CHROMIUM = Path("/usr/bin/chromium")
# Chromium is started by the fixture, not by Playwright, so it gets the switches
# Playwright's own launch would give: no first-run pages, extensions or background
# throttling, hover and a fine pointer as on a desktop, no window until a test opens one.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    "--disable-renderer-backgrounding",
    "--disable-ipc-flooding-protection",
    "--disable-back-forward-cache",
    "--disable-breakpad",
    "--disable-component-extensions-with-background-pages",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-hang-monitor",
    "--disable-popup-blocking",
    "--disable-prompt-on-repost",
    "--disable-sync",
    "--disable-search-engine-choice-screen",
    "--force-color-profile=srgb",
    "--metrics-recording-only",
    "--no-default-browser-check",
    "--no-first-run",
    "--no-service-autorun",
    "--password-store=basic",
    "--use-mock-keychain",
    "--hide-scrollbars",
    "--mute-audio",
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4",
    "--no-startup-window",
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


# The browser modules in two xdist groups: at most two workers drive a Chromium at once
# (six at once thrashed two cores: load 40, a test's page waits running out), and
# xdist hands out the big groups first, so they do not make the run's tail. The
# accessibility scans are about half of the browser time.
BROWSER_GROUPS = {
    "test_web_accessibility.py": "browser-a",
    "test_web_feed.py": "browser-a",
    "test_web_framing.py": "browser-a",
    "test_web_players.py": "browser-a",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if item.path.parent == here:
            group = BROWSER_GROUPS.get(item.path.name, "browser-b")
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def chromium_endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Chromium for the worker's whole session, started once: each module's
    Playwright connects to it over the DevTools protocol at the address yielded."""
    if not CHROMIUM.exists():
        unavailable(f"no Chromium at {CHROMIUM}: apt-get install chromium")
    profile = tmp_path_factory.mktemp("chromium")
    process = subprocess.Popen(
        [CHROMIUM, *CHROMIUM_ARGS, "--remote-debugging-port=0", f"--user-data-dir={profile}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        # Chromium writes the port it chose, then the browser's path, once it listens.
        port_file = profile / "DevToolsActivePort"
        port = until(lambda: _listening(process, port_file), seconds=30)
        yield f"http://127.0.0.1:{port}"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def _listening(process: subprocess.Popen[bytes], port_file: Path) -> str:
    """The port once Chromium listens, or "" while it starts; a failure if it ended."""
    if process.poll() is not None:
        pytest.fail(f"Chromium exited with {process.returncode} before it listened")
    try:
        lines = port_file.read_text().split()
    except FileNotFoundError:
        return ""
    return lines[0] if len(lines) == 2 else ""


@pytest.fixture(scope="module")
def browser(chromium_endpoint: str) -> Iterator[Any]:
    """The worker's Chromium, for one module: Playwright's sync API runs an event loop in
    this thread while it lives, which later async tests of the session could not start
    beside, so it is connected per module and the browser itself outlives it."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright for Python is not installed: pip install playwright")
    with sync_playwright() as playwright:
        yield playwright.chromium.connect_over_cdp(chromium_endpoint)


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
