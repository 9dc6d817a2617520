"""The server's settings, read from the environment once, at start-up."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from scopa.infra.logging import LOG_FORMATS

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./scopa.db"

T = TypeVar("T", int, float)


class SettingsError(ValueError):
    """An environment variable that does not parse."""


# The limits that keep one client from crowding out the rest (docs/api.md), by the setting that
# names each: SCOPA_LIMITS=off lifts every one of them whose own setting is not given.
# 0 turns one off.
QUOTAS = {
    "rate_limit": "SCOPA_RATE_LIMIT",  # match creations per address per minute
    "waiting_per_address": "SCOPA_WAITING_PER_ADDRESS",  # matches waiting at once
    "ai_only_per_address": "SCOPA_AI_ONLY_PER_ADDRESS",  # matches of AI seats only, running
    "joins_per_minute": "SCOPA_JOINS_PER_MINUTE",  # per address
    "streams_per_address": "SCOPA_STREAMS_PER_ADDRESS",  # streams and long polls open at once
    "streams_per_match": "SCOPA_STREAMS_PER_MATCH",  # streams open at once, over every address
    "hints_per_minute": "SCOPA_HINTS_PER_MINUTE",  # per seat token
    "hints_per_address_per_minute": "SCOPA_HINTS_PER_ADDRESS_PER_MINUTE",
    "reviews_per_minute": "SCOPA_REVIEWS_PER_MINUTE",  # per address
    "registrations_per_minute": "SCOPA_REGISTRATIONS_PER_MINUTE",  # players, per address
    "bad_tokens_per_minute": "SCOPA_BAD_TOKENS_PER_MINUTE",  # player tokens refused, per address
    "challenges_per_minute": "SCOPA_CHALLENGES_PER_MINUTE",  # per player
    "challenges_pending": "SCOPA_CHALLENGES_PENDING",  # a player's pending at once
    "connections_per_address": "SCOPA_CONNECTIONS_PER_ADDRESS",  # infra/http_protocol.py
}


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    rate_limit: int = 300
    waiting_per_address: int = 10
    ai_only_per_address: int = 2
    joins_per_minute: int = 30
    streams_per_address: int = 50
    streams_per_match: int = 2000
    hints_per_minute: int = 20
    hints_per_address_per_minute: int = 120
    reviews_per_minute: int = 10
    registrations_per_minute: int = 5
    bad_tokens_per_minute: int = 30
    challenges_per_minute: int = 10
    challenges_pending: int = 20
    # Peers whose X-Forwarded-For is believed: addresses or networks (api/clients.py).
    trusted_proxies: tuple[str, ...] = ()
    cors_origins: tuple[str, ...] = ()
    host: str = "127.0.0.1"
    port: int = 8000
    ai_budget_ms: int = 100
    ai_workers: int = 2  # worker processes for the AI; 0 runs it in threads of this process
    log_level: str = "INFO"
    log_format: str = "auto"  # infra/logging.py: text on a terminal, JSON elsewhere
    # Clients reconnect with Last-Event-ID; an upper bound frees connections of gone clients.
    stream_seconds: float = 300.0
    # A stream's slot is a lease renewed every third of this (infra/limits.py): the slots
    # of a process that died free within it. docs/api.md promises 30 s.
    stream_lease_seconds: float = 30.0
    # The fixed windows the limits "per minute" count in (api/ratelimit.py); docs/api.md says a
    # minute, which only a test waiting for a window's end has reason to shorten.
    limit_window_seconds: int = 60
    # Slow and crowding clients (infra/http_protocol.py): a request's headers must arrive
    # within header_timeout, its body within body_timeout; connections are capped
    # server-wide (below the descriptor limit) and per peer address (0: no cap).
    header_timeout_seconds: int = 10
    body_timeout_seconds: int = 30
    # A request's line and headers together: more is answered 431 before it is read. Above
    # what the proxy in front lets through (deploy/nginx.conf: 4 buffers of 8 KiB).
    max_header_bytes: int = 65_536
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
    # A rated match's human turn without a clock this long: lost by the seat's team.
    rated_idle_ttl_seconds: int = 300

    def without_limits(self) -> Settings:
        """These settings with every quota of docs/api.md's list off (SCOPA_LIMITS=off)."""
        off: dict[str, Any] = dict.fromkeys(QUOTAS, 0)
        return replace(self, **off)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        limits = env.get("SCOPA_LIMITS", "on").strip().lower() or "on"
        if limits not in ("on", "off"):
            raise SettingsError(f"SCOPA_LIMITS={limits!r} is neither on nor off")
        defaults = cls() if limits == "on" else cls().without_limits()
        return cls(
            database_url=env.get("SCOPA_DATABASE_URL", defaults.database_url),
            **{
                name: _int(env, variable, getattr(defaults, name), minimum=0)
                for name, variable in QUOTAS.items()
            },
            trusted_proxies=_networks(env, "SCOPA_TRUSTED_PROXIES"),
            cors_origins=tuple(
                o.strip() for o in env.get("SCOPA_CORS_ORIGINS", "").split(",") if o.strip()
            ),
            host=env.get("SCOPA_HOST", defaults.host),
            port=_int(env, "SCOPA_PORT", defaults.port, minimum=0),
            ai_budget_ms=_int(env, "SCOPA_AI_BUDGET_MS", defaults.ai_budget_ms, minimum=1),
            ai_workers=_int(env, "SCOPA_AI_WORKERS", defaults.ai_workers, minimum=0),
            log_level=env.get("SCOPA_LOG_LEVEL", defaults.log_level).upper(),
            log_format=_choice(env, "SCOPA_LOG_FORMAT", defaults.log_format, LOG_FORMATS),
            stream_seconds=float(
                _int(env, "SCOPA_STREAM_SECONDS", int(defaults.stream_seconds), minimum=1)
            ),
            limit_window_seconds=_int(
                env, "SCOPA_LIMIT_WINDOW_SECONDS", defaults.limit_window_seconds, minimum=1
            ),
            stream_lease_seconds=_seconds(
                env, "SCOPA_STREAM_LEASE_SECONDS", defaults.stream_lease_seconds, minimum=1
            ),
            header_timeout_seconds=_int(
                env, "SCOPA_HEADER_TIMEOUT_SECONDS", defaults.header_timeout_seconds, minimum=1
            ),
            body_timeout_seconds=_int(
                env, "SCOPA_BODY_TIMEOUT_SECONDS", defaults.body_timeout_seconds, minimum=1
            ),
            max_header_bytes=_int(
                env, "SCOPA_MAX_HEADER_BYTES", defaults.max_header_bytes, minimum=1024
            ),
            max_connections=_int(
                env, "SCOPA_MAX_CONNECTIONS", defaults.max_connections, minimum=16
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
            rated_idle_ttl_seconds=_int(
                env, "SCOPA_RATED_IDLE_TTL_SECONDS", defaults.rated_idle_ttl_seconds, minimum=1
            ),
            ai_in_process=_switch(env, "SCOPA_AI_IN_PROCESS", defaults.ai_in_process),
            ai_only_move_seconds=_seconds(
                env, "SCOPA_AI_ONLY_MOVE_SECONDS", defaults.ai_only_move_seconds
            ),
        )


def _int(env: Mapping[str, str], name: str, default: int, *, minimum: int) -> int:
    value = _number(env, name, int, "an integer")
    if value is None:
        return default
    if value < minimum:
        raise SettingsError(f"{name}={value} is below {minimum}")
    return value


def _number(env: Mapping[str, str], name: str, parse: Callable[[str], T], what: str) -> T | None:
    """``name``'s value as ``parse`` reads it; None when unset or blank."""
    text = env.get(name)
    if text is None or not text.strip():
        return None
    try:
        return parse(text)
    except ValueError:
        raise SettingsError(f"{name}={text!r} is not {what}") from None


def _choice(env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...]) -> str:
    text = env.get(name, "").strip().lower()
    if not text:
        return default
    if text not in choices:
        raise SettingsError(f"{name}={text!r} is not one of {', '.join(choices)}")
    return text


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    text = env.get(name, "").strip().lower()
    if not text:
        return default
    if text not in ("on", "off"):
        raise SettingsError(f"{name}={text!r} is neither on nor off")
    return text == "on"


def _seconds(env: Mapping[str, str], name: str, default: float, *, minimum: float = 0) -> float:
    value = _number(env, name, float, "a number of seconds")
    if value is None:
        return default
    if not minimum <= value < float("inf"):
        raise SettingsError(f"{name}={value} is not a number of seconds from {minimum:g}")
    return value


def _networks(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    entries = tuple(e.strip() for e in env.get(name, "").split(",") if e.strip())
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise SettingsError(f"{name}: {entry!r} is not an address or a network") from None
    return entries
