"""The ``scopa`` command: serve, worker, migrate, openapi, tournament."""

from __future__ import annotations

import argparse
import asyncio
import errno
import json
import logging
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import uvicorn

from scopa.api import __version__
from scopa.api.app import openapi_document
from scopa.api.errors import headers_too_large
from scopa.api.middleware import RequestIdFilter
from scopa.infra import collector
from scopa.infra import logging as log_lines
from scopa.infra.db import DatabaseUnavailable, DatabaseUnusable
from scopa.infra.http_protocol import ConnectionLimits, guarded_protocol, install_accept_log_bound
from scopa.infra.migrate import migrate
from scopa.infra.settings import Settings, SettingsError
from scopa.infra.tournament import main as tournament
from scopa.wiring import build_app
from scopa.worker import run_worker

log = logging.getLogger("scopa")

OPENAPI_PATH = Path("openapi/openapi.json")
KEEP_ALIVE_SECONDS = 5
# libuv's event loop: thousands of open streams wake, write and wait again for far less.
LOOP = "uvloop"
# SIGTERM: streams end at once; whatever request still runs gets this long.
GRACEFUL_SHUTDOWN_SECONDS = 5


def render_openapi() -> str:
    """The published document, byte-stable: sorted keys, two-space indent."""
    document = openapi_document(build_app(Settings()))
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class _Server(uvicorn.Server):
    """uvicorn's server, ending the app's streams as soon as a shutdown begins: uvicorn
    would otherwise wait on them (clients reconnect to another process with
    Last-Event-ID). Once it listens, it says where to open the client (``ready``)."""

    def __init__(self, config: uvicorn.Config, on_shutdown: Callable[[], None], ready: str) -> None:
        super().__init__(config)
        self._on_shutdown = on_shutdown
        self._ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self._ready, flush=True)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._on_shutdown()
        await super().shutdown(sockets)


def _listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound before anything else starts, as uvicorn binds its own
    (so a port in use is said at once, not after the migrations and the AI pool)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    return sock


def browser_address(host: str, port: int) -> str:
    """Where a browser on this machine opens the server: a wildcard address is no place to
    browse to, so it is read as localhost."""
    if host in ("0.0.0.0", "::", ""):
        host = "localhost"
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _serve(settings: Settings, host: str, port: int, wait_seconds: float) -> int:
    try:
        sock = _listen(host, port)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            print(
                f"scopa serve: port {port} on {host} is in use; "
                "pick another with --port or SCOPA_PORT",
                file=sys.stderr,
            )
        else:
            print(f"scopa serve: cannot listen on {host} port {port}: {error}", file=sys.stderr)
        return 1
    with sock:
        return _run(settings, sock, host, wait_seconds)


def _run(settings: Settings, sock: socket.socket, host: str, wait_seconds: float) -> int:
    asyncio.run(migrate(settings.database_url, wait_seconds=wait_seconds))
    port = sock.getsockname()[1]
    log.info("serving on http://%s:%d", host, port)
    app = build_app(settings)
    collector.settle()
    install_accept_log_bound()
    limits = ConnectionLimits(
        header_seconds=settings.header_timeout_seconds,
        body_seconds=settings.body_timeout_seconds,
        max_header_bytes=settings.max_header_bytes,
        max_connections=settings.max_connections,
        per_address=settings.connections_per_address,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        loop=LOOP,
        http=guarded_protocol(limits, headers_too_large(settings.max_header_bytes)),
        # uvicorn would believe X-Forwarded-For from 127.0.0.1 and rewrite the peer: the
        # app reads it only from SCOPA_TRUSTED_PROXIES (api/clients.py).
        proxy_headers=False,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        # uvicorn's access log prints query strings, ?token= included: ours is in the app.
        log_config=None,
        access_log=False,
    )
    _Server(config, app.state.close_streams, f"open {browser_address(host, port)} to play").run(
        sockets=[sock]
    )
    return 0


def _openapi(output: Path, check: bool) -> int:
    text = render_openapi()
    if check:
        if not output.exists() or output.read_text() != text:
            print(f"{output} is stale: run `scopa openapi`", file=sys.stderr)
            return 1
        return 0
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    return 0


def build_parser(settings: Settings) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scopa", description="The Scopa game server")
    parser.add_argument("--version", action="version", version=f"scopa {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="migrate the database, then serve the API")
    serve.add_argument(
        "--host",
        default=settings.host,
        help="the address to listen on; 0.0.0.0 for every interface "
        "(SCOPA_HOST, default %(default)s)",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=settings.port,
        help="the port to listen on (SCOPA_PORT, default %(default)s)",
    )
    worker = commands.add_parser(
        "worker", help="migrate the database, then play AI turns and enforce clocks"
    )
    worker.add_argument(
        "--metrics-port",
        type=int,
        default=0,
        metavar="PORT",
        help="serve this worker's Prometheus figures on 127.0.0.1:PORT (0: not at all)",
    )
    schema = commands.add_parser("migrate", help="bring the database schema up to date")
    for command in (serve, worker, schema):
        command.add_argument(
            "--wait",
            type=float,
            default=settings.database_wait_seconds,
            metavar="SECONDS",
            help="how long to wait for a database that does not answer yet "
            "(SCOPA_DATABASE_WAIT_SECONDS, default %(default)s)",
        )
    openapi = commands.add_parser("openapi", help="write the OpenAPI document")
    openapi.add_argument(
        "--output",
        type=Path,
        default=OPENAPI_PATH,
        metavar="FILE",
        help="where to write the document, or with --check the one to compare (%(default)s)",
    )
    openapi.add_argument(
        "--check", action="store_true", help="fail if the file differs instead of writing it"
    )
    commands.add_parser(
        "tournament", help="AI against AI (options: scopa tournament --help)", add_help=False
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else argv
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        print(f"scopa: {error}", file=sys.stderr)
        return 2
    if args_in[:1] == ["tournament"]:
        return tournament(args_in[1:])
    args = build_parser(settings).parse_args(args_in)
    log_lines.configure(
        settings.log_level, filters=[RequestIdFilter()], log_format=settings.log_format
    )
    try:
        if args.command == "serve":
            return _serve(settings, args.host, args.port, args.wait)
        if args.command == "worker":
            asyncio.run(migrate(settings.database_url, wait_seconds=args.wait))
            return run_worker(settings, args.metrics_port)
        if args.command == "migrate":
            asyncio.run(migrate(settings.database_url, wait_seconds=args.wait))
            return 0
        return _openapi(args.output, args.check)
    except (DatabaseUnusable, DatabaseUnavailable) as error:
        # Each says what is wrong in one line; a traceback would only bury it.
        log.error("%s", error)
        return 1


if __name__ == "__main__":
    sys.exit(main())
