"""Fair share and memory admission: one client (an address, and its browser session) holds at
most a few slots, and what every run may use fits the memory budget.

The hostile student of a classroom sends forty programs that only sleep; another student's
quick runs must not notice. Six programs that each hold memory run no more at once than the
budget allows.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx2 as httpx
import pytest

from server import capacity
from server.admission import Admission, Busy
from server.app import create_app
from tests.api.conftest import make_settings
from tests.e2e.live_server import live_server

# ---- the queue ----------------------------------------------------------------------------------


def test_a_client_at_its_share_waits_while_others_pass_it() -> None:
    async def scenario() -> None:
        gate = Admission(slots=4, queue_limit=20, max_wait_s=10.0, share=(2, 1, 2))
        first = await gate.enter("hog")
        await gate.enter("hog")
        third = asyncio.ensure_future(gate.enter("hog"))  # slots are free, but not for it
        await asyncio.sleep(0)
        assert not third.done() and gate.queued == 1 and gate.running == 2
        fourth = asyncio.ensure_future(gate.enter("hog"))
        await asyncio.sleep(0)
        with pytest.raises(Busy) as refused:  # its own line is full: 429, its share
            await gate.enter("hog")
        assert refused.value.status == 429 and refused.value.retry_after >= 1
        other = await asyncio.wait_for(gate.enter("student"), 0.1)  # passes the hog's line
        assert other.tenant == ("student", "") and gate.running == 3
        gate.finish(first)  # the hog's slot goes to its own next request
        await asyncio.wait_for(third, 1.0)
        assert not fourth.done() and gate.running == 3 and gate.queued == 1

    asyncio.run(scenario())


def test_sessions_of_one_address_are_clients_of_their_own() -> None:
    async def scenario() -> None:
        gate = Admission(slots=8, queue_limit=20, max_wait_s=10.0, share=(2, 1, 2))
        for student in range(4):
            for _ in range(2):
                await asyncio.wait_for(gate.enter("school", f"student-{student}"), 0.1)
        assert gate.running == 8

    asyncio.run(scenario())


def test_a_client_holds_one_long_slot_its_second_long_run_keeps_its_short_one() -> None:
    async def scenario() -> None:
        gate = Admission(slots=4, queue_limit=20, max_wait_s=10.0, long_slots=4, share=(2, 1, 2))
        one, two = await gate.enter("a"), await gate.enter("a")
        gate.demote(one)
        gate.demote(two)  # a long slot is free, but not for a: two keeps its short slot
        assert one.long and not two.long
        assert (gate.running, gate.running_long) == (1, 1)
        gate.finish(one)  # a's long slot is free: two takes it
        assert two.long and (gate.running, gate.running_long) == (0, 1)
        gate.finish(two)
        assert (gate.running, gate.running_long) == (0, 0)

    asyncio.run(scenario())


# ---- memory -------------------------------------------------------------------------------------


def test_slots_fit_the_memory_budget() -> None:
    gib = 1024**3
    settings = make_settings(
        sandbox_workers=8, sandbox_memory_limit_bytes=gib, run_memory_budget_bytes=5 * gib
    )
    assert capacity.run_slots(settings) == (5, 0)
    settings = make_settings(
        sandbox_workers=2, sandbox_memory_limit_bytes=gib, run_memory_budget_bytes=5 * gib
    )
    assert capacity.run_slots(settings) == (2, 3)
    unlimited = make_settings(sandbox_workers=2, sandbox_memory_limit_bytes=0)
    assert capacity.run_slots(unlimited) == (2, 4)


def test_the_default_budget_leaves_the_server_its_reserve() -> None:
    settings = make_settings(workers=2, server_memory_reserve_bytes=1024**3)
    host = capacity.host_memory_bytes()
    assert capacity.run_memory_budget(settings) == (host - 2 * 1024**3) // 2


HOLD = (
    "import numpy as np, time\n"
    "x = np.ones(40 * 2**20 // 8)  # 40 MiB, touched\n"
    "time.sleep(1.0)\n"
    "print(x.sum() == x.size)"
)


def test_six_memory_holders_stay_inside_the_budget() -> None:
    """Six clients each run a program that holds 40 MiB; the budget fits three workers (each
    may address 400 MiB), so at most three run at once, and every one of them finishes."""
    per_run = 400 * 2**20
    settings = make_settings(
        sandbox_workers=6,
        sandbox_memory_limit_bytes=per_run,
        run_memory_budget_bytes=3 * per_run,
        wall_clock_s=20.0,
        sandbox_slice_s=30.0,  # (none becomes long: the short slots are what is counted)
    )
    app = create_app(settings)
    with live_server(app) as url:
        results: list[Any] = []

        def hold(n: int) -> None:
            cookie = {"cookie": f"agp_session=holder-session-{n:04d}"}
            with httpx.Client(base_url=url, timeout=60, headers=cookie) as c:
                results.append(c.post("/api/v1/run", json={"source": HOLD}).json())

        threads = [threading.Thread(target=hold, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        most = 0
        while any(t.is_alive() for t in threads):
            sandbox = app.state.sandbox
            most = max(most, sandbox.running())
            assert app.state.admission.running + app.state.admission.running_long <= 3
            time.sleep(0.01)
        for thread in threads:
            thread.join()
        assert most <= 3
        assert len(results) == 6 and all(r["ok"] and r["stdout"] == "True\n" for r in results)


# ---- through the API: the sleepers --------------------------------------------------------------


def test_forty_sleepers_from_one_address_leave_another_client_served() -> None:
    """Forty programs that only sleep, from one address without a session: it holds its share
    (two short runs and one long) and a few waiting; the rest are told 429 at once. Another
    client's thirty tiny runs meanwhile: no 503, none waiting for a sleeper."""
    app = create_app(make_settings(sandbox_workers=4, wall_clock_s=10.0))
    with live_server(app) as url:
        sleeper_status: list[int] = []
        latencies: list[float] = []
        statuses: list[int] = []

        def sleep() -> None:
            with httpx.Client(base_url=url, timeout=60) as c:
                sleeper_status.append(
                    c.post("/api/v1/run", json={"source": "import time\ntime.sleep(4)"}).status_code
                )

        sleepers = [threading.Thread(target=sleep) for _ in range(40)]
        for thread in sleepers:
            thread.start()
        deadline = time.monotonic() + 10
        while app.state.admission.running == 0 and time.monotonic() < deadline:
            time.sleep(0.01)  # the sleepers hold their slots

        def student(n: int) -> None:
            cookie = {"cookie": f"agp_session=student-session-{n:04d}"}
            with httpx.Client(base_url=url, timeout=30, headers=cookie) as c:
                for _ in range(10):
                    started = time.monotonic()
                    response = c.post("/api/v1/run", json={"source": "print(1 + 1)"})
                    latencies.append(time.monotonic() - started)
                    statuses.append(response.status_code)

        students = [threading.Thread(target=student, args=(n,)) for n in range(3)]
        for thread in students:
            thread.start()
        for thread in students + sleepers:
            thread.join()
        assert statuses == [200] * 30
        # none waited for a sleeper (4 s): the bound separates served from stuck, on a busy
        # machine too (the p99 <= 1 s, on a quiet one: 17 ms)
        assert max(latencies) < 3.0, sorted(latencies)[-5:]
        print(f"p99 {sorted(latencies)[int(0.99 * (len(latencies) - 1))]:.3f} s")  # (-s shows it)
        assert sleeper_status.count(429) >= 30  # told at once that its share is taken
        assert set(sleeper_status) <= {200, 429}


# ---- nothing outlives its client ----------------------------------------------------------------


def test_a_client_that_disconnects_has_its_program_killed_at_once() -> None:
    """POST /api/v1/run of an endless loop, then the connection closes: the worker is killed
    within a second or two, not at the wall clock (20 s here)."""
    import socket
    from urllib.parse import urlsplit

    app = create_app(make_settings(wall_clock_s=20.0, sandbox_slice_s=30.0))
    with live_server(app) as url:
        host, port = urlsplit(url).hostname, urlsplit(url).port
        body = b'{"source": "while True:\\n    pass"}'
        with socket.create_connection((host, port)) as sock:
            sock.sendall(
                b"POST /api/v1/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
            )
            deadline = time.monotonic() + 10
            while app.state.sandbox.running() == 0:
                assert time.monotonic() < deadline, "the program never started"
                time.sleep(0.01)
        closed = time.monotonic()
        while app.state.sandbox.running() > 0:
            assert time.monotonic() - closed < 3.0, "the program outlived its client"
            time.sleep(0.01)
        deadline = time.monotonic() + 3
        while app.state.admission.running > 0:  # and its slot is free again
            assert time.monotonic() < deadline
            time.sleep(0.01)
