"""A careful client for the hostile tests: it plays matches to the end through database
outages and server crashes, holds every answer to the contract while things break, and
keeps a ledger of the moves the server acknowledged.

What it tolerates is what a well-behaved client must: a 503 (waits as ``Retry-After``
says, capped, then retries the same request with the same ``Idempotency-Key``), and, only
when told the server may vanish, a connection that fails. What it records as a breach:
any 500 or other 5xx, a 503 that is not problem+json with a ``Retry-After``, a stack trace
in a body, an answer slower than ``ANSWER_SECONDS``, a refused move that was legal.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from examples.bot import pick
from tests.support.audit import Ack

# The liveness bound: every request answers within this, outage or not (long polls get
# their wait on top).
ANSWER_SECONDS = 10.0
# Retry-After is honoured up to this, so a test does not idle through a short outage.
RETRY_CAP_SECONDS = 2.0
LONG_POLL_SECONDS = 5.0
STREAM_QUIET_SECONDS = 20.0
# Bounds on every loop: steps per match (a long match is ~250 changes, each a few steps),
# attempts per request.
MAX_STEPS = 5_000
MAX_ATTEMPTS = 200
PROBLEM = "https://scopa.example/problems/"


def client(base_url: str, connections: int) -> httpx.AsyncClient:
    """Idle connections are dropped after 2 s, before uvicorn drops them (5 s): reusing one
    the server is closing at that very moment fails without an answer."""
    limits = httpx.Limits(max_connections=connections, keepalive_expiry=2.0)
    return httpx.AsyncClient(base_url=base_url, limits=limits, timeout=ANSWER_SECONDS)


@dataclass
class Journal:
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    unanswered: int = 0  # connections that failed (the server was down)
    breaches: list[str] = field(default_factory=list)
    acks: list[Ack] = field(default_factory=list)
    moves_in_flight: int = 0
    streams_resumed: int = 0  # event streams reconnected with Last-Event-ID


class Player:
    """Plays every human seat of the matches it is given, over one shared client."""

    def __init__(
        self, http: httpx.AsyncClient, journal: Journal, *, server_may_vanish: bool = False
    ) -> None:
        self.http = http
        self.journal = journal
        self.server_may_vanish = server_may_vanish

    async def send(
        self, method: str, url: str, *, wait: float = 0.0, **kwargs: Any
    ) -> httpx.Response | None:
        """One request; None when no answer came (and that was allowed)."""
        journal = self.journal
        journal.requests += 1
        bound = ANSWER_SECONDS + wait
        started = time.monotonic()
        try:
            answer = await self.http.request(method, url, timeout=bound + 1, **kwargs)
        except httpx.TimeoutException:
            journal.breaches.append(f"{method} {url}: no answer within {bound:.0f} s")
            return None
        except httpx.TransportError as error:
            journal.unanswered += 1
            if not self.server_may_vanish:
                journal.breaches.append(f"{method} {url}: {error!r}")
            return None
        elapsed = time.monotonic() - started
        journal.statuses[answer.status_code] += 1
        if elapsed > bound:
            journal.breaches.append(f"{method} {url}: answered after {elapsed:.1f} s")
        self._check(method, url, answer)
        return answer

    def _check(self, method: str, url: str, answer: httpx.Response) -> None:
        status = answer.status_code
        where = f"{method} {url} -> {status}"
        if "Traceback" in answer.text:
            self.journal.breaches.append(f"{where}: a stack trace in the body")
        if status < 400:
            return
        if not answer.headers.get("content-type", "").startswith("application/problem+json"):
            self.journal.breaches.append(f"{where}: not problem+json: {answer.text[:200]}")
        if status == 503:
            if not answer.headers.get("Retry-After", "").isdigit():
                self.journal.breaches.append(f"{where}: no Retry-After")
        elif status >= 500:
            self.journal.breaches.append(f"{where}: {answer.text[:300]}")

    async def back_off(self, answer: httpx.Response | None) -> None:
        seconds = 0.2
        if answer is not None and answer.headers.get("Retry-After", "").isdigit():
            seconds = min(float(answer.headers["Retry-After"]), RETRY_CAP_SECONDS)
        await asyncio.sleep(seconds)

    async def create(self, body: dict[str, Any]) -> tuple[str, dict[int, str]] | None:
        """Create a match, retrying through outages; its id and seat tokens."""
        key = secrets.token_hex(8)
        for _ in range(MAX_ATTEMPTS):
            answer = await self.send(
                "POST", "/v1/matches", json=body, headers={"Idempotency-Key": key}
            )
            if answer is None or answer.status_code == 503:
                await self.back_off(answer)
                continue
            if answer.status_code == 201:
                created = answer.json()
                tokens = {t["seat"]: t["token"] for t in created["tokens"]}
                return str(created["match"]["id"]), tokens
            if _problem(answer) == "idempotency-key-in-flight":
                # The request that holds the key died with the server, or could not let go
                # of it while the database was away: a new key may create a second match,
                # which nobody plays; that is the client's cost, not a lost move.
                key = secrets.token_hex(8)
                await asyncio.sleep(0.2)
                continue
            self.journal.breaches.append(f"create refused: {answer.status_code} {answer.text}")
            return None
        self.journal.breaches.append("create: no success after every attempt")
        return None

    async def play_match(
        self, match_id: str, tokens: dict[int, str], deadline: float
    ) -> dict[str, Any] | None:
        """Play the match's human seats (``tokens``) until it is finished; its last view,
        or None (and a breach) if it did not finish by ``deadline`` (monotonic)."""
        seats = sorted(tokens)
        guess = seats[0]
        after = 0
        for _ in range(MAX_STEPS):
            if time.monotonic() > deadline:
                break
            view = await self._view(match_id, tokens[guess])
            if view is None:
                continue
            if view["status"] == "finished":
                return view
            turn = view["turn"]
            if turn in tokens and turn != guess:
                guess = turn
                continue
            if turn == guess and view["legal_moves"]:
                await self._move(match_id, turn, tokens[turn], view)
                guess = seats[(seats.index(turn) + 1) % len(seats)]
                continue
            # Someone else's turn (an AI's): hold until something happens.
            page = await self.send(
                "GET",
                f"/v1/matches/{match_id}/events",
                params={"after": after, "wait": LONG_POLL_SECONDS},
                headers=_bearer(tokens[guess]),
                wait=LONG_POLL_SECONDS,
            )
            if page is not None and page.status_code == 200:
                after = page.json()["last_seq"]
            else:
                await self.back_off(page)
        self.journal.breaches.append(f"{match_id}: not finished in time")
        return None

    async def _view(self, match_id: str, token: str) -> dict[str, Any] | None:
        answer = await self.send("GET", f"/v1/matches/{match_id}", headers=_bearer(token))
        if answer is not None and answer.status_code == 200:
            return dict(answer.json())
        if answer is not None and answer.status_code != 503:
            self.journal.breaches.append(f"{match_id}: view {answer.status_code} {answer.text}")
        await self.back_off(answer)
        return None

    async def _move(self, match_id: str, seat: int, token: str, view: dict[str, Any]) -> None:
        """Play the bot's pick at the view's version; record it if acknowledged."""
        move = pick(view["legal_moves"])
        body = {"card": move["card"], "capture": move["capture"]}
        version = view["version"]
        key = secrets.token_hex(8)
        url = f"/v1/matches/{match_id}/moves"
        for _ in range(MAX_ATTEMPTS):
            headers = {**_bearer(token), "If-Match": f'"{version}"', "Idempotency-Key": key}
            self.journal.moves_in_flight += 1
            try:
                answer = await self.send("POST", url, json=body, headers=headers)
            finally:
                self.journal.moves_in_flight -= 1
            if answer is None or answer.status_code == 503:
                await self.back_off(answer)
                continue
            if answer.status_code == 200:
                made = answer.json()["version"]
                if made != version + 1:
                    self.journal.breaches.append(f"{match_id}: a move at {version} made {made}")
                ack = Ack(match_id, made, seat, move["card"], tuple(move["capture"]))
                self.journal.acks.append(ack)
                return
            kind = _problem(answer)
            if kind == "idempotency-key-in-flight":
                # A new key cannot play twice: If-Match still pins the version.
                key = secrets.token_hex(8)
                await asyncio.sleep(0.2)
                continue
            if kind not in ("stale-version", "not-your-turn", "match-not-active"):
                self.journal.breaches.append(f"{match_id}: {body} refused: {answer.text}")
            # Otherwise the match moved on, perhaps by an earlier attempt of this very
            # move: unacknowledged, so the ledger does not count it.
            return
        self.journal.breaches.append(f"{match_id}: the move at {version} never got an answer")

    async def log_of(self, match_id: str) -> list[dict[str, Any]]:
        """The whole event log as a spectator reads it, page by page (the database up)."""
        events: list[dict[str, Any]] = []
        for _ in range(MAX_ATTEMPTS):
            url = f"/v1/matches/{match_id}/events"
            answer = await self.send("GET", url, params={"after": len(events)})
            assert answer is not None
            assert answer.status_code == 200, answer.text
            page = answer.json()
            events += page["events"]
            if not page["events"] or events[-1]["seq"] >= page["last_seq"]:
                return events
        raise AssertionError(f"{match_id}: the log never ended")

    async def follow(self, match_id: str, deadline: float) -> list[dict[str, Any]]:
        """Every event of the match as a spectator's event stream delivers them, through
        outages: when the stream breaks off, reconnect with ``Last-Event-ID``, as
        EventSource does, until ``match_finished`` or ``deadline`` (monotonic)."""
        url = f"/v1/matches/{match_id}/events/stream"
        received: list[dict[str, Any]] = []
        for _ in range(MAX_ATTEMPTS):
            if time.monotonic() > deadline:
                break
            headers = {}
            if received:
                headers["Last-Event-ID"] = str(received[-1]["seq"])
                self.journal.streams_resumed += 1
            self.journal.requests += 1
            try:
                # Quiet streams send a comment every 15 s; no line for longer is a hang.
                async with self.http.stream(
                    "GET", url, headers=headers, timeout=STREAM_QUIET_SECONDS
                ) as answer:
                    self.journal.statuses[answer.status_code] += 1
                    if answer.status_code != 200:
                        await answer.aread()
                        self._check("GET", url, answer)
                        await self.back_off(answer)
                        continue
                    async for event in _sse_events(answer):
                        received.append(event)
                        if event["type"] == "match_finished":
                            return received
            except httpx.TimeoutException:
                self.journal.breaches.append(f"GET {url}: silent for {STREAM_QUIET_SECONDS} s")
            except httpx.TransportError as error:
                self.journal.unanswered += 1
                if not self.server_may_vanish:
                    self.journal.breaches.append(f"GET {url}: {error!r}")
            await asyncio.sleep(0.2)
        self.journal.breaches.append(f"{match_id}: the stream did not reach the end in time")
        return received


async def _sse_events(answer: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The events of a text/event-stream answer, each its ``data`` parsed, checked
    against its ``id:`` and ``event:`` lines."""
    fields: dict[str, str] = {}
    async for line in answer.aiter_lines():
        if line:
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
            continue
        if "data" in fields:
            event = json.loads(fields["data"])
            assert fields.get("id") == str(event["seq"]), fields
            assert fields.get("event") == event["type"], fields
            yield event
        fields = {}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _problem(answer: httpx.Response) -> str:
    if not answer.headers.get("content-type", "").startswith("application/problem+json"):
        return ""
    return str(answer.json().get("type", "")).removeprefix(PROBLEM)
