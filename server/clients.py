"""Who a request comes from: the peer address, or the client a trusted proxy names; and which
browser session of that client (a cookie), for fairness among the students behind one address.

``X-Forwarded-For`` and ``Forwarded`` are honoured only when the peer is a trusted proxy (the
``forwarded_allow_ips`` setting, with uvicorn's ``--forwarded-allow-ips`` semantics: a list of
addresses or networks, ``*`` for any; empty by default). The client is then the right-most
address in the chain that is not itself a trusted proxy, so a client cannot pick its own
identity by sending the header: anything it writes is to the left of what its proxy appends.
"""

from __future__ import annotations

import ipaddress
import re
import secrets
from collections.abc import Iterable, MutableMapping
from typing import Any

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class TrustedProxies:
    """The peers whose forwarding headers are believed."""

    def __init__(self, entries: Iterable[str]) -> None:
        self.any = False
        self.networks: list[Network] = []
        self.literals: set[str] = set()
        for raw in entries:
            entry = raw.strip()
            if not entry:
                continue
            if entry == "*":
                self.any = True
                continue
            try:
                self.networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self.literals.add(entry)  # a unix socket path or a host name, compared as text

    def __bool__(self) -> bool:
        return self.any or bool(self.networks) or bool(self.literals)

    def trusts(self, host: str) -> bool:
        if self.any or host in self.literals:
            return True
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.networks)


def _forwarded_for(value: str) -> list[str]:
    """The ``for=`` addresses of an RFC 7239 ``Forwarded`` header, in order."""
    hosts = []
    for element in value.split(","):
        for pair in element.split(";"):
            key, _, raw = pair.strip().partition("=")
            if key.lower() != "for" or not raw:
                continue
            host = raw.strip().strip('"')
            if host.startswith("["):  # [2001:db8::1]:4711
                host = host[1:].partition("]")[0]
            elif host.count(":") == 1:  # 192.0.2.60:4711
                host = host.partition(":")[0]
            hosts.append(host)
    return hosts


def client_address(scope: MutableMapping[str, Any], trusted: TrustedProxies) -> str:
    """The address that requests are counted against."""
    peer = (scope.get("client") or ("unknown", 0))[0]
    if not trusted or not trusted.trusts(peer):
        return str(peer)
    chain: list[str] = []
    for name, value in scope.get("headers", []):
        if name == b"forwarded":
            chain.extend(_forwarded_for(value.decode("latin-1")))
        elif name == b"x-forwarded-for":
            chain.extend(h.strip() for h in value.decode("latin-1").split(",") if h.strip())
    for host in reversed(chain):
        if not trusted.trusts(host):
            return host
    return chain[0] if chain else str(peer)


def client_of(request: Any) -> str:
    """The client of a Starlette request, by the app's trusted proxies (set at start-up)."""
    trusted = getattr(request.app.state, "trusted_proxies", None) or TrustedProxies(())
    return client_address(request.scope, trusted)


#: The cookie that tells a client's browser sessions apart (set by SessionCookieMiddleware on
#: pages and API answers). In the admission queue it orders an address's own turns (turns are
#: shared by address first), and each session has its own fair share of slots (forty
#: students behind one school address each hold their own); the rate limit stays per address,
#: which is what bounds a client that mints a session per request.
SESSION_COOKIE = "agp_session"
_SESSION = re.compile(r"[A-Za-z0-9_-]{16,64}")


def new_session() -> str:
    return secrets.token_urlsafe(16)


def session_key(scope: MutableMapping[str, Any]) -> str:
    """The request's session cookie if it has a well-formed one, else ""."""
    for name, value in scope.get("headers", []):
        if name != b"cookie":
            continue
        for pair in value.decode("latin-1").split(";"):
            key, _, raw = pair.strip().partition("=")
            if key == SESSION_COOKIE and _SESSION.fullmatch(raw):
                return raw
    return ""


def session_of(request: Any) -> str:
    """The browser session of a Starlette request or WebSocket ("" without one)."""
    return session_key(request.scope)
