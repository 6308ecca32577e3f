"""Request hygiene as plain ASGI middleware: body cap and deadline, JSON-only API, rate limit,
security headers, the session cookie."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from server.clients import SESSION_COOKIE, TrustedProxies, client_address, new_session, session_key
from server.metrics import metrics_of
from server.serialize import dumps

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
# Swagger UI is served from /static (no CDN) but bootstraps with an inline script and styles.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs",)
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]
BODY_METHODS = {"POST", "PUT", "PATCH"}


async def _send_json(
    send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = dumps({"detail": detail})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ]
            + (headers or []),
        }
    )
    await send({"type": "http.response.body", "body": body})


class SecurityHeadersMiddleware:
    """Adds CSP and the other hardening headers to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = (DOCS_CSP if scope["path"].startswith(DOCS_PATHS) else CSP).encode()

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", csp))
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _drain(receive: Receive, limit: int) -> None:
    """Read and drop the rest of a request body (up to ``limit`` bytes), so that the client,
    still sending, is not cut off by a closed connection before it can read our answer."""
    drained = 0
    while drained <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return
        drained += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


class BodyLimitMiddleware:
    """413 for bodies over ``max_bytes`` (declared or streamed); 415 for non-JSON API bodies;
    408 (and the connection closed) for a body that has not arrived within ``timeout_s``.

    A refused body is drained up to ``drain_bytes`` first: answering while the client is still
    sending would close the connection under it, and it would see a broken pipe, not the 413.
    """

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        drain_bytes: int = 16 * 1024 * 1024,
        timeout_s: float = 10.0,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.drain_bytes = drain_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        if scope["path"].startswith("/api/"):
            ctype = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
            if ctype != b"application/json":
                await _drain(receive, self.drain_bytes)
                await _send_json(send, 415, "the API accepts only application/json request bodies")
                return
        declared = headers.get(b"content-length")
        too_large = f"request body too large (limit {self.max_bytes} bytes)"
        if declared is not None:
            try:
                if int(declared) > self.max_bytes:
                    await _drain(receive, self.drain_bytes)
                    await _send_json(send, 413, too_large)
                    return
            except ValueError:
                await _send_json(send, 400, "invalid Content-Length header")
                return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout_s):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_bytes:
                        if message.get("more_body", False):
                            await _drain(receive, self.drain_bytes)
                        await _send_json(send, 413, too_large)
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _send_json(
                send,
                408,
                f"the request body did not arrive within {self.timeout_s:g} s",
                [(b"connection", b"close")],
            )
            return
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class RateLimitMiddleware:
    """Per-client token bucket on /api/ paths: ``per_minute`` requests, bursts up to that many.

    The client is the peer address, or the one a trusted proxy names (server/clients.py). A
    WebSocket (live training) counts once, when it opens. Refusals are 429 with Retry-After.
    """

    def __init__(
        self,
        app: ASGIApp,
        per_minute: int,
        trusted: TrustedProxies | None = None,
        busy_first: int = 0,
    ) -> None:
        self.app = app
        self.per_minute = per_minute
        self.rate = per_minute / 60.0
        self.trusted = trusted or TrustedProxies(())
        self.busy_first = busy_first
        self._seen: dict[str, int] = {}
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _take(self, client: str) -> float:
        """0 if allowed, else the seconds until a token is free."""
        now = time.monotonic()
        with self._lock:
            tokens, last = self._buckets.get(client, (float(self.per_minute), now))
            tokens = min(float(self.per_minute), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[client] = (tokens - 1.0, now)
                if len(self._buckets) > 100_000:  # forget idle clients
                    self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < 60}
                return 0.0
            self._buckets[client] = (tokens, now)
            return (1.0 - tokens) / self.rate

    @staticmethod
    async def _refuse(
        scope: Scope, receive: Receive, send: Send, status: int, retry: int, detail: str
    ) -> None:
        """429/503 with Retry-After; a WebSocket is accepted and closed with 1013 ("try again
        later") and ``{"retry_after": s}``, which a page can read (a refused handshake it
        cannot: the browser reports only that the connection failed)."""
        if scope["type"] == "websocket":
            message = await receive()
            if message["type"] != "websocket.connect":
                return
            await send({"type": "websocket.accept"})
            reason = f'{{"retry_after": {retry}, "status": {status}}}'
            await send({"type": "websocket.close", "code": 1013, "reason": reason})
            return
        await _drain(receive, 1 << 20)
        await _send_json(
            send, status, f"{detail}; retry in {retry} s", [(b"retry-after", str(retry).encode())]
        )

    def _simulated_busy(self, client: str) -> bool:
        """``busy_first_requests``: pretend to be saturated for a client's first N pieces of
        work (POSTs and live-training connections), to test the pages' back-off."""
        with self._lock:
            seen = self._seen.get(client, 0)
            self._seen[client] = seen + 1
        return seen < self.busy_first

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        client = client_address(scope, self.trusted)
        work = scope["type"] == "websocket" or scope["method"] == "POST"
        if self.busy_first and work and self._simulated_busy(client):
            await self._refuse(
                scope, receive, send, 503, 1, "busy: simulated (busy_first_requests)"
            )
            return
        wait = self._take(client) if self.per_minute > 0 else 0.0
        if wait > 0:
            stats = metrics_of(scope.get("app"))
            if stats is not None:
                stats.refusals.labels("rate_limit").inc()
            await self._refuse(
                scope, receive, send, 429, max(1, math.ceil(wait)), "rate limit exceeded"
            )
            return
        await self.app(scope, receive, send)


class SessionCookieMiddleware:
    """Gives each browser a session cookie (on pages and API answers, when it has none): the
    admission queue takes turns between the sessions behind one address (server/clients.py)."""

    PATHS = ("/", "/train")

    def __init__(self, app: ASGIApp, max_age_s: int = 30 * 24 * 3600) -> None:
        self.app = app
        self.max_age_s = max_age_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or not (path in self.PATHS or path.startswith("/api/"))
            or session_key(scope)
        ):
            await self.app(scope, receive, send)
            return
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = (
            f"{SESSION_COOKIE}={new_session()}; Path=/; Max-Age={self.max_age_s}; HttpOnly; "
            f"SameSite=Strict{secure}"
        ).encode()

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie)]
            await send(message)

        await self.app(scope, receive, send_with_cookie)
