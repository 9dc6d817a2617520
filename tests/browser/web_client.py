"""Driving the web client as a person would (pointer or keyboard), and checking what it
shows against what the API says. Screenshots go to the folder the ``screenshots`` fixture
names (a temporary one unless SCOPA_SCREENSHOTS_DIR asks for docs/screenshots)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

MATCH_ROUTE = re.compile(r"^/v1/matches/\{[^}]+\}/([a-z_]+)$")
# Long enough for an AI reply and the client's pace; short enough that a stuck page fails.
STEP_MS = 30_000

# What the page shows: a dialog (end of a deal or of the match), the hot-seat cover,
# or a hand to play from.
STATE_JS = """() => {
  const box = document.querySelector('#deal-box[open]');
  if (box) return box.querySelector('[data-action=new]') ? 'end' : 'deal';
  if (!document.querySelector('#cover').hidden) return 'cover';
  if (document.querySelector('.hand.own .card.playable')) return 'turn';
  return false;
}"""


def _resolve(doc: dict[str, Any], schema: Any) -> dict[str, Any]:
    while isinstance(schema, dict) and "$ref" in schema:
        node: Any = doc
        for part in schema["$ref"].split("/")[1:]:
            node = node[part]
        schema = node
    return schema if isinstance(schema, dict) else {}


def _accepts(doc: dict[str, Any], schema: Any, path: list[str]) -> bool:
    if not path:
        return True
    s = _resolve(doc, schema)
    parts = [*s.get("oneOf", []), *s.get("anyOf", []), *s.get("allOf", [])]
    if parts:
        return any(_accepts(doc, p, path) for p in parts)
    if s.get("type") == "array" or "items" in s:
        return _accepts(doc, s.get("items"), path)
    props = s.get("properties", {})
    return path[0] in props and _accepts(doc, props[path[0]], path[1:])


def _has_field(doc: dict[str, Any], name: str) -> bool:
    return any(name in s.get("properties", {}) for s in doc["components"]["schemas"].values())


def server_features(base_url: str) -> dict[str, bool]:
    """The served OpenAPI document's second-edition routes and fields, by name."""
    doc = httpx.get(f"{base_url}/schema/openapi.json", timeout=10).json()
    routes = {
        f"{method} {m.group(1)}"
        for path, operations in doc["paths"].items()
        if (m := MATCH_ROUTE.match(path))
        for method in operations
    }
    create = doc["paths"]["/v1/matches"]["post"]["requestBody"]["content"]["application/json"]
    status = next(
        _resolve(doc, p)
        for p in doc["paths"]["/v1/matches"]["get"]["parameters"]
        if _resolve(doc, p).get("name") == "status"
    )
    return {
        "resign": "post resign" in routes,
        "abort": "post abort" in routes,
        "rematch": "post rematch" in routes,
        "record": "get record" in routes,
        "review": "get review" in routes,
        "activeLobby": '"active"' in json.dumps(status.get("schema", {})),
        "names": _accepts(doc, create["schema"], ["seats", "name"]),
        "clock": _accepts(doc, create["schema"], ["rules", "turn_seconds"])
        and _has_field(doc, "turn_deadline"),
        "reveal": _accepts(doc, create["schema"], ["rules", "reveal_ai_hands"]),
        "seeded": _has_field(doc, "seeded"),
        "end_reason": _has_field(doc, "end_reason"),
    }


SECOND_EDITION = {
    "resign": "POST /v1/matches/{id}/resign",
    "abort": "POST /v1/matches/{id}/abort",
    "rematch": "POST /v1/matches/{id}/rematch",
    "record": "GET /v1/matches/{id}/record",
    "review": "GET /v1/matches/{id}/review",
    "activeLobby": "GET /v1/matches?status=active",
    "names": "seats[].name on create",
    "clock": "rules.turn_seconds and MatchView.turn_deadline",
    "reveal": "rules.reveal_ai_hands",
    "seeded": "MatchView.seeded",
    "end_reason": "MatchView.end_reason",
}


def unavailable(reason: str) -> None:
    """Skips the test, unless ``CI`` is set: then it fails, so CI never passes by skipping."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)")
    pytest.skip(reason)


def require(features: dict[str, bool], *names: str) -> None:
    """Skips the test (fails it under ``CI``), naming what is missing, unless the server has
    every feature."""
    missing = [SECOND_EDITION[n] for n in names if not features[n]]
    if missing:
        unavailable(f"the served contract lacks {', '.join(missing)}")


# What sticks out past the screen's right edge (``w``), to name in a failure.
WIDE_JS = """w => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > w + 0.5)
  .slice(0, 6).map((e) => `${e.tagName}.${e.className}`)"""


class WebClient:
    """One browser page of the client, with the API at hand to check what it shows."""

    def __init__(self, page: Any, base_url: str, shots: Path) -> None:
        self.page = page
        self.base_url = base_url
        self.shots = shots
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.set_default_timeout(STEP_MS)

    # --- screens -------------------------------------------------------------------

    def start(
        self,
        mode: str = "ai",
        *,
        level: str = "easy",
        target: int = 11,
        pace: str = "fast",
        **choices: Any,
    ) -> str:
        """Fills the start screen and starts; ``choices`` names form fields (checkboxes
        take a bool, text and selects a string). The new match's id."""
        page = self.page
        page.goto("/")
        page.check(f"input[name=mode][value={mode}]")
        if mode in ("ai", "team"):
            page.select_option("select[name=level]", level)
        if mode == "team":
            page.select_option("select[name=partner_level]", level)
        page.check(f"input[name=target][value='{target}']")
        if choices:
            page.click(".variants summary")
        for name, value in choices.items():
            field = page.locator(f"[name={name}]")
            if isinstance(value, bool):
                field.set_checked(value)
            elif field.evaluate("el => el.tagName") == "SELECT":
                field.select_option(value)
            else:
                field.fill(value)
        page.click("#new-match button[type=submit]")
        page.wait_for_selector("#match-screen:not([hidden])")
        self.set_pace(pace)
        return self.match_id

    def set_pace(self, pace: str) -> None:
        self.page.select_option("#pace-select", pace)

    def remember_seats(self, match_id: str, mode: str, tokens: list[dict[str, Any]]) -> None:
        """Keeps the seats as the client keeps them (its own storage module), on the
        start page."""
        self.page.goto("/")
        self.page.evaluate(
            "async ([id, mode, seats]) => (await import('/static/js/storage.js'))"
            ".rememberSeats(id, mode, seats)",
            [match_id, mode, tokens],
        )

    def open_match(self, match_id: str, mode: str, tokens: list[dict[str, Any]]) -> None:
        """Opens a match with seats kept on this device, as a reload would."""
        self.remember_seats(match_id, mode, tokens)
        self.page.goto(f"/#/match/{match_id}")
        self.page.wait_for_selector("#match-screen:not([hidden])")

    @property
    def match_id(self) -> str:
        return str(self.page.url.split("#/match/")[1])

    def tokens(self) -> dict[int, str]:
        session = self.page.evaluate(
            "async id => (await import('/static/js/storage.js')).sessionOf(id)", self.match_id
        )
        return {s["seat"]: s["token"] for s in session["seats"]}

    def shoot(self, name: str, *, full_page: bool = False) -> None:
        self.shots.mkdir(parents=True, exist_ok=True)
        # Still frames: the glow of the seat to play would differ from run to run.
        self.page.screenshot(
            path=str(self.shots / f"{name}.png"), full_page=full_page, animations="disabled"
        )

    # --- the API, to check the page against ----------------------------------------

    def view(self, seat: int | None = None, match_id: str | None = None) -> dict[str, Any]:
        headers = {} if seat is None else {"Authorization": f"Bearer {self.tokens()[seat]}"}
        answer = httpx.get(
            f"{self.base_url}/v1/matches/{match_id or self.match_id}", headers=headers, timeout=10
        )
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def events(self, seat: int | None = None) -> list[dict[str, Any]]:
        headers = {} if seat is None else {"Authorization": f"Bearer {self.tokens()[seat]}"}
        answer = httpx.get(
            f"{self.base_url}/v1/matches/{self.match_id}/events", headers=headers, timeout=10
        )
        return list(answer.json()["events"])

    # --- what the page shows -------------------------------------------------------

    def state(self) -> str:
        return str(self.page.wait_for_function(STATE_JS, timeout=STEP_MS).json_value())

    def hand(self) -> list[str]:
        return list(
            self.page.eval_on_selector_all(".hand.own .card", "els => els.map(e => e.dataset.card)")
        )

    def table(self, marked: str = "") -> list[str]:
        """The table's cards (``marked=".lit"``: those lit), without one still landing."""
        return list(
            self.page.eval_on_selector_all(
                f".table-cards .card{marked}:not(.incoming)", "els => els.map(e => e.dataset.card)"
            )
        )

    def logged_plays(self) -> list[int]:
        """The seq of each play in the page's move log, in its order."""
        return list(
            self.page.eval_on_selector_all(
                "#move-log li.play", "els => els.map(e => Number(e.dataset.seq))"
            )
        )

    def wait_gone(self, card: str) -> None:
        self.page.wait_for_function(
            "c => !document.querySelector(`.hand.own .card[data-card='${c}']`)", arg=card
        )

    # --- playing -------------------------------------------------------------------

    def play_one(self, *, tap: bool = False) -> str:
        """Picks the first card of the hand; plays it by tapping it again when it has one
        play, else by its first button. The card played."""
        page = self.page
        card = page.locator(".hand.own .card.playable").first
        code = str(card.get_attribute("data-card"))
        (card.tap if tap else card.click)()
        choices = page.locator(".choices-bar .choice:not(.cancel)")
        assert choices.count() >= 1
        again = page.locator(f".hand.own .card[data-card='{code}']")
        if choices.count() == 1:
            (again.tap if tap else again.click)()
        else:
            (choices.first.tap if tap else choices.first.click)()
        self.wait_gone(code)
        return code

    def play_to_end(self, *, shots: bool = False, max_moves: int = 400) -> int:
        """Plays every turn by clicking, closing each end-of-deal box, until the match's
        end is shown. The number of cards played."""
        played = 0
        deal_shot = False
        while played < max_moves:
            state = self.state()
            if state == "end":
                return played
            if state == "deal":
                if shots and not deal_shot:
                    self.shoot("deal-end-desktop")
                    deal_shot = True
                self.page.click("#deal-box-buttons button")
                # Closed, or open again at once as the match's end box (the same dialog).
                self.page.wait_for_selector(
                    "#deal-box:not([open]), #deal-box[open] [data-action=new]", state="attached"
                )
            elif state == "turn":
                self.play_one()
                played += 1
            else:
                raise AssertionError(f"unexpected state {state}")
        raise AssertionError(f"no end after {max_moves} moves")
