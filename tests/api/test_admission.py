"""Admission control, per-client limits and refusals a client can read (issue 12).

Overload is shed with 503 + Retry-After from a bounded, fair queue; per-client limits key on
the real client (proxy headers only from trusted proxies); a refused over-size body is drained
so the client reads its 413 instead of a broken pipe; /readyz and /metrics tell an operator.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.admission import Admission, Busy, Ticket
from server.app import create_app
from server.clients import TrustedProxies, client_address
from server.settings import Settings
from tests.api.conftest import make_settings
from tests.e2e.live_server import live_server

SLOW = "import time\ntime.sleep(1.5)\nprint('slept')"


# ---- the queue --------------------------------------------------------------------------------


def test_slots_then_queue_then_refusal_with_retry_after() -> None:
    async def scenario() -> None:
        gate = Admission(slots=2, queue_limit=2, max_wait_s=10.0)
        await gate.enter("a")
        await gate.enter("b")
        assert gate.running == 2
        waiters = [asyncio.ensure_future(gate.enter(c)) for c in ("c", "d")]
        await asyncio.sleep(0)
        assert gate.queued == 2
        with pytest.raises(Busy) as refused:
            await gate.enter("e")
        assert refused.value.retry_after >= 1 and "full" in refused.value.reason
        gate.leave(0.1)
        gate.leave(0.1)
        await asyncio.gather(*waiters)
        assert (gate.running, gate.queued) == (2, 0)
        gate.leave(0.1)
        gate.leave(0.1)
        assert gate.running == 0

    asyncio.run(scenario())


def test_queue_is_round_robin_across_clients() -> None:
    """A client with many queued requests does not starve one that queued a single request."""

    async def scenario() -> list[str]:
        gate = Admission(slots=1, queue_limit=10, max_wait_s=10.0)
        await gate.enter("first")
        order: list[str] = []

        async def wait(client: str) -> None:
            await gate.enter(client)
            order.append(client)

        tasks = [asyncio.ensure_future(wait(c)) for c in ("busy", "busy", "busy", "quiet")]
        await asyncio.sleep(0)
        for _ in range(5):
            gate.leave(0.01)
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(scenario()) == ["busy", "quiet", "busy", "busy"]


def test_nobody_waits_past_the_budget() -> None:
    async def scenario() -> None:
        gate = Admission(slots=1, queue_limit=10, max_wait_s=0.2)
        await gate.enter("a")
        started = time.monotonic()
        with pytest.raises(Busy, match="waited"):
            await gate.enter("b")
        assert 0.15 < time.monotonic() - started < 1.0
        assert gate.queued == 0
        gate._service_s = 1.0  # slow work: a long queue is refused at once, not after waiting
        await_started = time.monotonic()
        with pytest.raises(Busy, match="longer than"):
            await gate.enter("c")
        assert time.monotonic() - await_started < 0.05

    asyncio.run(scenario())


def test_a_cancelled_waiter_gives_its_place_back() -> None:
    async def scenario() -> None:
        gate = Admission(slots=1, queue_limit=5, max_wait_s=5.0)
        await gate.enter("a")
        task = asyncio.ensure_future(gate.enter("b"))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert gate.queued == 0
        gate.leave(0.01)
        assert gate.running == 0

    asyncio.run(scenario())


def test_sessions_behind_one_address_take_turns_but_gain_it_no_share() -> None:
    """Forty students behind one address: each session gets its turn within the address; an
    address with many sessions still gets one turn per round across addresses."""

    async def scenario() -> list[str]:
        gate = Admission(slots=1, queue_limit=20, max_wait_s=10.0)
        await gate.enter("school", "teacher")
        order: list[str] = []

        async def wait(client: str, session: str) -> None:
            await gate.enter(client, session)
            order.append(f"{client}/{session}")

        arrivals = [("school", "ann"), ("school", "ann"), ("school", "ann"), ("school", "bob"),
                    ("school", "cy"), ("home", "dee")]  # fmt: skip
        tasks = [asyncio.ensure_future(wait(c, s)) for c, s in arrivals]
        await asyncio.sleep(0)
        for _ in range(len(arrivals)):
            gate.leave(0.01)
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
        return order

    assert asyncio.run(scenario()) == [
        "school/ann", "home/dee", "school/bob", "school/cy", "school/ann", "school/ann",
    ]  # fmt: skip


def test_long_work_moves_to_its_own_slots_and_frees_the_short_one() -> None:
    async def scenario() -> None:
        gate = Admission(slots=1, queue_limit=5, max_wait_s=10.0, long_slots=1)
        async with gate.slot("a") as looping:
            waiter = asyncio.ensure_future(gate.enter("b"))
            await asyncio.sleep(0)
            assert gate.queued == 1
            gate.demote(looping)  # it has used its slice: b takes the short slot at once
            await asyncio.wait_for(waiter, 1.0)
            assert (gate.running, gate.running_long, gate.queued) == (1, 1, 0)
            assert looping.long and gate.counters.demoted == 1
            # b turns long too, but the long slot is taken: it keeps its short slot meanwhile
            second = Ticket(time.monotonic())  # b's, as gate.slot would make it
            gate.demote(second)
            assert not second.long and (gate.running, gate.running_long) == (1, 1)
        # the first loop ends: the waiting long work takes its long slot, the short one frees
        assert second.long and (gate.running, gate.running_long) == (0, 1)
        gate.finish(second)
        assert (gate.running, gate.running_long) == (0, 0)

    asyncio.run(scenario())


# ---- through the API ----------------------------------------------------------------------------


def _post_in_thread(client: TestClient, source: str, results: list[Any]) -> threading.Thread:
    def go() -> None:
        results.append(client.post("/api/v1/run", json={"source": source}))

    thread = threading.Thread(target=go)
    thread.start()
    return thread


def test_saturated_server_answers_503_with_retry_after() -> None:
    # the sleepers keep their slots (asleep half a second, a program is long by default, and
    # gives its short slot to the next in line: tests/api/test_serving.py's subject, not this)
    settings = make_settings(
        sandbox_workers=1,
        admission_queue=1,
        wall_clock_s=3.0,
        admission_max_wait_s=3.0,
        sandbox_slice_s=30.0,
    )
    with TestClient(create_app(settings)) as client:
        results: list[Any] = []
        first = _post_in_thread(client, SLOW, results)
        time.sleep(0.3)
        second = _post_in_thread(client, SLOW, results)  # waits in the queue
        time.sleep(0.3)
        refused = client.post("/api/v1/run", json={"source": "print(1)"})
        first.join()
        second.join()
        ready_after = client.get("/readyz")
        metrics = client.get("/metrics").text
    assert refused.status_code == 503
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.json()["detail"].startswith("busy: the queue is full")
    assert [r.status_code for r in results] == [200, 200]
    assert all(r.json()["stdout"] == "slept\n" for r in results)
    assert ready_after.status_code == 200 and ready_after.json()["status"] == "ready"
    assert 'agp_refusals_total{reason="queue_full"} 1.0' in metrics
    assert 'agp_runs_total{outcome="ok"} 2.0' in metrics
    assert "agp_run_seconds_bucket" in metrics and "agp_queue_depth 0.0" in metrics


def test_readyz_and_healthz() -> None:
    with TestClient(create_app(make_settings())) as client:
        ready = client.get("/readyz")
        health = client.get("/healthz")
    assert ready.status_code == 200
    assert ready.json()["status"] == "ready" and ready.json()["slots"] >= 1
    assert health.json()["status"] == "ok"


# ---- who the client is --------------------------------------------------------------------------


def _scope(peer: str, **headers: str) -> dict[str, Any]:
    return {
        "client": (peer, 1234),
        "headers": [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }


def test_forwarded_headers_only_from_trusted_proxies() -> None:
    nobody = TrustedProxies(())
    proxy = TrustedProxies(["10.0.0.0/8", "127.0.0.1"])
    spoofed = _scope("203.0.113.9", x_forwarded_for="1.2.3.4")
    assert client_address(spoofed, nobody) == "203.0.113.9"  # not trusted: header ignored
    assert client_address(spoofed, proxy) == "203.0.113.9"
    via_proxy = _scope("10.1.1.1", x_forwarded_for="6.6.6.6, 198.51.100.7")
    assert client_address(via_proxy, proxy) == "198.51.100.7"  # right-most untrusted address
    chained = _scope("10.1.1.1", x_forwarded_for="198.51.100.7, 10.2.2.2")
    assert client_address(chained, proxy) == "198.51.100.7"  # skips trusted hops
    rfc = _scope("127.0.0.1", forwarded='for="[2001:db8::1]:4711";proto=https, for=192.0.2.60')
    assert client_address(rfc, proxy) == "192.0.2.60"
    assert client_address(_scope("10.1.1.1"), proxy) == "10.1.1.1"  # no header: the peer
    assert client_address(via_proxy, TrustedProxies(["*"])) == "6.6.6.6"


def test_rate_limit_ignores_a_spoofed_forwarded_for() -> None:
    """An untrusted peer cannot get a fresh bucket by inventing X-Forwarded-For."""
    with TestClient(create_app(make_settings(rate_limit_per_minute=2))) as client:
        codes = [
            client.get("/api/v1/devices", headers={"x-forwarded-for": f"9.9.9.{i}"}).status_code
            for i in range(4)
        ]
    assert codes == [200, 200, 429, 429]


def test_rate_limit_keys_on_the_client_a_trusted_proxy_names() -> None:
    settings = make_settings(rate_limit_per_minute=2, forwarded_allow_ips="testclient")
    with TestClient(create_app(settings)) as client:
        codes = [
            client.get("/api/v1/devices", headers={"x-forwarded-for": who}).status_code
            for who in ("1.1.1.1", "1.1.1.1", "1.1.1.1", "2.2.2.2")
        ]
    assert codes == [200, 200, 429, 200]


def test_default_limit_serves_a_classroom_behind_one_address() -> None:
    """Forty students' worth of requests in a burst from one address are all served."""
    settings = make_settings(rate_limit_per_minute=Settings().rate_limit_per_minute)
    with TestClient(create_app(settings)) as client:
        codes = {client.get("/api/v1/examples").status_code for _ in range(120)}
    assert codes == {200}


# ---- a refusal the client can read ---------------------------------------------------------------


def test_oversized_body_gets_a_readable_413_over_a_real_socket() -> None:
    """The client is still sending 2.4 MB when the server refuses: it must read the 413.

    Answering at once would start uvicorn's keep-alive clock (1 s here, 5 s by default) while
    the client, on a slow link, is still sending: the server would close under it and it would
    see a broken pipe. The refused body is drained first, so the 413 arrives after it."""
    with live_server(create_app(make_settings()), timeout_keep_alive=1) as base:
        port = int(base.rsplit(":", 1)[1])
        for connection in (b"keep-alive", b"close"):  # a one-shot client says close
            body = b'{"source": "' + b"x" * 2_400_000 + b'"}'
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(
                    b"POST /api/v1/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + b"Connection: "
                    + connection
                    + b"\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                )
                for i in range(0, len(body), 65536):  # a client on a slow link: ~2 s
                    sock.sendall(body[i : i + 65536])
                    time.sleep(0.05)
                reply = b""
                while b"\r\n\r\n" not in reply:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    reply += chunk
            assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
