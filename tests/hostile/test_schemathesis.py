"""Schemathesis against the committed openapi/openapi.json, on the in-process app over a
SQLite store, configured by schemathesis.toml at the repository root.

One engine run, as ``st run --checks all`` with every phase does it, with the hooks of
schemathesis_hooks.py: the examples, coverage and fuzzing phases send valid and invalid
requests to every operation, and the stateful phase wanders along the document's links.
Every check is on; the only allowances are the per-operation statuses schemathesis.toml
lists for requests that fit the schema but not the match. Any failure fails the test, and
so does an operation that refuses every schema-valid request it is sent, mostly as
invalid (which ``st run`` only warns of). Afterwards every match the run made must still
have an event log without gaps.

The stateful phase picks links at random, so it plays a move only now and then. The
walks below follow the same links on purpose, from the document's own create examples,
and play whole matches with nothing but what the links carry over, every answer put
through the same checks.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import sqlite3
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import schemathesis
from litestar.enums import ScopeType
from schemathesis import engine
from schemathesis.cli.commands.run.warnings import (
    StatusCodeStatistic,
    aggregate_status_codes,
    all_positive_are_rejected,
)
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events
from schemathesis.python import asgi

from scopa.api.app import create_app
from scopa.infra.ai_runner import AiRunner
from scopa.infra.db import DatabaseUnavailable, make_engine
from scopa.infra.notify import LocalEventBus
from scopa.infra.settings import Settings
from scopa.infra.stores import sql_stores
from scopa.service.feed import MAX_EVENTS
from scopa.wiring import services_over
from tests.fakes import FirstMoveAi
from tests.hostile import schemathesis_hooks  # its hooks and auth, as `st run` loads them

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send
    from schemathesis.specs.openapi.schemas import OpenApiCase

    from tests.support.reliability import ReliabilityRecord

# A hang fails the test, with every thread's stack, instead of holding up the run. Alone,
# in pytest's own process: on an xdist worker (execnet's frames under the test) the run
# met CPython 3.11.7's AST constructor bug, a depth count left wrong after a recursion
# error (python/cpython#106905, fixed in later releases), and the worker died with
# "SystemError: AST constructor recursion depth mismatch" in hypothesis's report hook.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(400), pytest.mark.alone, pytest.mark.untraced]

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT_PATH = ROOT / "openapi" / "openapi.json"
DOCUMENT = json.loads(DOCUMENT_PATH.read_text())
CONFIG = ROOT / "schemathesis.toml"
# Long-polls hold up to 30 s by contract, with nothing to check while they hold; the run
# keeps the waits it generates, capped at this, so it ends in a bounded time.
LONGEST_WAIT = 0.05
PHASES = {"EXAMPLES", "COVERAGE", "FUZZING", "STATEFUL_TESTING"}
ALL_CHECKS = {
    "not_a_server_error", "status_code_conformance", "content_type_conformance",
    "response_headers_conformance", "response_schema_conformance", "negative_data_rejection",
    "positive_data_acceptance", "missing_required_header", "unsupported_method",
    "allow_header_conformance", "use_after_free", "ensure_resource_availability",
    "ignored_auth", "object_level_authorization", "max_response_time",
}  # fmt: skip
# A seat waits this long at most for the AI to play before its hint is its own again.
AI_PATIENCE = 5.0


class Answers:
    """The app, counting its answers by method, route (as the document names it) and status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.counts: Counter[tuple[str, str, int]] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        status = 0

        async def counted(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        await self.app(scope, receive, counted)
        if scope["type"] == ScopeType.HTTP:
            # Litestar's template may say {match_id:str} where the document says {match_id}.
            route = re.sub(r":\w+\}", "}", scope.get("path_template") or "(no route)")
            self.counts[(scope["method"], route, status)] += 1

    def succeeded(self, method: str, route: str) -> int:
        return sum(
            n for (m, r, s), n in self.counts.items() if (m, r) == (method, route) and s < 300
        )


@dataclass
class Served:
    answers: Answers
    database: Path

    def schema(self, headers: dict[str, str] | None = None) -> Any:
        """The document under schemathesis.toml, with what `st run --checks all --phases
        examples,coverage,fuzzing,stateful` adds on the command line (and `-H`, the
        ``headers`` every request carries)."""
        config = SchemathesisConfig.from_path(CONFIG)
        config.projects.override.checks.update(included_check_names=["all"])
        config.projects.override.phases.update(
            phases=["examples", "coverage", "fuzzing", "stateful"]
        )
        if headers is not None:
            config.projects.override.update(headers=headers)
        schema = schemathesis.openapi.from_path(DOCUMENT_PATH, config=config)
        schema.app = self.answers
        return schema


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Served]:
    """The app over a SQLite file, its AI seats played at once by the first legal move."""
    path = tmp_path_factory.mktemp("schemathesis") / "scopa.db"
    shutil.copyfile(sqlite_template, path)
    database = make_engine(f"sqlite+aiosqlite:///{path}")
    store = sql_stores(database)
    runner: AiRunner[str] = AiRunner(poll_seconds=0.2)
    service = services_over(store, LocalEventBus(), ai=FirstMoveAi(), on_change=runner.kick)

    async def start() -> None:
        await runner.start(service.ai_work.play_ai_turn, store.ai_turns.claim_ai_turn)

    async def stop() -> None:
        await runner.stop()
        await database.dispose()

    app = create_app(
        Settings(stream_seconds=0.1).without_limits(),
        service,
        unavailable=(DatabaseUnavailable,),
        on_startup=[start],
        on_shutdown=[stop],
    )
    try:
        yield Served(Answers(app), path)
    finally:
        # Schemathesis runs the app's lifespan in an event loop thread of its own.
        asgi.shutdown_lifespans()


# -- the engine run -----------------------------------------------------------------------


@dataclass
class Run:
    answers: Answers
    cases: Counter[str] = field(default_factory=Counter)
    checks: Counter[str] = field(default_factory=Counter)
    operations: set[str] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped_phases: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    matches: int = 0


def _short_waits(_ctx: Any, case: OpenApiCase, _kwargs: dict[str, Any]) -> None:
    if case.operation.definition.raw.get("operationId") != "listEvents":
        return
    wait = case.query.get("wait") if isinstance(case.query, dict) else None
    if isinstance(wait, int | float) and not isinstance(wait, bool) and 0 <= wait <= 30:
        case.query["wait"] = min(wait, LONGEST_WAIT)


def _joining_as_the_player(_ctx: Any, case: OpenApiCase, _kwargs: dict[str, Any]) -> None:
    """A player's seat shows the player's own name: a join with a player token and a
    `name` is a 422 by contract (tests/api/test_players.py), so the run as a player joins
    without one, and each join it sends can be taken."""
    joining = case.operation.definition.raw.get("operationId") == "joinSeat"
    positive = case.meta is not None and not case.meta.generation.mode.is_negative
    if joining and positive and isinstance(case.body, dict):
        case.body.pop("name", None)


def _record(run: Run, event: events.ScenarioFinished) -> None:
    recorder = event.recorder
    run.cases[event.phase.name] += len(recorder.cases)
    for node in recorder.cases.values():
        run.operations.add(node.value.operation.definition.raw.get("operationId", "?"))
    # `st run` warns of it ("mostly rejected generated data") and does not fail: here it
    # does, as it means the document allows what the server refuses. As there, for the
    # phases that test one operation at a time (a stateful scenario spans several). Here
    # a request that does not fit is a 400 validation-error, and a 422 is the game's
    # answer to one that fits (a card not in the hand, an impossible setup), declared per
    # operation in schemathesis.toml: "invalid" means the 400s.
    positive = aggregate_status_codes(recorder, positive_only=True)
    refused_by_the_game = positive.counts.pop(422, 0)
    fitting = StatusCodeStatistic(positive.counts, positive.total - refused_by_the_game)
    if (
        event.phase.name != "STATEFUL_TESTING"
        and event.status == engine.Status.SUCCESS
        and all_positive_are_rejected(recorder)
        and fitting.should_warn_about_validation_mismatch()
    ):
        run.failures.append(
            f"[{event.phase.name}] {recorder.label} rejected every schema-valid request, "
            "mostly as invalid (400)"
        )
    for results in recorder.checks.values():
        for check in results:
            run.checks[check.name] += 1
            info = check.failure_info
            if check.status == engine.Status.FAILURE and info is not None:
                run.failures.append(
                    f"[{event.phase.name}] {check.name}: {info.failure.title}\n"
                    f"{info.failure.message}\n{info.code_sample}"
                )


async def _check_logs(database: Path, run: Run) -> None:
    """Every match the run made: seqs 1..N without a gap or a double, N at least the
    match's own seq. The server still plays its AI-only matches meanwhile: the state is
    read first, so the log read after it may hold moves made in between, never fewer."""
    url = f"sqlite+aiosqlite:///{database}"
    connection = make_engine(url)
    store = sql_stores(connection)
    try:
        with sqlite3.connect(database) as conn:
            ids = [row[0] for row in conn.execute("SELECT id FROM matches")]
        run.matches = len(ids)
        for match_id in ids:
            record = await store.matches.get(match_id)
            assert record is not None
            seqs: list[int] = []
            while page := await store.reads.events(match_id, seqs[-1] if seqs else 0, MAX_EVENTS):
                seqs.extend(e.seq for e in page)
            if seqs != list(range(1, len(seqs) + 1)) or len(seqs) < record.state.seq:
                run.gaps.append(f"{match_id}: seqs {seqs} for seq {record.state.seq}")
    finally:
        await connection.dispose()


def _engine_run(served: Served, headers: dict[str, str] | None) -> Run:
    result = Run(served.answers)
    schema = served.schema(headers)
    hooks = [schemathesis.hook("before_call")(_short_waits)]
    if headers is not None:
        hooks.append(schemathesis.hook("before_call")(_joining_as_the_player))
    try:
        for event in engine.from_schema(schema).execute():
            if isinstance(event, events.ScenarioFinished):
                _record(result, event)
            elif isinstance(event, events.NonFatalError):
                result.errors.append(f"{event.info.title}: {event.info.message}")
            elif isinstance(event, events.FatalError):  # it has no info: its exception
                result.errors.append(f"{type(event.exception).__name__}: {event.exception}")
            elif isinstance(event, events.PhaseFinished) and event.status == engine.Status.SKIP:
                result.skipped_phases.append(f"{event.phase.name}: {event.phase.skip_reason}")
            elif isinstance(event, events.EngineFinished):
                result.failures.extend(
                    f"[after run] {f.title}: {f.message}" for f in event.failures
                )
    finally:
        for hook in hooks:
            schemathesis.hooks.unregister(hook)
    asyncio.run(_check_logs(served.database, result))
    return result


def _registered_player(served: Served) -> dict[str, str]:
    """A player's Authorization, as `st run -H` would send it on every request. The
    player holds a seat in a match left waiting, so the run's DELETE /v1/me is a 409
    player-busy and every other request of the run still meets a live player."""
    walker = Walker(served.schema())
    registered = walker.send("registerPlayer", body={"handle": "fuzzed", "kind": "bot"})
    assert _status(registered) == 201, registered.body
    headers = {"Authorization": f"Bearer {registered.body['token']['token']}"}
    seats = [{"kind": "human"}, {"kind": "open"}]
    waiting = walker.send("createMatch", headers=headers, body={"seats": seats})
    assert (_status(waiting), waiting.body["match"]["status"]) == (201, "waiting")
    return headers


@pytest.fixture(scope="module", params=["anonymous", "as a player"])
def run(served: Served, request: pytest.FixtureRequest) -> Run:
    """The engine run anonymously, then again with a registered player's token."""
    return _engine_run(served, None if request.param == "anonymous" else _registered_player(served))


def test_the_server_keeps_its_document(run: Run, reliability_log: ReliabilityRecord) -> None:
    reliability_log.check = "schemathesis"
    reliability_log.cases = sum(run.cases.values())
    reliability_log.requests = run.answers.counts.total()
    reliability_log.failures = len(run.failures) + len(run.errors) + len(run.gaps)
    reliability_log.notes = (
        f"{len(run.operations)} operations, {len(run.checks)} checks "
        f"({run.checks.total()} results), {run.matches} matches; "
        + ", ".join(f"{phase.lower()} {n}" for phase, n in sorted(run.cases.items()))
    )
    assert not run.errors, "\n\n".join(run.errors)
    assert not run.failures, "\n\n".join(run.failures)
    assert not run.gaps, "\n".join(run.gaps)


def test_every_operation_phase_and_check_ran(run: Run) -> None:
    assert not run.skipped_phases
    assert set(run.cases) == PHASES
    documented = {
        operation["operationId"]
        for item in DOCUMENT["paths"].values()
        for operation in item.values()
    }
    assert run.operations == documented
    # `--checks all`: each of them, max_response_time included, judged some answer.
    assert set(run.checks) >= ALL_CHECKS, ALL_CHECKS - set(run.checks)
    assert schemathesis_hooks.ISSUED, "no answer carried a token for the links to use"


# -- the walks along the links ------------------------------------------------------------


@dataclass
class Step:
    """A request sent and its answer, for runtime expressions to read."""

    operation_id: str
    path_parameters: dict[str, Any]
    headers: dict[str, str]
    response: Any

    @property
    def body(self) -> Any:
        return self.response.json()


_EXPRESSION = re.compile(r"\{(\$[^}]+)\}")


def _evaluate(expression: Any, step: Step) -> Any:
    """An OpenAPI runtime expression, or a string embedding some in braces."""
    if isinstance(expression, dict):
        return {key: _evaluate(value, step) for key, value in expression.items()}
    if not isinstance(expression, str) or "$" not in expression:
        return expression
    if _EXPRESSION.search(expression):
        return _EXPRESSION.sub(lambda m: str(_evaluate(m[1], step)), expression)
    source, _, pointer = expression.partition("#")
    if source == "$response.body":
        value = step.body
        for token in pointer.split("/")[1:]:
            value = value[int(token)] if isinstance(value, list) else value[token]
        return value
    if source.startswith("$request.path."):
        return step.path_parameters[source.removeprefix("$request.path.")]
    if source.startswith("$request.header."):
        return step.headers[source.removeprefix("$request.header.")]
    if source.startswith("$response.header."):
        values = step.response.headers[source.removeprefix("$response.header.").lower()]
        return values[0] if isinstance(values, list) else values
    raise AssertionError(f"unknown runtime expression {expression}")


def _parameter_location(operation_id: str, name: str) -> str:
    for item in DOCUMENT["paths"].values():
        for operation in item.values():
            if operation["operationId"] == operation_id:
                found: str = next(p["in"] for p in operation["parameters"] if p["name"] == name)
                return found
    raise AssertionError(f"no operation {operation_id}")


@dataclass
class Walker:
    schema: Any
    requests: int = 0

    def send(
        self,
        operation_id: str,
        path_parameters: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        query: dict[str, Any] | None = None,
        body: Any = None,
    ) -> Step:
        """One request, its answer put through every check the configuration enables.

        The token goes in as the caller's own header, so that ignored_auth knows it for
        a real one and checks that the request without it is refused."""
        case = self.schema.find_operation_by_id(operation_id).Case(
            path_parameters=path_parameters or {},
            query=query or {},
            **({"body": body} if body is not None else {}),
        )
        response = case.call_and_validate(headers=headers or None)
        self.requests += 1
        return Step(operation_id, path_parameters or {}, headers or {}, response)

    def follow(self, step: Step, link: str) -> Step:
        status = str(step.response.status_code)
        operation = next(
            op
            for item in DOCUMENT["paths"].values()
            for op in item.values()
            if op["operationId"] == step.operation_id
        )
        definition = operation["responses"][status]["links"][link]
        target = definition["operationId"]
        places: dict[str, dict[str, Any]] = {"path": {}, "header": {}, "query": {}}
        for name, expression in definition.get("parameters", {}).items():
            where, _, plain = name.rpartition(".")
            places[where or _parameter_location(target, plain)][plain] = _evaluate(expression, step)
        body = _evaluate(definition["requestBody"], step) if "requestBody" in definition else None
        return self.send(target, places["path"], places["header"], places["query"], body)


def _example(name: str) -> Any:
    create = DOCUMENT["paths"]["/v1/matches"]["post"]
    return create["requestBody"]["content"]["application/json"]["examples"][name]["value"]


def _status(step: Step) -> int:
    return int(step.response.status_code)


def _problem(step: Step) -> str:
    return str(step.body["type"].rsplit("/", 1)[1])


def _hint_when_my_turn(walker: Walker, step: Step, link: str) -> Step:
    """Follow ``link`` to the seat's hint, again while the AI seats are still to play."""
    deadline = time.monotonic() + AI_PATIENCE
    while True:
        hint = walker.follow(step, link)
        if _status(hint) == 200 or _problem(hint) != "not-your-turn":
            return hint
        assert time.monotonic() < deadline, "the AI never played"
        time.sleep(0.01)


def _finish(walker: Walker, created: Step, last_move: Step) -> list[Any]:
    """The finished match's views and events, through the links, checked as they come."""
    view = walker.follow(last_move, "getMatch")
    assert view.body["status"] == "finished"
    assert walker.follow(view, "getScores").body["winner"] == view.body["winner"]
    events_page = walker.follow(last_move, "listEvents").body
    assert events_page["events"][-1]["type"] == "match_finished"
    assert _status(walker.follow(view, "streamEvents")) == 200
    spectators = walker.follow(created, "listEvents").body["events"]
    assert [e["seq"] for e in spectators] == [e["seq"] for e in events_page["events"]]
    record = walker.follow(view, "getRecord")
    assert _status(record) == 200
    assert record.body["match"]["scores"] == view.body["scores"]
    review = walker.follow(view, "getReview")
    assert _status(review) == 200, review.body
    assert review.body["seat"] == 0
    again = walker.follow(created, "rematchMatch")
    assert _status(again) == 201, again.body
    assert _status(walker.follow(again, "getMatch")) == 200
    return list(events_page["events"])


@dataclass
class Walked:
    moves: int  # moves the walk played, each one a hint carried over by a link
    events: list[Any]  # the finished match's events, as the first seat sees them


def _against_the_ai(walker: Walker) -> Walked:
    """From the document's own example: the create's hint link, then hint, move, hint, ...
    until the match is over."""
    created = walker.send("createMatch", body=_example("againstTheAi"))
    assert _status(created) == 201
    assert _status(walker.follow(created, "getMatchAsFirstSeat")) == 200
    step, link, moves = created, "getHint", 0
    while True:
        hint = _hint_when_my_turn(walker, step, link)
        if _status(hint) == 409:
            assert _problem(hint) == "match-not-active"
            break
        move = walker.follow(hint, "playMove")
        assert _status(move) == 200, move.body
        step, link, moves = move, "getHint", moves + 1
    return Walked(moves, _finish(walker, created, step))


def _two_seats(walker: Walker) -> Walked:
    """Two tokens from one create: each seat's hint link gives its move when it is its
    turn and not-your-turn otherwise."""
    created = walker.send("createMatch", body=_example("twoPlayers"))
    assert _status(created) == 201
    seats = {0: "getHint", 1: "getHintForSecondSeat"}
    moves = 0
    last_move: Step | None = None
    for _ in range(1000):
        hints = {seat: walker.follow(created, link) for seat, link in seats.items()}
        statuses = sorted(_status(h) for h in hints.values())
        if statuses == [409, 409] and _problem(hints[0]) == "match-not-active":
            break
        assert statuses == [200, 409], [h.body for h in hints.values()]
        waiting = next(h for h in hints.values() if _status(h) == 409)
        assert _problem(waiting) == "not-your-turn"
        turn = next(h for h in hints.values() if _status(h) == 200)
        last_move = walker.follow(turn, "playMove")
        assert _status(last_move) == 200, last_move.body
        moves += 1
    assert last_move is not None
    return Walked(moves, _finish(walker, created, last_move))


def _ending_early(walker: Walker) -> dict[str, Any]:
    """The create's resign and abort links, each on a match of its own: the answers."""
    ended = {}
    for link in ("resignMatch", "abortMatch"):
        created = walker.send("createMatch", body=_example("twoPlayers"))
        assert _status(created) == 201
        answer = walker.follow(created, link)
        assert _status(answer) == 200, answer.body
        ended[link] = answer.body
    return ended


def _joining(walker: Walker) -> dict[str, Any]:
    """The create's join link takes the open seat, which deals the match; taken, it is
    not open any more."""
    created = walker.send("createMatch", body=_example("waitingForOne"))
    assert _status(created) == 201
    assert created.body["match"]["status"] == "waiting"
    joined = walker.follow(created, "joinSeat")
    assert _status(joined) == 200, joined.body
    again = walker.follow(created, "joinSeat")
    assert (_status(again), _problem(again)) == (409, "seat-not-open")
    return dict(walker.follow(created, "getMatch").body)


def _a_player(walker: Walker) -> dict[str, int]:
    """A registration's links: the player's own routes with its token, then revoking
    that token and, for a second player, deleting it; each time the token is refused
    after."""
    statuses = {}
    registered = walker.send("registerPlayer", body={"handle": "walker", "kind": "bot"})
    assert _status(registered) == 201, registered.body
    links = ("getMe", "listMyMatches", "createToken", "getPlayer", "listMyChallenges")
    for link in (*links, "streamMyChallenges"):
        statuses[link] = _status(walker.follow(registered, link))
    made = walker.follow(registered, "createChallenge")
    statuses["createChallenge"] = _status(made)
    statuses["getChallenge"] = _status(walker.follow(made, "getChallenge"))
    statuses["revokeToken"] = _status(walker.follow(registered, "revokeToken"))
    statuses["getMe after revoking"] = _status(walker.follow(registered, "getMe"))
    statuses.update(_challenges(walker))
    leaving = walker.send("registerPlayer", body={"handle": "leaver"})
    statuses["deleteMe"] = _status(walker.follow(leaving, "deleteMe"))
    statuses["getPlayer after deleting"] = _status(walker.follow(leaving, "getPlayer"))
    return statuses


def _challenges(walker: Walker) -> dict[str, int]:
    """Two players: one challenges the other, who declines, then accepts a second; a
    third challenge is withdrawn through the create's link."""
    tokens = {}
    for handle in ("walk-ada", "walk-bea"):
        answer = walker.send("registerPlayer", body={"handle": handle})
        tokens[handle] = {"Authorization": f"Bearer {answer.body['token']['token']}"}
    ada, bea = tokens["walk-ada"], tokens["walk-bea"]

    def offer() -> Step:
        made = walker.send("createChallenge", headers=ada, body={"opponent": "walk-bea"})
        assert _status(made) == 201, made.body
        return made

    statuses = {}
    first = {"challenge_id": offer().body["id"]}
    statuses["declineChallenge"] = _status(walker.send("declineChallenge", first, bea))
    second = {"challenge_id": offer().body["id"]}
    statuses["acceptChallenge"] = _status(walker.send("acceptChallenge", second, bea))
    statuses["listChallenges"] = _status(walker.send("listChallenges"))
    statuses["cancelChallenge"] = _status(walker.follow(offer(), "cancelChallenge"))
    return statuses


@pytest.fixture(scope="module")
def walked(served: Served) -> dict[str, Any]:
    walker = Walker(served.schema())
    return {
        "against the AI": _against_the_ai(walker),
        "two seats": _two_seats(walker),
        "ending early": _ending_early(walker),
        "joining": _joining(walker),
        "a player": _a_player(walker),
    }


def test_the_links_of_a_registration_lead_to_the_players_routes(
    walked: dict[str, Any],
) -> None:
    assert walked["a player"] == {
        "getMe": 200,
        "listMyMatches": 200,
        "createToken": 201,
        "getPlayer": 200,
        "revokeToken": 204,
        "getMe after revoking": 401,
        "createChallenge": 201,
        "getChallenge": 200,
        "listMyChallenges": 200,
        "streamMyChallenges": 200,
        "declineChallenge": 200,
        "acceptChallenge": 200,
        "listChallenges": 200,
        "cancelChallenge": 204,
        "deleteMe": 204,
        "getPlayer after deleting": 404,
    }


def test_the_links_play_a_match_against_the_ai(walked: dict[str, Any]) -> None:
    walk = walked["against the AI"]
    mine = [e for e in walk.events if e["type"] == "card_played" and e["seat"] == 0]
    assert len(mine) == walk.moves >= 10
    assert walk.events[-1]["type"] == "match_finished"


def test_the_links_play_a_match_between_two_seats(walked: dict[str, Any]) -> None:
    walk = walked["two seats"]
    played = [e for e in walk.events if e["type"] == "card_played"]
    assert len(played) == walk.moves
    assert {e["seat"] for e in played} == {0, 1}
    assert walk.events[-1]["type"] == "match_finished"


def test_the_links_resign_and_abort_a_match(walked: dict[str, Any]) -> None:
    ended = walked["ending early"]
    resigned, aborted = ended["resignMatch"], ended["abortMatch"]
    assert (resigned["status"], resigned["end_reason"], resigned["winner"]) == (
        "finished", "resigned", 1,
    )  # fmt: skip
    assert (aborted["status"], aborted["end_reason"], aborted["winner"]) == (
        "finished", "aborted", None,
    )  # fmt: skip


def test_the_join_link_takes_the_open_seat(walked: dict[str, Any]) -> None:
    view = walked["joining"]
    assert view["status"] == "active"
    assert [s["kind"] for s in view["seats"]] == ["human", "human"]


def test_every_operation_succeeded_at_least_once(run: Run, walked: dict[str, Any]) -> None:
    """Over the engine run and the walks: each documented route answered a 2xx."""
    succeeded = {(method, route) for (method, route, status) in run.answers.counts if status < 300}
    for path, item in DOCUMENT["paths"].items():
        for method in item:
            assert (method.upper(), path) in succeeded, f"no success for {method} {path}"
