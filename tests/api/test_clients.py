"""Who the client is (api.clients), and the limits' settings (SCOPA_LIMITS and kin)."""

from __future__ import annotations

from typing import cast

import pytest
from litestar.types import HTTPScope

from scopa.api.clients import Clients
from scopa.infra.settings import QUOTAS, Settings, SettingsError


def scope(peer: str | None, *forwarded: str) -> HTTPScope:
    # Only what Clients.of reads: a whole HTTPScope would need an app and a route handler.
    return cast(
        HTTPScope,
        {
            "client": (peer, 5000) if peer else None,
            "headers": [(b"x-forwarded-for", f.encode()) for f in forwarded],
        },
    )


def test_the_peer_is_the_client_unless_it_is_a_trusted_proxy() -> None:
    assert Clients().of(scope("192.0.2.1", "203.0.113.5")) == "192.0.2.1"
    assert Clients(["10.0.0.0/8"]).of(scope("192.0.2.1", "203.0.113.5")) == "192.0.2.1"
    assert Clients(["10.0.0.0/8"]).of(scope("10.0.0.1", "203.0.113.5")) == "203.0.113.5"
    assert Clients(["10.0.0.1"]).of(scope("10.0.0.1")) == "10.0.0.1"


def test_the_rightmost_untrusted_entry_counts_over_every_header() -> None:
    clients = Clients(["10.0.0.0/8", "2001:db8:ff::/48"])
    assert clients.of(scope("10.0.0.1", "1.1.1.1, 203.0.113.5")) == "203.0.113.5"
    assert clients.of(scope("10.0.0.1", "203.0.113.5, 10.2.2.2")) == "203.0.113.5"
    assert clients.of(scope("10.0.0.1", "1.1.1.1", "203.0.113.5 , 10.9.9.9")) == "203.0.113.5"
    assert clients.of(scope("2001:db8:ff::1", "198.51.100.7")) == "198.51.100.7"


def test_a_malformed_entry_stops_the_walk_at_the_last_trusted_hop() -> None:
    clients = Clients(["10.0.0.0/8"])
    assert clients.of(scope("10.0.0.1", "203.0.113.5, garbage")) == "10.0.0.1"
    assert clients.of(scope("10.0.0.1", "203.0.113.5, garbage, 10.3.3.3")) == "10.3.3.3"


def test_ipv6_counts_per_64_and_mapped_ipv4_as_ipv4() -> None:
    clients = Clients()
    assert clients.of(scope("2001:db8:1:2:3:4:5:6")) == "2001:db8:1:2::/64"
    assert clients.of(scope("2001:db8:1:2::9")) == "2001:db8:1:2::/64"
    assert clients.of(scope("::ffff:192.0.2.4")) == "192.0.2.4"
    assert clients.of(scope(None)) == "unknown"
    assert clients.of(scope("testclient")) == "testclient"


def test_limits_off_lifts_every_quota_not_given_explicitly() -> None:
    on = Settings.from_env({})
    assert (on.rate_limit, on.waiting_per_address, on.ai_only_per_address) == (300, 10, 2)
    assert (on.joins_per_minute, on.streams_per_address, on.streams_per_match) == (30, 50, 2000)
    assert (on.hints_per_minute, on.hints_per_address_per_minute) == (20, 120)
    assert on.reviews_per_minute == 10
    off = Settings.from_env({"SCOPA_LIMITS": "off", "SCOPA_RATE_LIMIT": "300"})
    assert off.rate_limit == 300
    assert all(getattr(off, name) == 0 for name in QUOTAS if name != "rate_limit")
    assert Settings.from_env({"SCOPA_RATE_LIMIT": "0"}).joins_per_minute == 30


@pytest.mark.parametrize(
    "env",
    [
        {"SCOPA_LIMITS": "maybe"},
        {"SCOPA_TRUSTED_PROXIES": "10.0.0.0/8, proxy.local"},
        {"SCOPA_STREAMS_PER_MATCH": "-1"},
    ],
)
def test_bad_limit_settings_are_refused(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        Settings.from_env(env)


def test_trusted_proxies_are_read_as_a_list() -> None:
    settings = Settings.from_env({"SCOPA_TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.7 ,"})
    assert settings.trusted_proxies == ("10.0.0.0/8", "192.0.2.7")
