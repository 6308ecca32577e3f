"""Serving a class (issue 21): faults heal, hostile clients bounce, the wire is light.

- A killed zygote is replaced without any request: /readyz is 200 again within 10 s; liveness
  fails only when it cannot be restarted.
- Every malformed body is a 4xx (a lone surrogate too); a WebSocket message over the body cap
  is refused from its header (twenty 16 MiB messages grow the server by less than 100 MB); a
  connection that sends no head, or sends it a byte at a time, is closed; a body that does not
  arrive is a 408; accepted sockets have TCP_NODELAY; idle WebSockets are closed and one
  address holds a bounded number of live runs.
- Long programs leave the short slots: a class's short runs pass a few endless loops.
- Answers are gzipped, bundles are content-hashed, immutable and pre-compressed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from uvicorn.server import ServerState

from bench.classroom import LESSON
from server.app import create_app
from server.sandbox.pool import SandboxUnavailable
from server.serving import HttpProtocol
from server.training import live
from tests.api.conftest import make_settings
from tests.e2e.live_server import free_port, live_server

ROOT = Path(__file__).resolve().parents[2]
LIVE = "/api/v1/train/live"


def _wait(condition: Any, timeout: float, every: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return bool(condition())


# ---- faults heal ------------------------------------------------------------------------------


def test_readyz_is_200_again_within_10_s_of_a_zygote_kill_without_any_run() -> None:
    with TestClient(create_app(make_settings())) as client:
        sandbox = client.app.state.sandbox  # type: ignore[attr-defined]
        old = sandbox._zygote.pid
        assert client.get("/readyz").status_code == 200
        os.kill(old, signal.SIGKILL)
        killed = time.monotonic()
        statuses: list[int] = []

        def back() -> bool:
            statuses.append(client.get("/readyz").status_code)
            return (
                statuses[-1] == 200 and sandbox._zygote is not None and sandbox._zygote.pid != old
            )

        assert _wait(back, 10.0, every=0.1), statuses[-5:]
        assert time.monotonic() - killed <= 10.0
        assert sandbox.restarts == 1
        assert client.get("/healthz").json() == {"status": "ok", "sandbox": "seccomp"}
        body = client.post("/api/v1/run", json={"source": "print(6 * 7)"}).json()
        assert body["ok"] and body["stdout"] == "42\n"


def test_liveness_fails_only_when_the_sandbox_cannot_be_restarted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with TestClient(create_app(make_settings(sandbox_restart_deadline_s=1.0))) as client:
        sandbox = client.app.state.sandbox  # type: ignore[attr-defined]

        def cannot() -> Any:
            raise SandboxUnavailable("the zygote cannot start (test)")

        monkeypatch.setattr(sandbox, "_start_zygote", cannot)
        monkeypatch.setattr(sandbox, "_activate_standby", lambda: None)  # its standby died too
        os.kill(sandbox._zygote.pid, signal.SIGKILL)
        assert _wait(lambda: client.get("/readyz").status_code == 503, 5.0)
        assert client.get("/healthz").status_code == 200  # restarting: still alive
        assert _wait(lambda: client.get("/healthz").status_code == 503, 10.0)
        assert client.get("/healthz").json() == {"status": "failing", "sandbox": "failed"}


# ---- hostile clients bounce -------------------------------------------------------------------

SURROGATE_BODIES = [
    ("/api/v1/run", b'{"source": "\\ud800"}'),
    ("/api/v1/run", b'{"source": "x = 1", "device": "\\udfff"}'),
    ("/api/v1/run", b'{"source": "x = 1", "bindings": {"\\ud800": 1.0}}'),
    ("/api/v1/run", b'{"source": "x = 1", "\\ud800": 1}'),
    ("/api/v1/run", b'"\\ud800"'),
    ("/api/v1/run", b'{"\\udc00\\ud800": "\\ud83d"}'),
    ("/api/v1/train", b'{"dataset": {"name": "\\ud800"}}'),
    ("/api/v1/train/stream", b'{"model": {"activation": "\\ud800"}}'),
]


@pytest.mark.parametrize(("path", "body"), SURROGATE_BODIES)
def test_a_lone_surrogate_anywhere_is_a_4xx(client: TestClient, path: str, body: bytes) -> None:
    response = client.post(path, content=body, headers={"content-type": "application/json"})
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["detail"]


def test_a_lone_surrogate_in_a_live_message_is_an_error_message(client: TestClient) -> None:
    with client.websocket_connect(LIVE) as ws:
        ws.send_text('{"type": "\\ud800"}')
        message = json.loads(ws.receive_text())
    assert message["type"] == "error"


@contextlib.contextmanager
def _server_process(**env: str) -> Iterator[tuple[str, int]]:
    """``python -m server`` (one process) on a free port: (base URL, its pid)."""
    port = free_port()
    environ = {k: v for k, v in os.environ.items() if not k.startswith("AGP_")}
    environ.update({"AGP_SANDBOX_WORKERS": "1", "AGP_RATE_LIMIT_PER_MINUTE": "0", **env})
    process = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", str(port), "--workers", "1"],
        env=environ,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def up() -> bool:
            with contextlib.suppress(httpx.HTTPError):
                return httpx.get(f"{base}/readyz", timeout=2).status_code == 200
            return False

        assert _wait(up, 60.0, every=0.2), "the server did not start"
        yield base, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_twenty_16_mib_websocket_messages_grow_the_server_by_less_than_100_mb() -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    message = "x" * (16 * 1024 * 1024)
    with _server_process() as (base, pid):
        url = base.replace("http", "ws") + LIVE
        with connect(url) as ws:  # the server's first WebSocket: its code paths loaded
            ws.send('{"type": "pause"}')
        time.sleep(0.5)
        before = _rss_bytes(pid)
        codes = []
        for _ in range(20):
            try:
                with connect(url, max_size=None, close_timeout=5) as ws:
                    with contextlib.suppress(ConnectionClosed, OSError):
                        ws.send(message)
                    with contextlib.suppress(ConnectionClosed, TimeoutError):
                        ws.recv(timeout=10)
                codes.append(ws.close_code)
            except (ConnectionClosed, OSError) as exc:  # closed under our feet: refused
                codes.append(getattr(getattr(exc, "rcvd", None), "code", None))
        time.sleep(0.5)
        grown = _rss_bytes(pid) - before
    assert codes.count(1009) >= 15, codes  # "message too big", from the frame's header
    assert grown < 100 * 1024 * 1024, f"the server grew by {grown / 2**20:.0f} MiB"


def _closed_by_peer(sock: socket.socket, timeout: float) -> bool:
    """Whether the peer closes ``sock`` within ``timeout`` (reading whatever it sends)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], max(0.0, deadline - time.monotonic()))
        if ready:
            try:
                if not sock.recv(65536):
                    return True
            except OSError:
                return True
    return False


@pytest.fixture(scope="module")
def impatient() -> Iterator[str]:
    """A real uvicorn server (as `python -m server` configures it) with 1-second head and body
    deadlines."""
    app = create_app(make_settings(header_timeout_s=1.0, body_timeout_s=1.0))
    with live_server(app) as base:
        yield base


def _connect(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def test_silent_connections_are_closed(impatient: str) -> None:
    socks = [_connect(impatient) for _ in range(200)]
    try:
        assert all(_closed_by_peer(s, 6.0) for s in socks)
    finally:
        for s in socks:
            s.close()


def test_a_head_sent_a_byte_at_a_time_is_cut_off(impatient: str) -> None:
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nUser-Agent: slow\r\nAccept: */*\r\n\r\n"
    with _connect(impatient) as sock:
        sent = 0
        for byte in head:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            sent += 1
            if _closed_by_peer(sock, 0.2):
                break
        assert sent < len(head)  # cut off before its head was complete
    # and on a kept-alive connection, the next request's head too
    with _connect(impatient) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b"200 OK" in sock.recv(65536)
        sock.sendall(b"GET /heal")
        assert _closed_by_peer(sock, 6.0)


def test_a_body_that_does_not_arrive_is_a_408(impatient: str) -> None:
    with _connect(impatient) as sock:
        sock.sendall(
            b"POST /api/v1/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"sou'
        )
        sock.settimeout(6.0)
        answer = b""
        while chunk := sock.recv(65536):  # until it closes the connection
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408")
    assert b"did not arrive" in answer


def test_a_websocket_outlives_the_head_deadline(impatient: str) -> None:
    from websockets.sync.client import connect

    with connect(impatient.replace("http", "ws") + LIVE) as ws:
        time.sleep(1.5)  # past the 1 s head deadline: a WebSocket is not a slow head
        ws.send('{"type": "nonsense"}')
        assert json.loads(ws.recv(timeout=5))["type"] == "error"


def test_every_accepted_socket_gets_tcp_nodelay() -> None:
    """With several processes uvicorn binds the listening socket without naming TCP (proto 0),
    and asyncio then leaves Nagle on for the sockets it accepts; the protocol turns it off."""
    listener = socket.socket(socket.AF_INET)  # as uvicorn's Config.bind_socket makes it
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0

        class Transport(asyncio.Transport):
            def get_extra_info(self, name: str, default: Any = None) -> Any:
                extra = {"socket": accepted, "peername": ("127.0.0.1", 1), "sockname": ("::", 2)}
                return extra.get(name, default)

            def is_closing(self) -> bool:
                return False

            def close(self) -> None:
                pass

        async def connect() -> None:
            config = uvicorn.Config(create_app(make_settings()), http=HttpProtocol)
            config.load()
            protocol = HttpProtocol(config=config, server_state=ServerState(), app_state={})
            protocol.connection_made(Transport())
            protocol.connection_lost(None)

        asyncio.run(connect())
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        for s in (client, accepted, listener):
            s.close()


def test_a_socket_that_never_starts_a_live_run_is_closed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(start_s=0.3))
    with client.websocket_connect(LIVE) as ws, pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == 1001 and json.loads(closed.value.reason) == {"idle": True}


def test_one_address_holds_at_most_its_share_of_live_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle sockets from one address cannot starve another address's real runs."""
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(max_runs=10, max_runs_per_client=2))
    settings = make_settings(forwarded_allow_ips="testclient")
    with TestClient(create_app(settings)) as client:
        crowd = {"x-forwarded-for": "198.51.100.1"}
        with (
            client.websocket_connect(LIVE, headers=crowd),
            client.websocket_connect(LIVE, headers=crowd),
        ):
            with (
                client.websocket_connect(LIVE, headers=crowd) as third,
                pytest.raises(WebSocketDisconnect) as refused,
            ):
                third.receive_json()
            assert refused.value.code == 1013
            assert json.loads(refused.value.reason)["retry_after"] >= 1
            other = {"x-forwarded-for": "203.0.113.7"}
            with client.websocket_connect(LIVE, headers=other) as ws:
                ws.send_text('{"type": "nonsense"}')
                assert json.loads(ws.receive_text())["type"] == "error"  # served


# ---- short programs stay fast beside long ones ------------------------------------------------


def test_endless_loops_leave_the_short_slots_to_short_programs() -> None:
    """One short slot, two endless loops: each is demoted past its slice, and quick programs
    queued behind them are served while the loops still run."""
    settings = make_settings(
        sandbox_workers=1,
        sandbox_long_workers=2,
        sandbox_slice_s=0.1,
        wall_clock_s=8.0,
        admission_queue=8,
    )
    loop = "while True:\n    pass"
    with TestClient(create_app(settings)) as client:
        finished: list[tuple[str, float, int]] = []

        def post(name: str, source: str, session: str) -> None:
            response = client.post(
                "/api/v1/run", json={"source": source}, headers={"cookie": f"agp_session={session}"}
            )
            finished.append((name, time.monotonic(), response.status_code))

        threads = [
            threading.Thread(target=post, args=(f"loop{i}", loop, f"looper-session-{i:04d}"))
            for i in range(2)
        ]
        for thread in threads:
            thread.start()
        time.sleep(0.2)
        quick = [
            threading.Thread(
                target=post, args=(f"quick{i}", "print(1)", f"student-session-{i:03d}")
            )
            for i in range(4)
        ]
        for thread in quick:
            thread.start()
        for thread in threads + quick:
            thread.join()
        admission = client.app.state.admission  # type: ignore[attr-defined]
    assert len(finished) == 6 and all(status == 200 for _, _, status in finished), finished
    order = [name for name, _, _ in sorted(finished, key=lambda f: f[1])]
    assert all(name.startswith("quick") for name in order[:4]), order  # before either loop
    assert admission.counters.demoted >= 2


def test_each_browser_gets_a_session_cookie(client: TestClient) -> None:
    fresh = httpx.Client(transport=client._transport, base_url=str(client.base_url))  # type: ignore[attr-defined]
    page = fresh.get("/")
    cookie = page.headers["set-cookie"]
    assert (
        cookie.startswith("agp_session=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    )
    again = fresh.get("/api/v1/devices")
    assert "set-cookie" not in again.headers  # it has one now
    assert "set-cookie" not in fresh.get("/static/favicon.svg").headers  # nor on cached files


# ---- a light wire -----------------------------------------------------------------------------

# LESSON (bench/classroom.py): the 30-step lesson whose answer the bench weighs on the wire too.


def test_a_lesson_answer_travels_gzipped_at_most_40_percent(client: TestClient) -> None:
    response = client.post(
        "/api/v1/run", json={"source": LESSON}, headers={"accept-encoding": "gzip"}
    )
    assert response.status_code == 200 and response.json()["ok"]
    assert response.headers["content-encoding"] == "gzip"
    raw = len(response.content)
    assert raw > 100_000  # a real lesson answer: 30 passes, 20 drawn
    assert response.num_bytes_downloaded <= 0.4 * raw
    plain = client.post(
        "/api/v1/run", json={"source": LESSON}, headers={"accept-encoding": "identity"}
    )
    assert "content-encoding" not in plain.headers
    assert abs(len(plain.content) - raw) < 100  # the same answer (but for its timings)


@pytest.mark.parametrize("coding", ["br", "gzip"])
def test_bundles_are_hashed_immutable_and_precompressed(client: TestClient, coding: str) -> None:
    manifest = json.loads((ROOT / "static/dist/manifest.json").read_text())
    page = client.get("/").text
    for name in ("playground.js", "layout-worker.js"):
        hashed = manifest[name]
        assert hashed != name and hashed.endswith(".js")
        if name == "playground.js":
            assert f'src="/static/dist/{hashed}"' in page
        raw = (ROOT / "static/dist" / hashed).stat().st_size
        response = client.get(f"/static/dist/{hashed}", headers={"accept-encoding": coding})
        assert response.status_code == 200
        assert response.headers["content-encoding"] == coding
        assert response.headers["content-type"].startswith("text/javascript")
        assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert "accept-encoding" in response.headers["vary"].lower()
        assert response.num_bytes_downloaded <= 0.4 * raw
        file = ROOT / "static/dist" / hashed
        if coding == "gzip" or len(response.content) == raw:  # decoded (httpx has gzip)
            assert response.content == file.read_bytes()
        else:  # httpx decodes Brotli only with the brotli package: the bytes as sent
            assert response.content == file.with_name(file.name + ".br").read_bytes()
    assert 'src="/static/dist/train.js"' not in client.get("/train").text
    assert f'src="/static/dist/{manifest["train.js"]}"' in client.get("/train").text


def test_unhashed_files_are_revalidated(client: TestClient) -> None:
    first = client.get("/static/css/base.css")
    assert first.headers["cache-control"] == "no-cache"
    again = client.get("/static/css/base.css", headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304
