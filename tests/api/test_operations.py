"""Health, readiness, outages, rate limits, CORS, metrics, request ids and clean logs."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from scopa.api.app import create_app
from scopa.api.cors import Cors
from scopa.api.middleware import RequestIdFilter
from scopa.infra.logging import JsonFormatter, TextFormatter, configure, formatter_for
from scopa.infra.settings import Settings
from scopa.service.services import Services
from tests.api.support import FIXED_MATCH, Client, bearer, create, problem_type, tokens
from tests.fakes import FakeStore


async def test_health_and_ready(client: Client) -> None:
    assert (await client.get("/health")).json() == {"status": "ok"}
    assert (await client.get("/ready")).json() == {"status": "ready", "ai": "ready"}


async def test_ready_tells_when_no_process_can_play_ai_turns(
    client: Client, store: FakeStore
) -> None:
    store.ai_capacity = 0
    answer = await client.get("/ready")
    # Still ready: this process serves its routes; AI turns wait for capacity.
    assert answer.status_code == 200
    assert answer.json() == {"status": "ready", "ai": "missing"}


async def test_a_database_outage_is_503_with_retry_after(client: Client, store: FakeStore) -> None:
    match_id = (await create(client))["match"]["id"]
    store.down = True
    answers = [
        await client.get("/ready"),
        await client.get(f"/v1/matches/{match_id}"),
        await client.post("/v1/matches", json=FIXED_MATCH),
        await client.post(f"/v1/matches/{match_id}/moves", json={"card": "5S"}),
        await client.get(f"/v1/matches/{match_id}/events"),
        await client.get("/v1/matches"),
    ]
    for answer in answers:
        assert answer.status_code == 503
        assert problem_type(answer) == "database-unavailable"
        assert 1 <= int(answer.headers["retry-after"]) <= 5
    assert (await client.get("/health")).status_code == 200
    store.down = False
    assert (await client.get("/ready")).status_code == 200


class TestRateLimit:
    @pytest.fixture
    def settings(self) -> Settings:
        return dataclasses.replace(Settings().without_limits(), rate_limit=2)

    async def test_creation_beyond_the_limit_is_429_with_retry_after(self, client: Client) -> None:
        made = await client.post("/v1/matches", json=FIXED_MATCH)
        assert made.headers["ratelimit-policy"] == '"create";q=2;w=60'
        assert made.headers["ratelimit"].startswith('"create";r=1;t=')
        bad = await client.post("/v1/matches", json={"seats": []})
        assert bad.status_code == 400  # counted all the same, and told so
        assert bad.headers["ratelimit"].startswith('"create";r=0;t=')
        answer = await client.post("/v1/matches", json=FIXED_MATCH)
        assert answer.status_code == 429
        assert problem_type(answer) == "rate-limited"
        retry = int(answer.headers["retry-after"])
        assert 1 <= retry <= 60
        assert answer.headers["ratelimit-policy"] == '"create";q=2;w=60'
        assert answer.headers["ratelimit"] == f'"create";r=0;t={retry}'
        # Only creation is limited.
        for other in (await client.get("/v1/matches"), await client.get("/health")):
            assert other.status_code == 200
            assert "ratelimit" not in other.headers
            assert "ratelimit-policy" not in other.headers


async def test_no_rate_limit_when_zero(client: Client) -> None:
    for _ in range(10):
        answer = await client.post("/v1/matches", json=FIXED_MATCH)
        assert answer.status_code == 201
        assert "ratelimit-policy" not in answer.headers  # no limit is on


async def test_no_cors_headers_by_default(client: Client) -> None:
    answer = await client.get("/health", headers={"Origin": "https://a.example"})
    assert "access-control-allow-origin" not in answer.headers


class TestCors:
    @pytest.fixture
    def settings(self) -> Settings:
        return Settings(cors_origins=("https://a.example",)).without_limits()

    async def test_listed_origins_only(self, client: Client) -> None:
        answer = await client.options(
            "/v1/matches",
            headers={
                "Origin": "https://a.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, idempotency-key",
            },
        )
        assert answer.status_code in (200, 204)
        assert answer.headers["access-control-allow-origin"] == "https://a.example"
        allowed = answer.headers["access-control-allow-headers"].lower()
        assert {"authorization", "idempotency-key"} <= {h.strip() for h in allowed.split(",")}
        assert "POST" in answer.headers["access-control-allow-methods"]
        assert answer.headers["vary"] == "Origin"
        created = await client.post(
            "/v1/matches", json=FIXED_MATCH, headers={"Origin": "https://a.example"}
        )
        assert created.headers["access-control-allow-origin"] == "https://a.example"
        assert created.headers["vary"] == "Origin"
        exposed = {
            h.strip().lower() for h in created.headers["access-control-expose-headers"].split(",")
        }
        assert {"location", "etag", "www-authenticate", "ratelimit", "ratelimit-policy"} <= exposed
        other = await client.get("/health", headers={"Origin": "https://b.example"})
        assert "access-control-allow-origin" not in other.headers
        assert other.headers["vary"] == "Origin"  # the answer depends on the Origin sent
        assert (await client.get("/health")).headers["vary"] == "Origin"

    async def test_a_page_can_read_why_its_token_was_refused(self, client: Client) -> None:
        match_id = (await create(client))["match"]["id"]
        answer = await client.get(
            f"/v1/matches/{match_id}/hint", headers={"Origin": "https://a.example"}
        )
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"] == "Bearer"
        assert answer.headers["access-control-allow-origin"] == "https://a.example"
        assert "WWW-Authenticate" in answer.headers["access-control-expose-headers"]


class TestCorsForAnyOrigin:
    @pytest.fixture
    def settings(self) -> Settings:
        return Settings(cors_origins=("*",)).without_limits()

    async def test_any_origin_still_varies(self, client: Client) -> None:
        answer = await client.get("/health", headers={"Origin": "https://z.example"})
        assert answer.headers["access-control-allow-origin"] == "*"
        assert answer.headers["vary"] == "Origin"


def test_vary_origin_joins_the_vary_an_answer_has() -> None:
    cors = Cors(["https://a.example"])
    request = [(b"origin", b"https://a.example")]
    answer = [(b"content-type", b"application/json"), (b"vary", b"Authorization, origin")]
    headers = dict(cors.answer(request, answer))
    assert headers[b"vary"] == b"Authorization, origin"
    headers = dict(cors.answer(request, [(b"vary", b"Accept"), (b"vary", b"Authorization")]))
    assert headers[b"vary"] == b"Accept, Authorization, Origin"
    assert headers[b"access-control-allow-origin"] == b"https://a.example"


async def test_metrics_count_requests_by_route(client: Client) -> None:
    match_id = (await create(client))["match"]["id"]
    await client.get(f"/v1/matches/{match_id}")
    answer = await client.get("/metrics")
    assert answer.status_code == 200
    assert "text/plain" in answer.headers["content-type"]
    assert "scopa_requests_total" in answer.text
    assert "/v1/matches/{match_id}" in answer.text
    assert match_id not in answer.text


async def test_request_ids(client: Client) -> None:
    given = await client.get("/health", headers={"X-Request-ID": "abc-123"})
    assert given.headers["x-request-id"] == "abc-123"
    made = await client.get("/health")
    assert len(made.headers["x-request-id"]) == 32
    unsafe = await client.get("/health", headers={"X-Request-ID": "a b\tc"})
    assert unsafe.headers["x-request-id"] != "a b\tc"
    missing = await client.get("/nowhere", headers={"X-Request-ID": "r-404"})
    assert missing.headers["x-request-id"] == "r-404"
    problem = await client.get("/v1/matches/" + "A" * 22, headers={"X-Request-ID": "r-problem"})
    assert problem.headers["x-request-id"] == "r-problem"


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    output = io.StringIO()
    configure("DEBUG", output, filters=[RequestIdFilter()])
    try:
        yield output
    finally:
        root.handlers[:], root.level = saved[0], saved[1]


async def test_logs_are_json_with_request_ids_and_never_a_token(
    client: Client, log_output: io.StringIO
) -> None:
    created = await create(client)
    match_id, seat = created["match"]["id"], tokens(created)
    await client.get(f"/v1/matches/{match_id}", headers=bearer(seat[0]))
    await client.get(
        f"/v1/matches/{match_id}/events", params={"token": seat[1]}, headers={"X-Request-ID": "q1"}
    )
    await client.get(f"/v1/matches/{match_id}/events/stream", params={"token": "forged-secret"})
    await client.get(f"/v1/matches/{match_id}/events", params={"token": seat[0], "wait": "99"})
    await client.post(f"/v1/matches/{match_id}/moves", json={"card": "5S"}, headers=bearer(seat[1]))
    text = log_output.getvalue()
    for secret in (*seat.values(), "forged-secret"):
        assert secret not in text
    lines = [json.loads(line) for line in text.splitlines()]
    access = [line for line in lines if line["logger"] == "scopa.access"]
    assert len(access) == 6
    assert all(line["request_id"] for line in access)
    polled = next(line for line in access if line["request_id"] == "q1")
    assert polled["path"] == f"/v1/matches/{match_id}/events"
    assert polled["status"] == 200
    assert "?" not in polled["message"]


def test_json_formatter_keeps_exceptions_and_known_fields_only() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed %s", ("here",), None)
        import sys

        record.exc_info = sys.exc_info()
    record.path = "/p"
    record.secret = "no"
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "failed here"
    assert line["path"] == "/p"
    assert "secret" not in line
    assert "ValueError: boom" in line["exception"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("log_format", "stream", "kind"),
    [
        ("auto", Terminal(), TextFormatter),
        ("auto", io.StringIO(), JsonFormatter),
        ("json", Terminal(), JsonFormatter),
        ("text", io.StringIO(), TextFormatter),
    ],
)
def test_lines_are_text_on_a_terminal_and_json_elsewhere_unless_a_setting_says(
    log_format: str, stream: io.StringIO, kind: type[logging.Formatter]
) -> None:
    assert type(formatter_for(log_format, stream)) is kind


def test_text_lines_are_short_and_keep_a_traceback() -> None:
    formatter = TextFormatter()
    migration = logging.LogRecord(
        "alembic",
        logging.INFO,
        __file__,
        1,
        "Running upgrade -> 0005, AI turns\nin a queue",
        (),
        None,
    )
    assert formatter.format(migration).split(" ", 1)[1] == "Running upgrade -> 0005, AI turns"
    access = logging.LogRecord(
        "scopa.access", logging.INFO, __file__, 1, "GET /health 200", (), None
    )
    access.duration_ms = 1.5
    assert formatter.format(access).endswith(" GET /health 200 (1.5 ms)")
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        failed = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    first, *rest = formatter.format(failed).splitlines()
    assert first.split(" ", 1)[1] == "ERROR failed"
    assert rest[-1] == "ValueError: boom"


@pytest.mark.parametrize(
    "created",
    [
        1_767_225_599.9995,  # rounds up to the next millisecond
        1_767_225_599.9999996,  # rounds up to the next second, and year
        1_767_225_600.0004995,
        1_767_225_600.5,
        1_700_000_000.0000005,  # exactly half a microsecond: to even
        1_700_000_000.0000015,
        0.0,
    ],
)
def test_json_formatter_times_lines_as_datetime_does(created: float) -> None:
    # The formatter writes each second out once; the line must read as datetime says.
    formatter = JsonFormatter()
    expected = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
    for at in (created - 1, created):  # the second before is cached first
        record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", (), None)
        record.created = at
        line = json.loads(formatter.format(record))
    assert line["time"] == expected


async def test_the_app_starts_and_stops_with_its_server_s_lifespan(
    settings: Settings, service: Services
) -> None:
    """What an ASGI server (uvicorn) sends before the first request and after the last:
    the app's start and stop hooks run, each once, and it says each is complete."""
    ran: list[str] = []

    async def start() -> None:
        ran.append("start")

    async def stop() -> None:
        ran.append("stop")

    app = create_app(settings, service, on_startup=[start], on_shutdown=[stop])
    incoming = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    said: list[str] = []

    async def receive() -> dict[str, str]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        said.append(message["type"])

    scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    await app(scope, receive, send)
    assert said == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert ran == ["start", "stop"]
