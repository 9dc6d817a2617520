"""Secrecy: what each viewer may know, checked after every move of whole matches.

Every variant is played to its end over HTTP (in process, SQLite). After each move the
test reads the stored state (the privileged truth: every hand and the stock) and, for
each seat token and for a spectator, the match view, the new events and a hint:

- no card of another seat's hand, nor of the stock, shows in a view, nor in an event of
  the deal being played (older deals' cards went back into the deck, and a voided deal's
  table too, so those events may name cards that are someone's now);
- each event is exactly the stored one as docs/api.md projects it for the viewer: ``hand``
  the viewer's own packet on deal_started and cards_dealt, null for a spectator, and
  nothing else of the stored hands;
- ``hand`` is the token's seat's hand exactly (null for a spectator), ``legal_moves``
  only for the seat to play, a hint only for a token, and only on its turn;
- ``seats[].hand`` is null but for the AI seats under ``reveal_ai_hands``, where it is
  exactly their cards (which are then no secret); the match's entry in the lobby of
  active matches shows no hidden card either;
- the secret seed shows nowhere (only its commitment, in ``fairness``) and the record is
  refused, until the match is finished; the AI's secret never shows at all.

At the end every viewer reads the SSE stream once: the same events as the long poll, and
the record reveals the seed that the commitment named. Matches that end early (resigned,
aborted, timed out by forfeit or by autoplay) are checked the same way, and the resign and
abort answers too: the hands and stock left when a deal stops short stay hidden.
Then: tokens of one match are refused on another (join, which reads a token only as a
claim, answers that the seat is not open), and a rematch's reserved seat goes to its old
token alone. After creates, joins, moves, a rematch and a claim with an Idempotency-Key,
no token and no key is in any stored byte (every cell of every table, on SQLite and
Postgres, and the SQLite file itself) nor in any log line at DEBUG; another client
replaying those requests gets no token without the very key.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import re
import secrets
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from scopa.domain.cards import NAME
from scopa.infra.db import make_engine
from scopa.infra.logging import JsonFormatter
from scopa.service.feed import MAX_EVENTS
from tests.support.in_process import InProcess, serve
from tests.support.server_process import start_server

if TYPE_CHECKING:
    from tests.support.reliability import ReliabilityRecord

# Whole matches, a dozen requests checked after every move: not the inner loop.
pytestmark = [pytest.mark.slow, pytest.mark.untraced]

CARD = re.compile(r"^(A|[2-7]|J|Q|K)[CDHS]$")
HUMAN = {"kind": "human"}
AI = {"kind": "ai", "level": "easy"}
# A match waits this many reads at most for the AI to hand the turn back.
AI_READS = 500


@dataclass(frozen=True)
class Variant:
    name: str
    seats: list[dict[str, str]]
    rules: dict[str, Any]
    seed: int  # the test's own randomness; the match's too unless ``secret``
    secret: bool = False  # the server draws the match's seed: nobody may learn it


VARIANTS = [
    Variant("2p match", [HUMAN] * 2, {"target": 1}, 1),
    Variant("2p fifteen", [HUMAN] * 2, {"target": 1, "capture": "fifteen"}, 2),
    Variant("2p ace sweeps", [HUMAN] * 2, {"target": 1, "ace_sweeps": "sweep"}, 3),
    Variant("2p ace sweeps no point", [HUMAN] * 2, {"target": 1, "ace_sweeps": "no_point"}, 4),
    Variant(
        "2p king and sequence",
        [HUMAN] * 2,
        {"target": 1, "king_of_diamonds": True, "diamond_sequence": True},
        5,
    ),
    Variant("2p six cards", [HUMAN] * 2, {"target": 1, "hand_size": 6}, 6),
    Variant("2p to eleven", [HUMAN] * 2, {}, 7),
    Variant("4p match", [HUMAN] * 4, {"target": 1}, 8),
    Variant(
        "4p fifteen and king",
        [HUMAN] * 4,
        {"target": 1, "capture": "fifteen", "king_of_diamonds": True},
        9,
    ),
    Variant("4p with the AI", [HUMAN, AI, HUMAN, AI], {"target": 1, "ace_sweeps": "sweep"}, 10),
    Variant("2p secret seed", [HUMAN] * 2, {"target": 1}, 12, secret=True),
    Variant(
        "4p with the AI revealed, secret seed",
        [HUMAN, AI, HUMAN, AI],
        {"target": 1, "reveal_ai_hands": True},
        13,
        secret=True,
    ),
    Variant("2p against the AI revealed", [HUMAN, AI], {"target": 2, "reveal_ai_hands": True}, 14),
    Variant("scopone with the AI", [HUMAN, AI, HUMAN, AI], {"target": 1, "deal": "scopone"}, 15),
]


def _cards(value: Any) -> set[str]:
    """Every card named anywhere in a JSON value."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(_cards(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_cards(v) for v in value))
    return set()


def _seen_by(stored: Any, seat: int | None) -> dict[str, Any]:
    """docs/api.md's projection of a stored event for a viewer: its own packet only."""
    event: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(stored))
    event.pop("deck", None)  # the record's alone
    if event["type"] in ("deal_started", "cards_dealt"):
        hands = event.pop("hands")
        event["hand"] = None if seat is None else hands[seat]
        event["hands"] = None
    return event


def _with_every_hand(stored: Any) -> dict[str, Any]:
    """The record's projection of a stored event: every seat's packet, as ``hands``."""
    event: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(stored))
    event.pop("deck", None)
    if event["type"] in ("deal_started", "cards_dealt"):
        event["hand"] = None
    return event


def _bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@dataclass
class Viewer:
    seat: int | None  # None: a spectator
    token: str | None
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "spectator" if self.seat is None else f"seat {self.seat}"


@dataclass
class Table:
    """One match being played, and what the test knows of it for certain."""

    api: InProcess
    match_id: str
    viewers: list[Viewer]
    record: ReliabilityRecord
    secret: bool = False  # the server drew the seed
    moves: int = 0
    breaches: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)  # every Idempotency-Key it sent
    # Every answer since the last check, searched for the secrets.
    answers: list[str] = field(default_factory=list)
    views: dict[int | None, dict[str, Any]] = field(default_factory=dict)  # the last check's

    async def get(self, path: str, token: str | None = None) -> Any:
        self.record.requests += 1
        answer = await self.api.client.get(
            f"/v1/matches/{self.match_id}{path}", headers=_bearer(token)
        )
        self.answers.append(answer.text)
        return answer

    def breach(self, viewer: Viewer, what: str) -> None:
        self.breaches.append(f"move {self.moves}, {viewer.name}: {what}")

    async def truth(self) -> Any:
        record = await self.api.matches.get(self.match_id)
        assert record is not None
        return record.state

    async def check_everyone(self) -> Any:
        """Every viewer's view, new events and hint against the stored state; that state.
        The views read are kept in ``views``, by seat (None: the spectator's)."""
        state = await self.truth()
        stored = await self.api.reads.events(self.match_id, 0, MAX_EVENTS * 10)
        hands = [{NAME[c] for c in hand} for hand in state.hands]
        stock = {NAME[c] for c in state.stock}
        shown = _shown_seats(state)
        for viewer in self.viewers:
            secret = stock.union(
                *(h for seat, h in enumerate(hands) if seat != viewer.seat and seat not in shown)
            )
            self.views[viewer.seat] = await self._check_view(viewer, state, hands, secret)
            await self._check_events(viewer, stored, secret)
            await self._check_hint(viewer, state)
        from_everyone = stock.union(*(h for seat, h in enumerate(hands) if seat not in shown))
        await self._check_lobby_and_record(state, from_everyone)
        self._check_secrets(state)
        return state

    async def _check_lobby_and_record(self, state: Any, secret: set[str]) -> None:
        self.record.requests += 1
        lobby = await self.api.client.get("/v1/matches", params={"status": "active"})
        self.answers.append(lobby.text)
        entry = [m for m in lobby.json()["matches"] if m["id"] == self.match_id]
        if len(entry) != (state.status == "active"):
            self.breach(Viewer(None, None), f"the active lobby lists it {len(entry)} times")
        if leaked := _cards(entry) & secret:
            self.breach(Viewer(None, None), f"the lobby shows {sorted(leaked)}")
        record = await self.get("/record")
        if state.status != "finished" and record.status_code != 409:
            self.breach(Viewer(None, None), f"the record answered {record.status_code} early")

    def _check_secrets(self, state: Any) -> None:
        """The seed, while it is secret, and the AI's secret, ever, in no answer."""
        hidden = {"the AI's secret": str(state.ai_secret)}
        if self.secret and state.status != "finished":
            hidden["the seed"] = str(state.seed)
        for answer in self.answers:
            for what, digits in hidden.items():
                if digits in answer:
                    self.breach(Viewer(None, None), f"an answer shows {what}: {answer[:200]}")
        self.answers.clear()

    async def _check_view(
        self, viewer: Viewer, state: Any, hands: list[set[str]], secret: set[str]
    ) -> dict[str, Any]:
        answer = await self.get("", viewer.token)
        assert answer.status_code == 200, answer.text
        view: dict[str, Any] = answer.json()
        if view["version"] != state.version:
            self.breach(viewer, f"view at version {view['version']}, stored {state.version}")
        self.check_answer(viewer, view, state, hands, secret)

        for seat in view["seats"]:
            expected = _shown_hand(state, seat["seat"])
            if seat["hand"] != expected:
                self.breach(viewer, f"seat {seat['seat']} shows {seat['hand']}, not {expected}")
        if state.seeded:
            if view["fairness"] is not None:
                self.breach(viewer, f"a seeded match with fairness {view['fairness']}")
        elif view["fairness"]["seed"] != (state.seed if state.status == "finished" else None):
            self.breach(viewer, f"fairness {view['fairness']} at status {state.status}")
        return view

    def check_answer(
        self,
        viewer: Viewer,
        view: dict[str, Any],
        state: Any,
        hands: list[set[str]],
        secret: set[str],
    ) -> None:
        """A match view the viewer was given (a read, or the answer to its change)."""
        if leaked := _cards(view) & secret:
            self.breach(viewer, f"an answer shows {sorted(leaked)}")
        if viewer.seat is None:
            if view["hand"] is not None or view["you"] is not None or view["legal_moves"]:
                self.breach(viewer, "a spectator view with a hand, a seat or moves")
        else:
            if view["you"] != viewer.seat:
                self.breach(viewer, f"you is {view['you']}")
            # A match that ended before its deal did keeps the hands, hidden: [] for all.
            held = set() if state.status == "finished" else hands[viewer.seat]
            if set(view["hand"]) != held or len(view["hand"]) != len(held):
                self.breach(viewer, f"hand {view['hand']}, stored {sorted(held)}")
            to_play = state.status == "active" and state.turn == viewer.seat
            if bool(view["legal_moves"]) != to_play:
                self.breach(viewer, f"legal_moves {view['legal_moves']} when to play is {to_play}")
            if not {m["card"] for m in view["legal_moves"]} <= hands[viewer.seat]:
                self.breach(viewer, "a legal move with a card not in hand")

    async def _check_events(self, viewer: Viewer, stored: list[Any], secret: set[str]) -> None:
        after = viewer.events[-1]["seq"] if viewer.events else 0
        query = f"?after={after}&token={viewer.token}" if viewer.token else f"?after={after}"
        answer = await self.get(f"/events{query}")
        assert answer.status_code == 200, answer.text
        viewer.events.extend(answer.json()["events"])
        expected = [_seen_by(e, viewer.seat) for e in stored]
        if len(viewer.events) != len(expected):
            self.breach(viewer, f"{len(viewer.events)} events, {len(expected)} stored")
        for got, want in zip(viewer.events, expected, strict=False):
            if got != want:
                self.breach(viewer, f"event {got} for {want}")
                break
        starts = [i for i, e in enumerate(viewer.events) if e["type"] == "deal_started"]
        this_deal = viewer.events[starts[-1] :] if starts else []
        if leaked := _cards(this_deal) & secret:
            self.breach(viewer, f"events of this deal show {sorted(leaked)}")

    async def _check_hint(self, viewer: Viewer, state: Any) -> None:
        answer = await self.get("/hint", viewer.token)
        problem = answer.json().get("type", "").rsplit("/", 1)[-1]
        if viewer.seat is None:
            expected = (401, "invalid-token")
        elif state.status != "active":
            expected = (409, "match-not-active")
        elif state.turn != viewer.seat:
            expected = (409, "not-your-turn")
        else:
            expected = (200, "")
        if (answer.status_code, problem) != expected:
            self.breach(viewer, f"hint answered {answer.status_code} {problem}, not {expected}")
        elif answer.status_code == 200 and answer.json()["card"] not in {
            NAME[c] for c in state.hands[viewer.seat]
        }:
            self.breach(viewer, f"hint {answer.json()} of a card not in hand")

    async def check_streams(self) -> None:
        """Each viewer reads the SSE stream once: what the long poll gave it, in order."""
        for viewer in self.viewers:
            query = f"?token={viewer.token}" if viewer.token else ""
            answer = await self.get(f"/events/stream{query}")
            assert answer.status_code == 200
            streamed = [
                msgspec.json.decode(line.removeprefix("data: "))
                for line in answer.text.splitlines()
                if line.startswith("data: ")
            ]
            if streamed != viewer.events:
                self.breach(viewer, "the stream differs from the long poll")

    async def check_record(self) -> None:
        """The finished match's record: its seed the one committed to, its events the log
        with every hand."""
        state = await self.truth()
        answer = await self.get("/record")
        record = answer.json()
        if answer.status_code != 200:
            self.breach(Viewer(None, None), f"the record answered {answer.status_code}")
            return
        committed = record["match"]["fairness"]
        if self.secret:
            digest = hashlib.sha256(str(record["seed"]).encode()).hexdigest()
            if record["seed"] != state.seed or committed["commitment"] != digest:
                self.breach(Viewer(None, None), f"the record's seed {record['seed']}")
        elif record["seed"] is not None or committed is not None:
            self.breach(Viewer(None, None), "a seeded match's record shows a seed")
        stored = await self.api.reads.events(self.match_id, 0, MAX_EVENTS * 10)
        every = [_with_every_hand(e) for e in stored]
        if record["events"] != every:
            self.breach(Viewer(None, None), "the record's events are not the log")


def _shown_seats(state: Any) -> set[int]:
    """The seats whose cards every view shows: the AI's, under reveal_ai_hands."""
    if not state.rules.reveal_ai_hands:
        return set()
    return {i for i, seat in enumerate(state.seats) if seat.kind == "ai"}


def _shown_hand(state: Any, seat: int) -> list[str] | None:
    if seat not in _shown_seats(state) or state.status == "waiting":
        return None
    return [] if state.status == "finished" else [NAME[c] for c in state.hands[seat]]


async def _create(api: InProcess, variant: Variant, record: ReliabilityRecord) -> Table:
    body: dict[str, Any] = {"seats": variant.seats, "rules": variant.rules}
    if not variant.secret:
        body["seed"] = variant.seed
    key = f"secrecy-create-{variant.seed:04d}"
    created = await api.client.post("/v1/matches", json=body, headers={"Idempotency-Key": key})
    record.requests += 1
    assert created.status_code == 201, created.text
    answer = created.json()
    # The create answer's match is the spectator view.
    assert answer["match"]["hand"] is None
    assert answer["match"]["you"] is None
    viewers = [Viewer(None, None)] + [Viewer(t["seat"], t["token"]) for t in answer["tokens"]]
    table = Table(api, answer["match"]["id"], viewers, record, variant.secret, keys=[key])
    table.answers.append(created.text)
    return table


async def play(table: Table, rng: random.Random, moves: int | None = None) -> None:
    """Play the human seats' moves, a legal one picked at random, checking after each,
    to the end (or ``moves`` of them).

    The checks run while the match stands still (a human's turn, or the end): while an
    AI seat is to play, the state may change between two reads."""
    tokens = {v.seat: v.token for v in table.viewers if v.seat is not None}
    stop = None if moves is None else table.moves + moves
    while True:
        state = await table.truth()
        for _ in range(AI_READS):
            if state.status != "active" or state.turn in tokens:
                break
            await asyncio.sleep(0.005)
            state = await table.truth()
        else:
            raise AssertionError("the AI never handed the turn back")
        state = await table.check_everyone()
        if state.status != "active" or table.moves == stop:
            return
        token = tokens[state.turn]
        move = rng.choice(table.views[state.turn]["legal_moves"])
        headers = {**_bearer(token), "If-Match": f'"{state.version}"'}
        if rng.random() < 0.5:
            headers["Idempotency-Key"] = f"move-{table.match_id[:6]}-{table.moves:03d}"
            table.keys.append(headers["Idempotency-Key"])
        answer = await table.api.client.post(
            f"/v1/matches/{table.match_id}/moves",
            json={"card": move["card"], "capture": move["capture"]},
            headers=headers,
        )
        table.record.requests += 1
        table.answers.append(answer.text)
        assert answer.status_code == 200, answer.text
        table.moves += 1


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.name for v in VARIANTS])
async def test_no_viewer_learns_a_hidden_card(
    variant: Variant, sqlite_url: str, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = f"secrecy ({variant.name})"
    async with serve(sqlite_url, stream_seconds=5.0) as api:
        table = await _create(api, variant, reliability_log)
        await play(table, random.Random(variant.seed))
        await table.check_streams()
        await table.check_record()
        finished = (await table.truth()).status == "finished"
    reliability_log.cases = 1
    reliability_log.failures = len(table.breaches)
    reliability_log.notes = f"{table.moves} moves, {len(table.viewers)} viewers each"
    assert finished
    assert table.moves >= 10
    assert not table.breaches, "\n".join(table.breaches[:20])


class Clock:
    """The service's clock, moved by the test past a turn's deadline."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


ENDINGS = ["resign", "abort", "forfeit", "autoplay"]


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("ending", ENDINGS)
async def test_a_match_that_ends_early_shows_no_hidden_card(
    ending: str, players: int, sqlite_url: str, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = f"secrecy ({players}p, {ending})"
    seed = 20 + players + ENDINGS.index(ending)
    rules: dict[str, Any] = {}
    if ending in ("forfeit", "autoplay"):
        rules = {"turn_seconds": 5, "on_timeout": ending}
    clock = Clock()
    rng = random.Random(seed)
    async with serve(sqlite_url, stream_seconds=0.2, clock=clock) as api:
        variant = Variant(f"{players}p {ending}", [HUMAN] * players, rules, seed)
        table = await _create(api, variant, reliability_log)
        await table.check_everyone()
        if ending != "abort":
            await play(table, rng, moves=5)  # into the deal, hands part played
        if ending in ("resign", "abort"):
            await _end_by_request(table, ending, rng)
        while (await table.truth()).status == "active":
            clock.now += 5
            await api.service.moments.enforce(table.match_id)
            await table.check_everyone()
        await table.check_streams()
        state = await table.truth()
    reliability_log.cases = 1
    reliability_log.failures = len(table.breaches)
    assert state.status == "finished"
    reasons = {"resign": "resigned", "abort": "aborted", "forfeit": "timeout"}
    assert state.end_reason == reasons.get(ending, "timeout")
    assert state.deal_scores == ()  # ended before its first deal was scored
    assert not table.breaches, "\n".join(table.breaches[:20])


async def _end_by_request(table: Table, how: str, rng: random.Random) -> None:
    """A random seat resigns or aborts; its answer is checked like any view of it."""
    viewer = rng.choice([v for v in table.viewers if v.seat is not None])
    answer = await table.api.client.post(
        f"/v1/matches/{table.match_id}/{how}", headers=_bearer(viewer.token)
    )
    table.record.requests += 1
    assert answer.status_code == 200, answer.text
    state = await table.truth()
    hands = [{NAME[c] for c in hand} for hand in state.hands]
    secret = {NAME[c] for c in state.stock}.union(
        *(h for seat, h in enumerate(hands) if seat != viewer.seat)
    )
    assert secret, "the deal stopped short: cards are left to hide"
    table.check_answer(viewer, answer.json(), state, hands, secret)
    await table.check_everyone()


ROUTES = [
    ("GET", ""),
    ("GET", "/scores"),
    ("GET", "/hint"),
    ("GET", "/events"),
    ("GET", "/events/stream"),
    ("POST", "/moves"),
    ("POST", "/resign"),
    ("POST", "/abort"),
    ("POST", "/seats/1/join"),
    ("GET", "/record"),
    ("POST", "/rematch"),
]
# Join reads a token only as a claim on a reserved seat: a foreign one finds the seat taken.
REFUSED_AS = {"/seats/1/join": (409, "seat-not-open")}


async def test_a_token_works_on_its_own_match_only(
    sqlite_url: str, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "secrecy (tokens across matches)"
    async with serve(sqlite_url, stream_seconds=0.2) as api:
        matches = []
        for _ in range(2):
            created = await api.client.post(
                "/v1/matches", json={"seats": [HUMAN, {"kind": "open"}]}
            )
            assert created.status_code == 201
            match_id = created.json()["match"]["id"]
            joined = await api.client.post(f"/v1/matches/{match_id}/seats/1/join")
            assert joined.status_code == 200
            tokens = [created.json()["tokens"][0]["token"], joined.json()["token"]]
            matches.append((match_id, tokens))
        wrong = []
        for (match_id, _), (_, others) in [(matches[0], matches[1]), (matches[1], matches[0])]:
            for token in others:
                for method, path in ROUTES:
                    body = {"card": "7D"} if path == "/moves" else None
                    for where in ("header", "query"):
                        if where == "query" and not path.startswith("/events"):
                            continue
                        url = f"/v1/matches/{match_id}{path}"
                        headers = _bearer(token) if where == "header" else {}
                        params = {"token": token} if where == "query" else {}
                        answer = await api.client.request(
                            method, url, headers=headers, params=params, json=body
                        )
                        reliability_log.requests += 1
                        reliability_log.cases += 1
                        status, problem = REFUSED_AS.get(path, (401, "invalid-token"))
                        if answer.status_code != status or problem not in answer.text:
                            got = answer.status_code
                            wrong.append(f"{method} {path} by {where}: {got} {answer.text[:200]}")
    reliability_log.failures = len(wrong)
    assert not wrong, "\n".join(wrong)


async def test_a_reserved_seat_goes_to_its_old_token_alone(
    sqlite_url: str, reliability_log: ReliabilityRecord
) -> None:
    reliability_log.check = "secrecy (reserved seats)"
    async with serve(sqlite_url, stream_seconds=0.2) as api:
        tables = []
        for seed in (21, 22):
            table = await _create(
                api, Variant("2p", [HUMAN] * 2, {"target": 1}, seed), reliability_log
            )
            await play(table, random.Random(seed))
            tables.append(table)
        mine, theirs = ({v.seat: v.token for v in t.viewers if v.token} for t in tables)
        made = await api.client.post(
            f"/v1/matches/{tables[0].match_id}/rematch", headers=_bearer(mine[0])
        )
        assert made.status_code == 201, made.text
        new_id = made.json()["match"]["id"]
        new_view = made.json()["match"]
        wrong = []
        if new_view["fairness"]["seed"] is not None or _cards(new_view):
            wrong.append(f"the waiting rematch shows {new_view}")
        url = f"/v1/matches/{new_id}/seats/1/join"
        strangers = [None, "forged", theirs[0], theirs[1], mine[0], made.json()["token"]]
        for token in strangers:
            answer = await api.client.post(url, headers=_bearer(token))
            reliability_log.requests += 1
            reliability_log.cases += 1
            if answer.status_code != 409 or "seat-not-open" not in answer.text:
                wrong.append(f"join by {token and token[:6]}: {answer.status_code} {answer.text}")
        for token in theirs.values():
            answer = await api.client.post(
                f"/v1/matches/{tables[0].match_id}/rematch", headers=_bearer(token)
            )
            if answer.status_code != 401:
                wrong.append(f"rematch by another match's token: {answer.status_code}")
        record = (await api.client.get(f"/v1/matches/{new_id}/record")).status_code
        if record != 409:
            wrong.append(f"the waiting rematch's record answered {record}")
        claimed = await api.client.post(url, headers=_bearer(mine[1]))
        if claimed.status_code != 200:
            wrong.append(f"the old token's claim: {claimed.status_code} {claimed.text}")
    reliability_log.failures = len(wrong)
    assert not wrong, "\n".join(wrong)


async def _stored_cells(url: str) -> list[tuple[str, bytes]]:
    """Every cell of every table, as ("table.column", its bytes)."""
    engine = make_engine(url)
    cells: list[tuple[str, bytes]] = []
    try:
        async with engine.connect() as conn:
            names = await conn.run_sync(lambda c: inspect(c).get_table_names())
            for name in names:
                result = await conn.execute(text(f'SELECT * FROM "{name}"'))
                columns = list(result.keys())
                cells += [
                    (f"{name}.{column}", _bytes(value))
                    for row in result
                    for column, value in zip(columns, row, strict=True)
                ]
    finally:
        await engine.dispose()
    return cells


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return str(value).encode()


def _shown(text: str | bytes, hidden: dict[str, str]) -> list[str]:
    """The names of the ``hidden`` values (name: value) found in ``text``."""
    data = text if isinstance(text, bytes) else text.encode()
    return [name for name, secret in hidden.items() if secret.encode() in data]


async def test_no_token_nor_key_is_stored_or_logged(
    database_url: str, caplog: pytest.LogCaptureFixture, reliability_log: ReliabilityRecord
) -> None:
    """After creates, joins, moves, a rematch and a claim, each with an Idempotency-Key,
    and a replay of a join: no token and no key is in any cell of any table (nor, on
    SQLite, anywhere in the file), and none is in any log record of the process at DEBUG,
    SQLAlchemy's statements and the driver's included."""
    reliability_log.check = "secrecy (tokens and keys at rest and in logs)"
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.engine")  # what echo=True shows
    async with serve(database_url, stream_seconds=0.2) as api:
        variant = Variant("2p", [HUMAN, {"kind": "open"}], {"target": 1}, 11)
        table = await _create(api, variant, reliability_log)
        join = f"/v1/matches/{table.match_id}/seats/1/join"
        key = {"Idempotency-Key": str(uuid.uuid4())}
        joined = await api.client.post(join, headers=key)
        assert joined.status_code == 200
        replayed = await api.client.post(join, headers=key)
        assert replayed.json() == joined.json()
        table.keys.append(key["Idempotency-Key"])
        table.viewers.append(Viewer(1, joined.json()["token"]))
        await play(table, random.Random(11))
        assert not table.breaches, "\n".join(table.breaches[:20])
        old = {v.seat: v.token for v in table.viewers if v.token}
        made = await api.client.post(
            f"/v1/matches/{table.match_id}/rematch",
            headers={**_bearer(old[1]), "Idempotency-Key": str(uuid.uuid4())},
        )
        assert made.status_code == 201, made.text
        claim_key = str(uuid.uuid4())
        claimed = await api.client.post(
            f"/v1/matches/{made.json()['match']['id']}/seats/0/join",
            headers={**_bearer(old[0]), "Idempotency-Key": claim_key},
        )
        assert claimed.status_code == 200, claimed.text
        table.keys += [made.request.headers["Idempotency-Key"], claim_key]
    tokens = [*old.values(), made.json()["token"], claimed.json()["token"]]
    hidden = {f"token {i}": token for i, token in enumerate(tokens)}
    hidden |= {f"key {key!r}": key for key in table.keys}
    assert len(table.keys) > 5  # the create's, the join's, some moves', the rematch's, a claim's

    cells = await _stored_cells(database_url)
    hashes = sorted(value for name, value in cells if name == "seats.token_hash")
    assert hashes == sorted(hashlib.sha256(t.encode()).hexdigest().encode() for t in tokens)
    answers = [value for name, value in cells if name == "idempotency.body"]
    assert len(answers) == len(table.keys)  # every keyed answer was kept, and scanned
    wrong = [f"{where} holds {name}" for where, value in cells for name in _shown(value, hidden)]
    if database_url.startswith("sqlite"):
        path = Path(make_url(database_url).database or "")
        files = b"".join(f.read_bytes() for f in path.parent.glob(f"{path.name}*"))
        wrong += [f"the SQLite file holds {name}" for name in _shown(files, hidden)]
    # The test's own HTTP client logs the URLs it calls, ?token= and all: not the server's.
    logged = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    assert any(r.levelno == logging.DEBUG and r.name.startswith("sqlalchemy") for r in logged)
    formatter = JsonFormatter()
    wrong += [
        f"a {r.levelname} line of {r.name} holds {name}"
        for r in logged
        for name in _shown(formatter.format(r), hidden)
    ]
    reliability_log.cases = len(hidden)
    reliability_log.failures = len(wrong)
    reliability_log.notes = f"{len(cells)} stored cells and {len(logged)} log records scanned"
    assert not wrong, "\n".join(sorted(set(wrong)))


async def test_a_replayed_key_yields_tokens_only_to_whoever_holds_it(
    database_url: str, reliability_log: ReliabilityRecord
) -> None:
    """Another client (another address) replaying the first client's requests, with every
    near miss of its keys and with the very keys and bodies, gets none of its tokens: a
    key is its caller's, so from anyone else it is a fresh request. The first client's
    own retry gets its first answer."""
    reliability_log.check = "secrecy (idempotent replays from another client)"
    seats = [HUMAN, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}]
    body = {"seats": seats, "rules": {"target": 1}, "seed": 12}
    create_key, join_key = str(uuid.uuid4()), str(uuid.uuid4())
    async with serve(database_url) as api, api.client_at("127.0.0.2") as other:
        first = await api.client.post(
            "/v1/matches", json=body, headers={"Idempotency-Key": create_key}
        )
        assert first.status_code == 201
        match_id = first.json()["match"]["id"]
        join = f"/v1/matches/{match_id}/seats/{{seat}}/join"
        joined = await api.client.post(join.format(seat=1), headers={"Idempotency-Key": join_key})
        assert joined.status_code == 200
        theirs = {"the create's token": first.json()["tokens"][0]["token"]}
        theirs["the join's token"] = joined.json()["token"]

        near = create_key[:-1] + ("0" if create_key[-1] != "0" else "1")
        attempts = [
            ("create without a key", "/v1/matches", body, None, 201),
            ("create, another key", "/v1/matches", body, str(uuid.uuid4()), 201),
            ("create, the key but its last character", "/v1/matches", body, near, 201),
            ("create, the key's first 16 characters", "/v1/matches", body, create_key[:16], 201),
            ("create, the key in capitals", "/v1/matches", body, create_key.upper(), 201),
            ("create, the very key and body", "/v1/matches", body, create_key, 201),
            # The key is this client's own now, first sent with the body above.
            ("create, the key, another body", "/v1/matches", {**body, "seed": 13}, create_key, 422),
            ("create, the join's key", "/v1/matches", body, join_key, 201),
            ("join seat 1 without a key", join.format(seat=1), None, None, 409),
            ("join seat 1, another key", join.format(seat=1), None, str(uuid.uuid4()), 409),
            ("join seat 1, the create's key", join.format(seat=1), None, create_key, 409),
            ("join seat 1, the very key", join.format(seat=1), None, join_key, 409),
            ("join seat 2, the join's key", join.format(seat=2), None, join_key, 200),
        ]
        wrong = []
        for name, path, sent, key, status in attempts:
            headers = {} if key is None else {"Idempotency-Key": key}
            answer = await other.post(path, json=sent, headers=headers)
            reliability_log.requests += 1
            reliability_log.cases += 1
            if answer.status_code != status:
                wrong.append(f"{name}: {answer.status_code}, not {status}: {answer.text[:200]}")
            if leaked := _shown(answer.text, theirs):
                wrong.append(f"{name}: the answer holds {', '.join(leaked)}")
            if answer.status_code == 201 and answer.json()["match"]["id"] == match_id:
                wrong.append(f"{name}: the first client's match")

        # The first client's own retry: the first answer, tokens and all.
        again = await api.client.post(
            "/v1/matches", json=body, headers={"Idempotency-Key": create_key}
        )
        rejoined = await api.client.post(join.format(seat=1), headers={"Idempotency-Key": join_key})
    reliability_log.requests += 2
    reliability_log.failures = len(wrong)
    assert not wrong, "\n".join(wrong)
    assert again.status_code == 201
    assert again.json() == first.json()
    assert rejoined.status_code == 200
    assert rejoined.json() == joined.json()


@pytest.mark.slow
def test_no_log_line_of_the_served_process_holds_a_token_or_a_key(
    tmp_path: Path, reliability_log: ReliabilityRecord
) -> None:
    """``scopa serve`` at DEBUG (uvicorn's logs and ours as configured): creates, joins,
    replays, moves, hints, polls and streams with tokens in the header and in ``?token=``,
    and the refusals of forged ones and of a short key; then every line of its output."""
    reliability_log.check = "secrecy (no token or key in the served process's log)"
    server = start_server(
        f"sqlite+aiosqlite:///{tmp_path / 'served.db'}",
        tmp_path,
        {"SCOPA_LOG_LEVEL": "DEBUG", "SCOPA_STREAM_SECONDS": "1"},
    )
    hidden: dict[str, str] = {}
    statuses: list[int] = []
    try:
        with httpx.Client(base_url=server.base_url, timeout=15) as http:

            def send(method: str, path: str, **kwargs: Any) -> httpx.Response:
                answer = http.request(method, path, **kwargs)
                statuses.append(answer.status_code)
                return answer

            body = {"seats": [HUMAN, {"kind": "open"}], "rules": {"target": 1}, "first_dealer": 1}
            hidden["the create's key"] = create_key = str(uuid.uuid4())
            created = send(
                "POST", "/v1/matches", json=body, headers={"Idempotency-Key": create_key}
            )
            send("POST", "/v1/matches", json=body, headers={"Idempotency-Key": create_key})
            send(
                "POST",
                "/v1/matches",
                json={**body, "seed": 1},
                headers={"Idempotency-Key": create_key},
            )
            match_id = created.json()["match"]["id"]
            hidden["seat 0's token"] = created.json()["tokens"][0]["token"]
            hidden["the join's key"] = join_key = str(uuid.uuid4())
            join = f"/v1/matches/{match_id}/seats/1/join"
            joined = send("POST", join, headers={"Idempotency-Key": join_key})
            send("POST", join, headers={"Idempotency-Key": join_key})
            hidden["seat 1's token"] = joined.json()["token"]
            hidden["a short key"] = short = secrets.token_urlsafe(11)
            send("POST", "/v1/matches", json=body, headers={"Idempotency-Key": short})
            hidden["a forged token"] = forged = secrets.token_urlsafe(32)
            send("GET", f"/v1/matches/{match_id}", headers=_bearer(forged))
            send("GET", f"/v1/matches/{match_id}/events", params={"token": forged})
            send("GET", f"/v1/matches/{match_id}/nowhere", params={"token": forged})
            tokens = [hidden["seat 0's token"], hidden["seat 1's token"]]
            for token in tokens:
                send("GET", f"/v1/matches/{match_id}/events", params={"token": token, "wait": 1})
                send("GET", f"/v1/matches/{match_id}/events/stream", params={"token": token})
            for turn in range(4):
                token = tokens[turn % 2]
                send("GET", f"/v1/matches/{match_id}/hint", headers=_bearer(token))
                view = send("GET", f"/v1/matches/{match_id}", headers=_bearer(token)).json()
                move = view["legal_moves"][0]
                hidden[f"move {turn}'s key"] = key = str(uuid.uuid4())
                for _ in range(2):
                    send(
                        "POST",
                        f"/v1/matches/{match_id}/moves",
                        json={"card": move["card"], "capture": move["capture"]},
                        headers={**_bearer(token), "Idempotency-Key": key},
                    )
    finally:
        server.assert_stops_cleanly()
    log = server.log_text()
    lines = log.splitlines()
    reliability_log.requests = len(statuses)
    reliability_log.cases = len(hidden)
    wrong = [
        f"line {n} holds {name}" for n, line in enumerate(lines) for name in _shown(line, hidden)
    ]
    reliability_log.failures = len(wrong)
    reliability_log.notes = f"{len(lines)} log lines scanned"
    assert {200, 201, 400, 401, 404, 422} <= set(statuses), statuses
    assert '"level":"DEBUG"' in log
    assert not wrong, "\n".join(wrong)
