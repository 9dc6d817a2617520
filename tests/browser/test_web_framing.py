"""The web client under its Content-Security-Policy in a real browser: a page of another
origin that frames the lobby gets nothing (clickjacking), and the Swagger UI still
renders under its own policy. (Every other browser test runs the client under the
policy, and fails on any console error, a refused script or style included.)"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.support.server_process import Server

pytestmark = pytest.mark.browser

LOAD_SECONDS = 20.0


def test_another_origin_cannot_frame_the_lobby(browser: Any, server: Server) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        refusals: list[str] = []

        def refused(message: Any) -> None:
            if "frame-ancestors" in message.text:
                refusals.append(message.text)

        page.on("console", refused)
        # about:blank is an origin of its own, as an attacker's page would be.
        page.set_content(f'<iframe id="lobby" src="{server.base_url}/#/lobby"></iframe>')
        deadline = time.monotonic() + LOAD_SECONDS
        while not refusals:
            assert time.monotonic() < deadline, "the browser never refused the frame"
            page.wait_for_timeout(50)
        (frame,) = [f for f in page.frames if f is not page.main_frame]
        # Blocked, the frame holds the browser's error page, never the client.
        assert not frame.url.startswith(server.base_url) or frame.query_selector("form") is None
    finally:
        context.close()


def test_the_swagger_ui_renders_under_its_policy(browser: Any, server: Server) -> None:
    context = browser.new_context(base_url=server.base_url)
    try:
        page = context.new_page()
        errors: list[str] = []

        def error(message: Any) -> None:
            if message.type == "error":
                errors.append(message.text)

        page.on("console", error)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.goto("/schema/swagger")
        page.wait_for_selector(".swagger-ui .opblock", timeout=LOAD_SECONDS * 1000)
        assert "createMatch" in page.content() or page.query_selector(
            "#operations-matches-createMatch"
        )
        assert errors == []
    finally:
        context.close()
