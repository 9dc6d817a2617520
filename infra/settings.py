"""The server's settings, read from the environment once, at start-up."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./scopa.db"


class SettingsError(ValueError):
    """An environment variable that does not parse."""


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    rate_limit: int = 300  # match creations per client address per minute; 0: no limit
    cors_origins: tuple[str, ...] = ()
    host: str = "127.0.0.1"
    port: int = 8000
    ai_budget_ms: int = 100
    ai_workers: int = 2  # worker processes for the AI; 0 runs it in threads of this process
    log_level: str = "INFO"
    # Clients reconnect with Last-Event-ID; an upper bound frees connections of gone clients.
    stream_seconds: float = 300.0
    # Slow and crowding clients (infra/http_protocol.py): a request's headers must arrive
    # within header_timeout, its body within body_timeout; connections are capped
    # server-wide (below the descriptor limit) and per peer address (0: no cap).
    header_timeout_seconds: int = 10
    body_timeout_seconds: int = 30
    max_connections: int = 4096
    connections_per_address: int = 256
    # How long `scopa migrate` and `scopa serve` wait at start for a Postgres server that
    # does not answer yet (in a deployment it often starts at the same time).
    database_wait_seconds: float = 30.0
    # Set, /metrics answers only requests with "Authorization: Bearer <this token>".
    metrics_token: str = field(default="", repr=False)
    waiting_ttl_seconds: int = 3600  # a match waiting for players this long expires
    # Whether `scopa serve` plays AI turns and enforces clocks itself (`scopa worker`
    # processes do either way); off on API replicas that leave it to workers.
    ai_in_process: bool = True
    # The pace of a match of AI seats only: seconds at least between its moves; 0: none.
    ai_only_move_seconds: float = 1.0
    idle_ttl_seconds: int = 604_800  # a human's turn without a clock this long: abandoned

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        defaults = cls()
        return cls(
            database_url=env.get("SCOPA_DATABASE_URL", defaults.database_url),
            rate_limit=_int(env, "SCOPA_RATE_LIMIT", defaults.rate_limit, minimum=0),
            cors_origins=tuple(
                o.strip() for o in env.get("SCOPA_CORS_ORIGINS", "").split(",") if o.strip()
            ),
            host=env.get("SCOPA_HOST", defaults.host),
            port=_int(env, "SCOPA_PORT", defaults.port, minimum=0),
            ai_budget_ms=_int(env, "SCOPA_AI_BUDGET_MS", defaults.ai_budget_ms, minimum=1),
            ai_workers=_int(env, "SCOPA_AI_WORKERS", defaults.ai_workers, minimum=0),
            log_level=env.get("SCOPA_LOG_LEVEL", defaults.log_level).upper(),
            stream_seconds=float(
                _int(env, "SCOPA_STREAM_SECONDS", int(defaults.stream_seconds), minimum=1)
            ),
            header_timeout_seconds=_int(
                env, "SCOPA_HEADER_TIMEOUT_SECONDS", defaults.header_timeout_seconds, minimum=1
            ),
            body_timeout_seconds=_int(
                env, "SCOPA_BODY_TIMEOUT_SECONDS", defaults.body_timeout_seconds, minimum=1
            ),
            max_connections=_int(
                env, "SCOPA_MAX_CONNECTIONS", defaults.max_connections, minimum=16
            ),
            connections_per_address=_int(
                env, "SCOPA_CONNECTIONS_PER_ADDRESS", defaults.connections_per_address, minimum=0
            ),
            database_wait_seconds=float(
                _int(
                    env,
                    "SCOPA_DATABASE_WAIT_SECONDS",
                    int(defaults.database_wait_seconds),
                    minimum=0,
                )
            ),
            metrics_token=env.get("SCOPA_METRICS_TOKEN", defaults.metrics_token).strip(),
            waiting_ttl_seconds=_int(
                env, "SCOPA_WAITING_TTL_SECONDS", defaults.waiting_ttl_seconds, minimum=1
            ),
            idle_ttl_seconds=_int(
                env, "SCOPA_IDLE_TTL_SECONDS", defaults.idle_ttl_seconds, minimum=1
            ),
            ai_in_process=_switch(env, "SCOPA_AI_IN_PROCESS", defaults.ai_in_process),
            ai_only_move_seconds=_seconds(
                env, "SCOPA_AI_ONLY_MOVE_SECONDS", defaults.ai_only_move_seconds
            ),
        )


def _int(env: Mapping[str, str], name: str, default: int, *, minimum: int) -> int:
    text = env.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = int(text)
    except ValueError:
        raise SettingsError(f"{name}={text!r} is not an integer") from None
    if value < minimum:
        raise SettingsError(f"{name}={value} is below {minimum}")
    return value


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    text = env.get(name, "").strip().lower()
    if not text:
        return default
    if text not in ("on", "off"):
        raise SettingsError(f"{name}={text!r} is neither on nor off")
    return text == "on"


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    text = env.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = float(text)
    except ValueError:
        raise SettingsError(f"{name}={text!r} is not a number of seconds") from None
    if not 0 <= value < float("inf"):
        raise SettingsError(f"{name}={value} is not a number of seconds from 0")
    return value
