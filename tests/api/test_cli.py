"""The ``scopa`` command: openapi, migrate, tournament, and serve as a real process;
start-up failures as one clear line."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import pty
import re
import select
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from scopa.cli import browser_address, build_parser, main, render_openapi
from scopa.infra import tournament
from scopa.infra.settings import Settings, SettingsError
from tests.support.databases import PG_HOST
from tests.support.server_process import ROOT, free_port, start_server


def test_openapi_writes_and_checks(tmp_path: Path) -> None:
    target = tmp_path / "openapi.json"
    assert main(["openapi", "--check", "--output", str(target)]) == 1
    assert main(["openapi", "--output", str(target)]) == 0
    assert target.read_text() == render_openapi()
    assert main(["openapi", "--check", "--output", str(target)]) == 0


def test_migrate_creates_the_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "new.db"
    monkeypatch.setenv("SCOPA_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    assert main(["migrate"]) == 0
    assert path.stat().st_size > 0


def test_tournament_is_delegated(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["tournament", "--a", "easy", "--b", "medium", "--matches", "2", "--json", "--target", "1"]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)


def test_bad_settings_exit_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCOPA_PORT", "eighty")
    assert main(["migrate"]) == 2


def test_settings_from_the_environment() -> None:
    assert Settings.from_env({}) == Settings()
    settings = Settings.from_env(
        {
            "SCOPA_DATABASE_URL": "postgresql+asyncpg://u@h/db",
            "SCOPA_RATE_LIMIT": "0",
            "SCOPA_AI_ONLY_MOVE_SECONDS": "0",
            "SCOPA_CORS_ORIGINS": "https://a.example, https://b.example,",
            "SCOPA_HOST": "0.0.0.0",
            "SCOPA_PORT": "9000",
            "SCOPA_AI_BUDGET_MS": "250",
            "SCOPA_AI_WORKERS": "0",
            "SCOPA_LOG_LEVEL": "debug",
            "SCOPA_DATABASE_WAIT_SECONDS": "0",
            "SCOPA_METRICS_TOKEN": " m3trics ",
            "SCOPA_STREAM_LEASE_SECONDS": "2.5",
            "SCOPA_LIMIT_WINDOW_SECONDS": "5",
            "SCOPA_LOG_FORMAT": "Text",
        }
    )
    assert (settings.log_format, Settings().log_format) == ("text", "auto")
    with pytest.raises(SettingsError, match="SCOPA_LOG_FORMAT='xml' is not one of auto, json"):
        Settings.from_env({"SCOPA_LOG_FORMAT": "xml"})
    assert settings.database_wait_seconds == 0
    assert (settings.stream_lease_seconds, settings.limit_window_seconds) == (2.5, 5)
    assert settings.metrics_token == "m3trics"
    assert "m3trics" not in repr(settings)
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert (settings.rate_limit, settings.port, settings.ai_workers) == (0, 9000, 0)
    assert (settings.host, settings.ai_budget_ms, settings.log_level) == ("0.0.0.0", 250, "DEBUG")
    with pytest.raises(SettingsError):
        Settings.from_env({"SCOPA_RATE_LIMIT": "-1"})
    with pytest.raises(SettingsError):
        Settings.from_env({"SCOPA_STREAM_LEASE_SECONDS": "0.5"})


@pytest.mark.slow
def test_serve_migrates_and_serves_with_json_logs(tmp_path: Path) -> None:
    server = start_server(f"sqlite+aiosqlite:///{tmp_path / 'served.db'}", tmp_path)
    try:
        base = server.base_url
        body = {"seats": [{"kind": "human"}, {"kind": "ai", "level": "expert"}], "seed": 4}
        created = httpx.post(f"{base}/v1/matches", json=body, timeout=5).json()
        token = created["tokens"][0]["token"]
        match_id = created["match"]["id"]
        page = httpx.get(
            f"{base}/v1/matches/{match_id}/events",
            params={"token": token, "after": 1, "wait": 10},
            timeout=15,
        ).json()
        view = httpx.get(
            f"{base}/v1/matches/{match_id}", headers={"Authorization": f"Bearer {token}"}
        ).json()
        # Whoever dealt, it is the human's turn within moments: the AI has moved if first.
        assert view["turn"] == 0 or page["events"]
    finally:
        server.assert_stops_cleanly()
    stderr = server.log_text()
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    assert any(line["logger"] == "scopa.access" and line["request_id"] for line in lines)
    assert token not in stderr
    assert f"open {base}/ to play" in stderr.splitlines()


def read_terminal(terminal: int, until: str, seconds: float) -> str:
    """What a process wrote to ``terminal`` until ``until`` appears, it closes, or time ends."""
    out = b""
    deadline = time.monotonic() + seconds
    while until.encode() not in out and time.monotonic() < deadline:
        ready, _, _ = select.select([terminal], [], [], deadline - time.monotonic())
        try:
            chunk = os.read(terminal, 65536) if ready else b""
        except OSError:  # the other side closed: Linux says EIO
            break
        if ready and not chunk:
            break
        out += chunk
    return out.decode(errors="replace").replace("\r\n", "\n")


@pytest.mark.slow
def test_serve_on_a_terminal_writes_short_lines_a_person_reads(tmp_path: Path) -> None:
    terminal, its_end = pty.openpty()
    env = {
        **os.environ,
        "SCOPA_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'shown.db'}",
        "SCOPA_AI_WORKERS": "0",
    }
    env.pop("SCOPA_LOG_FORMAT", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "scopa.cli", "serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=its_end,
        stderr=its_end,
        start_new_session=True,
    )
    os.close(its_end)
    try:
        shown = read_terminal(terminal, "to play", 60)
        process.send_signal(signal.SIGTERM)
        shown += read_terminal(terminal, "complete.\n", 30)
        assert process.wait(30) in (0, -signal.SIGTERM), shown
    finally:
        if process.poll() is None:
            process.kill()
        os.close(terminal)
    lines = shown.splitlines()
    assert any(re.fullmatch(r"open http://127\.0\.0\.1:\d+/ to play", line) for line in lines)
    logged = [line for line in lines if not line.startswith("open ")]
    # Each a time and one short line: no JSON, no migration's whole text.
    assert logged
    assert all(re.match(r"\d\d:\d\d:\d\d \S", line) for line in logged), shown
    assert any(re.search(r" serving on http://127\.0\.0\.1:\d+$", line) for line in logged)
    assert any(line.endswith("Application shutdown complete.") for line in logged), shown
    assert max(len(line) for line in logged) <= 160, shown


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_a_port_in_use_is_one_line_at_once(host: str) -> None:
    with socket.socket() as taken:
        taken.bind((host, 0))
        taken.listen()
        port = taken.getsockname()[1]
        # A database that never answers, waited for far longer than the bound below: the
        # port must be refused before the database is even tried.
        url = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/scopa"
        env = {"SCOPA_PORT": str(port), "SCOPA_DATABASE_URL": url}
        env["SCOPA_DATABASE_WAIT_SECONDS"] = "300"
        started = time.monotonic()
        result = scopa("serve", "--host", host, env=env, seconds=120)
    # Liveness only (imports alone take seconds on a loaded machine): no database wait.
    assert time.monotonic() - started < 100
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"scopa serve: port {port} on {host} is in use; pick another with --port or SCOPA_PORT"
    ]
    assert result.stdout == ""


def _options(command: argparse.ArgumentParser) -> list[tuple[str, argparse.Action]]:
    """Every option of ``command`` and of its subcommands, by the command line naming it."""
    found = []
    for action in command._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                found += _options(sub)
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            found.append((f"{command.prog} {'/'.join(action.option_strings)}", action))
    return found


def test_every_option_says_what_it_does_and_which_setting_it_mirrors() -> None:
    # Each setting at a value of its own, so that an option defaulting to one is seen.
    numbers = iter(range(40_001, 50_000))
    numbered: dict[str, Any] = {
        f.name: type(f.default)(next(numbers))
        for f in dataclasses.fields(Settings)
        if isinstance(f.default, int | float) and not isinstance(f.default, bool)
    }
    settings = Settings(**numbered, host="192.0.2.7")
    mirrored = {
        getattr(settings, f.name): f.name
        for f in dataclasses.fields(Settings)
        if type(f.default) in (int, float, str) and getattr(settings, f.name) != ""
    }
    options = _options(build_parser(settings)) + _options(tournament.build_parser())
    assert len(options) > 15
    unhelpful = [name for name, action in options if not (action.help or "").strip()]
    assert not unhelpful
    named = 0
    for name, action in options:
        field = mirrored.get(action.default)
        if field is not None and not isinstance(action.default, bool):
            variable = f"SCOPA_{field.upper()}"
            assert variable in str(action.help), f"{name} mirrors {variable} but does not say so"
            # The variable named is the one the settings read.
            default = action.default
            value = default if isinstance(default, str) else str(int(default))  # all whole
            assert getattr(Settings.from_env({variable: value}), field) == action.default
            named += 1
    assert named >= 5  # --host, --port, and --wait on serve, worker and migrate


def test_the_address_to_open_is_one_a_browser_reaches() -> None:
    assert browser_address("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert browser_address("0.0.0.0", 8000) == "http://localhost:8000/"
    assert browser_address("::", 8080) == "http://localhost:8080/"
    assert browser_address("::1", 8000) == "http://[::1]:8000/"


def scopa(*args: str, env: dict[str, str], seconds: float = 60) -> subprocess.CompletedProcess[str]:
    """The ``scopa`` command as a process of its own, from this checkout."""
    return subprocess.run(**_scopa(args, env), capture_output=True, timeout=seconds)


def _scopa(args: tuple[str, ...], env: dict[str, str]) -> dict[str, Any]:
    return {
        "args": [sys.executable, "-m", "scopa.cli", *args],
        "cwd": ROOT,
        # A port of its own: `serve` binds it before anything else, 8000 may be taken.
        "env": {**os.environ, "SCOPA_AI_WORKERS": "1", "SCOPA_PORT": str(free_port()), **env},
        "stdin": subprocess.DEVNULL,
        "text": True,
    }


def failure(result: subprocess.CompletedProcess[str]) -> str:
    """The one line a failed start-up ends with: every line of stderr a JSON log line,
    the last the only error, no traceback; its message."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    assert [line["level"] for line in lines].count("ERROR") == 1, result.stderr
    assert lines[-1]["level"] == "ERROR"
    assert "exception" not in lines[-1]
    return str(lines[-1]["message"])


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Path:
    """A folder where no new file can be made: read-only, or for root (whom permissions
    do not stop) /sys, which refuses new files to everyone."""
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except PermissionError:
        return folder
    return Path("/sys")


COMMANDS = ["migrate", "serve"]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_sqlite_folder_that_does_not_exist(command: str, tmp_path: Path) -> None:
    folder = tmp_path / "nowhere"
    result = scopa(command, env={"SCOPA_DATABASE_URL": f"sqlite+aiosqlite:///{folder}/x.db"})
    assert failure(result) == (
        f"cannot create the SQLite database {folder}/x.db: the folder {folder} does not exist"
    )
    assert not folder.exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_sqlite_folder_that_is_not_writable(command: str, unwritable_folder: Path) -> None:
    url = f"sqlite+aiosqlite:///{unwritable_folder}/x.db"
    message = failure(scopa(command, env={"SCOPA_DATABASE_URL": url}))
    assert message.startswith(f"cannot use the SQLite database {unwritable_folder}/x.db: ")
    assert message.endswith(f"the folder {unwritable_folder} is not writable (Permission denied)")


@pytest.mark.parametrize(
    ("command", "url"),
    [("migrate", "mysql://scopa:s3cret@db/scopa"), ("serve", "postgresql+psycopg2://s3cret@h/d")],
)
def test_an_unsupported_database_url(command: str, url: str) -> None:
    result = scopa(command, env={"SCOPA_DATABASE_URL": url})
    scheme = url.split(":")[0]
    assert failure(result) == (
        f"unsupported database URL scheme {scheme!r}: use postgresql+asyncpg://user:password"
        "@host:port/name or sqlite+aiosqlite:///path"
    )
    assert "s3cret" not in result.stderr


def test_a_database_url_that_does_not_parse() -> None:
    result = scopa("migrate", env={"SCOPA_DATABASE_URL": "s3cret"})
    assert failure(result).startswith("the database URL does not parse: expected ")
    assert "s3cret" not in result.stderr


@pytest.mark.postgres
@pytest.mark.parametrize("command", COMMANDS)
def test_a_postgres_database_that_does_not_exist(command: str, postgres_reachable: None) -> None:
    url = f"postgresql+asyncpg://postgres@{PG_HOST}/scopa_no_such_database"
    host, port = PG_HOST.split(":")
    assert failure(scopa(command, env={"SCOPA_DATABASE_URL": url})) == (
        f"the database 'scopa_no_such_database' at {host}:{port} refused the connection: "
        'database "scopa_no_such_database" does not exist'
    )


@pytest.mark.postgres
def test_a_role_postgres_does_not_know(postgres_reachable: None) -> None:
    url = f"postgresql+asyncpg://scopa_no_such_role:pw@{PG_HOST}/postgres"
    message = failure(scopa("migrate", env={"SCOPA_DATABASE_URL": url}))
    assert message.endswith('refused the connection: role "scopa_no_such_role" does not exist')


@pytest.mark.parametrize("command", COMMANDS)
def test_a_refused_connection_is_waited_for_then_one_line(command: str) -> None:
    port = free_port()  # nobody listens there
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{port}/scopa"
    started = time.monotonic()
    result = scopa(command, env={"SCOPA_DATABASE_URL": url, "SCOPA_DATABASE_WAIT_SECONDS": "2"})
    assert time.monotonic() - started >= 2
    assert failure(result) == (
        f"the database 'scopa' at 127.0.0.1:{port} does not answer after 2 s: Connection refused"
    )
    waiting = json.loads(result.stderr.splitlines()[0])
    assert waiting["level"] == "WARNING"
    assert waiting["message"].endswith("(Connection refused); waiting up to 2 s")


def test_the_flag_bounds_the_wait_too() -> None:
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{free_port()}/scopa"
    result = scopa("migrate", "--wait", "0", env={"SCOPA_DATABASE_URL": url})
    # One try and no wait: the default (30 s) would log that it waits, then fail "after"
    # it; read from the log rather than a clock, which a loaded machine would stretch.
    assert failure(result).endswith("does not answer: Connection refused")
    assert len(result.stderr.splitlines()) == 1, result.stderr


class Relay(socketserver.ThreadingTCPServer):
    """Relays the connections it accepts on ``port`` to ``upstream``: a database that
    comes up when the relay starts."""

    daemon_threads = True

    def __init__(self, port: int, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        super().__init__(("127.0.0.1", port), _Relayed)


class _Relayed(socketserver.BaseRequestHandler):
    server: Relay

    def handle(self) -> None:
        with socket.create_connection(self.server.upstream, timeout=10) as upstream:
            back = threading.Thread(target=_pipe, args=(upstream, self.request), daemon=True)
            back.start()
            _pipe(self.request, upstream)
            back.join(10)


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)


@pytest.mark.postgres
def test_migrate_waits_for_a_database_that_comes_up(
    new_postgres_database: Callable[[], str],
) -> None:
    database = new_postgres_database().rsplit("/", 1)[1]
    host, port = PG_HOST.split(":")
    relay_port = free_port()
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{relay_port}/{database}"
    process = subprocess.Popen(
        **_scopa(("migrate", "--wait", "60"), {"SCOPA_DATABASE_URL": url}),
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        waiting = json.loads(process.stderr.readline())
        assert waiting["level"] == "WARNING", waiting
        assert waiting["message"].endswith("(Connection refused); waiting up to 60 s")
        with Relay(relay_port, (host, int(port))) as relay:
            threading.Thread(target=relay.serve_forever, args=(0.1,), daemon=True).start()
            _, rest = process.communicate(timeout=60)
            relay.shutdown()
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 0, rest
    assert "Running upgrade" in rest
    assert "ERROR" not in rest
