"""How uvicorn serves the app: its options, and an HTTP protocol with what uvicorn lacks.

uvicorn (h11) has a keep-alive timeout (an idle connection after a response) but none for a
request's head: a client that connects and says nothing, or sends its head a byte a second,
keeps its connection for as long as it likes. And with more than one process, uvicorn binds
the listening socket itself without naming TCP, so asyncio does not set ``TCP_NODELAY`` on
the sockets it accepts: a kept-alive request then waits for delayed ACKs (~40 ms). Both are
fixed here, in :class:`HttpProtocol`, uvicorn's own h11 protocol plus:

- ``TCP_NODELAY`` on every accepted TCP socket;
- a head deadline: from connecting, and from the first byte of each later request on a
  kept-alive connection, the whole head must arrive within ``header_timeout_s`` (else the
  connection is closed). Bodies have their deadline in the app (BodyLimitMiddleware: 408).

WebSocket messages are capped at the body cap by uvicorn itself (``ws_max_size``): a frame
whose header announces more is refused (1009) before its payload is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from server.settings import Settings, get_settings


class HttpProtocol(H11Protocol):
    """uvicorn's h11 protocol with ``TCP_NODELAY`` and a deadline for each request's head."""

    #: seconds a request's head may take; None: the process's settings (AGP_HEADER_TIMEOUT_S).
    #: A class attribute, not an argument: uvicorn makes the protocol itself, and with several
    #: processes sends them its configuration, this class included, by name.
    header_timeout_s: float | None = None

    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        waiting = self._waiting_for_head()
        super().data_received(data)
        if self.transport.get_protocol() is not self or not self._waiting_for_head():
            self._disarm()  # the head is in (or the connection became a WebSocket)
        elif not waiting or self._head_deadline is None:
            self._arm()  # the first bytes of a new request on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        self._disarm()  # idle until the next request: uvicorn's keep-alive timeout applies
        super().on_response_complete()

    def _waiting_for_head(self) -> bool:
        """No request in progress: between requests, or part way through a head."""
        return self.cycle is None or self.cycle.response_complete

    def _arm(self) -> None:
        self._disarm()
        timeout = self.header_timeout_s
        if timeout is None:
            timeout = get_settings().header_timeout_s
        self._head_deadline = self.loop.call_later(timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _too_slow(self) -> None:
        self._head_deadline = None
        if self._waiting_for_head() and not self.transport.is_closing():
            self.transport.close()


def protocol_for(settings: Settings) -> type[HttpProtocol]:
    """:class:`HttpProtocol` with these settings' head deadline (the class itself when they are
    the process's: a made-up class cannot be sent to other processes)."""
    if settings.header_timeout_s == get_settings().header_timeout_s:
        return HttpProtocol
    return type("HttpProtocol", (HttpProtocol,), {"header_timeout_s": settings.header_timeout_s})


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The uvicorn options the app is served with (``python -m server`` and the tests' live
    servers)."""
    return {
        # libuv's event loop: the HTTP and routing of a request take half the CPU time they
        # take on asyncio's own loop (what each of a classroom's runs pays before its program)
        "loop": "uvloop",
        "http": protocol_for(settings),
        "ws": "websockets-sansio",
        "ws_max_size": settings.max_body_bytes,
        "timeout_keep_alive": settings.keep_alive_s,
        # client addresses from proxy headers are the app's business, and only from the
        # proxies AGP_FORWARDED_ALLOW_IPS trusts (uvicorn would trust 127.0.0.1 by default)
        "proxy_headers": False,
    }
