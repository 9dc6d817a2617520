"""Who the client is, as every per-address limit counts it (docs/api.md, "Limits").

The client is the connection's peer. Only when the peer is one of the trusted proxies
(``SCOPA_TRUSTED_PROXIES``) is ``X-Forwarded-For`` read: each proxy appends the address
it got the request from, so reading from the right, the first address that is not a
trusted proxy is the client; what lies left of it was written by the client itself and is
not believed. An IPv6 client counts as its /64 network, since one host is routinely given
a whole /64 to pick addresses from.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Iterator

from litestar.types import Scope

IPV6_PREFIX = 64
UNKNOWN = "unknown"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped  # a dual-stack socket's view of an IPv4 client
    return address


def _key(address: Address) -> str:
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_PREFIX), strict=False))
    return str(address)


def _forwarded(scope: Scope) -> Iterator[str]:
    """X-Forwarded-For entries, every header's, rightmost first."""
    entries: list[str] = []
    for name, value in scope["headers"]:
        if name == b"x-forwarded-for":
            entries.extend(value.decode("latin-1").split(","))
    return reversed(entries)


class Clients:
    """The client of a request, as its limits count it: an address (IPv4) or a /64."""

    def __init__(self, trusted_proxies: Iterable[str] = ()) -> None:
        self.trusted = tuple(ipaddress.ip_network(t, strict=False) for t in trusted_proxies)

    def _trusted(self, address: Address) -> bool:
        return any(address in network for network in self.trusted)

    def of(self, scope: Scope) -> str:
        peer = scope.get("client")
        if not peer:
            return UNKNOWN
        address = _address(peer[0])
        if address is None:
            return peer[0]  # not an IP socket (a test transport, a Unix socket)
        if self.trusted:
            for entry in _forwarded(scope):
                if not self._trusted(address):
                    break
                forwarded = _address(entry)
                if forwarded is None:
                    # Not what a proxy writes: the last hop known is the client.
                    break
                address = forwarded
        return _key(address)
