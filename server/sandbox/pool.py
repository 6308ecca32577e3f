"""The server's side of the sandbox: a supervised zygote and a few pre-forked, one-shot workers.

``Sandbox.run(job)`` takes a ready worker (the zygote forked it earlier, and it has already
jailed itself), sends the job, reads what comes back with a deadline, and asks the zygote for
a replacement at once, so the next request finds a worker waiting. A worker that overruns the
wall clock is SIGKILLed; whatever it printed until then is kept. Everything a worker sends is
treated as hostile: framed and capped (:mod:`server.sandbox.protocol`), parsed, and validated
against ``RunResponse`` before it is answered.

The zygote is supervised: when it dies, one thread (and only it) replaces it at once, without
waiting for a request: with the standby it forked (a copy-on-write copy of itself, loaded and
idle: milliseconds), else with a new zygote (seconds; backing off while starts fail);
meanwhile requests wait for a worker (then 503). A zygote that is alive but does not answer
(stopped, stuck) is found by a heartbeat (a ping over its control socket, about once a
second): unanswered for ``heartbeat_timeout_s``, it is SIGKILLed, and so replaced the same way.
Nothing outlives the server: each zygote's process group (it, its standby, its workers) dies
with the lifeline whose write end only the server holds (:mod:`server.sandbox.zygote`).
Every worker is known by a pidfd where the kernel has them, so it can be
killed and reniced whichever zygote forked it, alive or not, and never a process that reused
its pid. A program that has used a short slice of CPU is *long*: it is reniced so that short
programs pass it, and its ``on_long`` callback lets admission control move it to its own slots.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import select
import signal
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from server.sandbox import protocol
from server.sandbox.config import SandboxConfig
from server.sandbox.drive import (
    OVERDUE_SIGNAL,
    SOFT_STOP_SIGNAL,
    STOPPED_HARD_MESSAGE,
    STOPPED_MESSAGE,
    Cancel,
    CellMarks,
    Drive,
    Outcome,
    Worker,
    error_of,
)
from server.sandbox.supervisor import (
    ENV_ALLOW,
    ONE_THREAD,
    Delivered,
    Zygote,
    ZygoteFailed,
    scrubbed_environment,
)
from server.sandbox.worker import EXIT_NO_REPORT

log = logging.getLogger(__name__)

__all__ = [
    "ENV_ALLOW", "ONE_THREAD", "OVERDUE_SIGNAL", "SOFT_STOP_SIGNAL", "STOPPED_HARD_MESSAGE",
    "STOPPED_MESSAGE", "Cancel", "Outcome", "PoolBusy", "Sandbox", "SandboxConfig",
    "SandboxUnavailable", "scrubbed_environment",
]  # fmt: skip

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class PoolBusy(Exception):
    """No worker became ready in time (the API answers 503 with Retry-After)."""


class SandboxUnavailable(RuntimeError):
    """The zygote could not be started, or the jail is required and missing."""


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (None when it is gone)."""
    usage = _cpu_and_state(pid)
    return None if usage is None else usage[0]


def _cpu_and_state(pid: int) -> tuple[float, bytes] | None:
    """(CPU seconds, state: b"R" running or runnable, b"S" sleeping ...), None when gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS, fields[0]


class Sandbox:
    """A supervised zygote and its ready workers. Thread-safe: the API calls ``run`` from many
    threads."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.mode = "starting"
        self.reason = ""
        self.landlock = 0
        self.runs = 0
        self.kills = 0
        self.crashes = 0
        self.restarts = 0  # zygotes started after the first
        self.ready_s: collections.deque[float] = collections.deque(maxlen=200)
        self._lock = threading.Condition()
        self._ready: dict[str, collections.deque[Worker]] = {
            "cpu": collections.deque(),
            "cuda": collections.deque(),
        }
        self._asked: dict[str, int] = {"cpu": 0, "cuda": 0}
        self._asked_at: dict[str, collections.deque[float]] = {
            "cpu": collections.deque(),
            "cuda": collections.deque(),
        }
        self._exits: dict[int, int] = {}
        self._running = threading.BoundedSemaphore(
            max(1, config.workers) + max(0, config.long_workers)
        )
        self._busy: dict[int, Worker] = {}  # pid -> the worker running a program
        self._short: set[str] = set()  # kinds whose workers ended since the watcher's last tick
        self._closed = False
        self._zygote: Zygote | None = None
        self.down_since: float | None = None  # when the last zygote was lost, while none is
        self._lost = threading.Event()  # the zygote is gone: the supervisor starts the next
        self._stopping = threading.Event()
        self._standby: socket.socket | None = None  # our end of the standby's control socket
        self.stuck = 0  # zygotes killed because they stopped answering the heartbeat
        self._lost_why = ""  # how the last zygote was lost (for readiness)
        #: process group -> our end of its lifeline (closing it SIGKILLs the group)
        self._lifelines: dict[int, int] = {}
        first = self._start_zygote()
        self._install(first)
        self._spawn_standby(first)
        if self.mode == "none" and config.mode == "seccomp":
            reason = self.reason
            self.close()
            raise SandboxUnavailable(f"AGP_SANDBOX=seccomp but the kernel cannot jail: {reason}")
        for target, name in ((self._supervise, "sandbox-supervisor"),
                             (self._heartbeat, "sandbox-heartbeat"),
                             (self._watch_long_runs, "sandbox-nice")):  # fmt: skip
            threading.Thread(target=target, name=name, daemon=True).start()
        self._top_up()
        self._await_workers(self.FIRST_WORKER_S)

    #: how long starting waits for the first worker (then readiness says whether it came)
    FIRST_WORKER_S = 30.0

    def _await_workers(self, timeout: float) -> None:
        """Return once a worker is ready (a sandbox that can run programs), or after
        ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._ready["cpu"] and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._lock.wait(left)

    # ---- the zygote and its supervision ---------------------------------------------------------

    def _cpu_limit_s(self) -> int:
        """A worker's RLIMIT_CPU soft limit (SIGXCPU); the kernel SIGKILLs a second later."""
        cfg = self.config
        return cfg.cpu_seconds or int(cfg.wall_clock_s + cfg.grace_s) + 1

    def _start_zygote(self) -> Zygote:
        cfg = self.config
        cpu = self._cpu_limit_s()
        settings = {
            "mode": cfg.mode,
            "memory_bytes": cfg.memory_bytes,
            "cpu_seconds": cpu,
            "cuda_workers": cfg.cuda_workers,
            "warm_up": cfg.warm_up,
            "gc_freeze": cfg.gc_freeze,
            "warm_workers": cfg.warm_workers,
            "job_cap": 1 << 20,
        }
        try:
            zygote = Zygote.start(
                settings, cfg.extra_sys_path, self._on_worker, self._on_exit, self._on_end
            )
        except (ZygoteFailed, OSError) as exc:
            raise SandboxUnavailable(str(exc)) from None
        with self._lock:
            if zygote.lifeline >= 0:
                self._lifelines[zygote.pgid] = zygote.lifeline
            closed = self._closed
        if closed:
            self._cut_lifelines()
        return zygote

    def _activate_standby(self) -> Zygote | None:
        """The standby the lost zygote forked, now the zygote (None if there is none, or it
        does not answer)."""
        with self._lock:
            standby, self._standby = self._standby, None
        if standby is None:
            return None
        try:
            return Zygote.activate(standby, self._on_worker, self._on_exit, self._on_end)
        except ZygoteFailed as exc:
            log.error("%s", exc)
            return None

    def _spawn_standby(self, zygote: Zygote) -> None:
        """Have ``zygote`` fork the standby that replaces it if it dies."""
        if not self.config.standby:
            return
        standby = zygote.spawn_standby()
        with self._lock:
            old, self._standby = self._standby, standby
            if self._closed:
                old, self._standby = standby, None
        if old is not None:
            old.close()  # a standby whose socket closes exits

    def _install(self, zygote: Zygote) -> bool:
        """Make ``zygote`` the one workers come from; False if it has already ended."""
        with self._lock:
            if self._closed or zygote.ended:
                return False
            self._zygote = zygote
            self.reason = zygote.reason
            self.landlock = zygote.landlock
            self.mode = "seccomp" if zygote.jailed else "none"
            self.down_since = None
            self._asked = {"cpu": 0, "cuda": 0}
            for queue in self._asked_at.values():
                queue.clear()
            self._lock.notify_all()
        return True

    def _on_worker(self, zygote: Zygote, d: Delivered) -> None:
        w = Worker(d.pid, d.job_fd, d.out_fd, d.kind, time.monotonic(), d.pidfd, zygote)
        with self._lock:
            if zygote is self._zygote and not self._closed:
                self._asked[d.kind] = max(0, self._asked[d.kind] - 1)
                asked = self._asked_at[d.kind].popleft() if self._asked_at[d.kind] else w.born
                self.ready_s.append(w.born - asked)
                self._ready[d.kind].append(w)
                self._lock.notify_all()
                return
        self._discard(w)  # from a zygote that is no longer the one

    def _on_exit(self, pid: int, status: int) -> None:
        with self._lock:
            self._exits[pid] = status
            if len(self._exits) > 1000:
                for old in list(self._exits)[:500]:
                    del self._exits[old]
            self._lock.notify_all()

    def _on_end(self, zygote: Zygote) -> None:
        """A zygote's control socket closed: if it was the current one, drop the workers it
        had ready (their job pipes close, so they exit) and wake the supervisor."""
        with self._lock:
            if zygote is not self._zygote:
                return
            self._zygote = None
            stale = [w for queue in self._ready.values() for w in queue]
            for queue in self._ready.values():
                queue.clear()
            self._asked = {"cpu": 0, "cuda": 0}
            if not self._closed:
                self.mode = "restarting"
                self.down_since = time.monotonic()
                how = "stopped answering its heartbeat" if zygote.killed else "exited"
                self._lost_why = f"the zygote (pid {zygote.pid}) {how}"
                log.error("the sandbox's zygote (pid %d) %s; replacing it", zygote.pid, how)
                self._lost.set()
            self._lock.notify_all()
        for w in stale:
            self._discard(w)

    #: waits between failed starts of a zygote (the last one repeats)
    RESTART_BACKOFF_S = (0.0, 0.5, 1.0, 2.0, 5.0)

    def _supervise(self) -> None:
        """The one thread that replaces a lost zygote, as soon as it is lost, without waiting for
        a request: its standby if it answers (milliseconds), else a new zygote (seconds), one at
        a time, backing off while starts fail; then the new zygote's own standby."""
        while not self._closed:
            self._lost.wait()
            self._lost.clear()
            standby = self._activate_standby()
            if standby is not None and self._install(standby):
                self.restarts += 1
                self._top_up()
                self._spawn_standby(standby)
                continue
            if standby is not None:
                standby.stop()
            attempt = 0
            while not self._closed:
                delay = self.RESTART_BACKOFF_S[min(attempt, len(self.RESTART_BACKOFF_S) - 1)]
                if self._stopping.wait(delay):
                    return
                attempt += 1
                try:
                    zygote = self._start_zygote()
                except SandboxUnavailable as exc:
                    log.error("the sandbox's zygote could not be restarted: %s", exc)
                    continue
                if self._install(zygote):
                    self.restarts += 1
                    self._top_up()
                    self._spawn_standby(zygote)
                    break
                zygote.stop()  # it died at once (or we are closing): try again

    #: how often the heartbeat thread pings the zygote
    HEARTBEAT_S = 1.0

    def _heartbeat(self) -> None:
        """Ping the zygote about once a second; one that has left a ping unanswered for
        ``heartbeat_timeout_s`` (SIGSTOPped, hung) is SIGKILLed: its control socket closes and
        the supervisor replaces it as it would a dead one. Also lets go of the lifelines of
        process groups that have ended."""
        while not self._stopping.wait(self.HEARTBEAT_S):
            zygote = self._zygote
            if zygote is not None and not zygote.ended:
                late = zygote.unanswered_s()
                if late >= self.config.heartbeat_timeout_s - 0.05:
                    if not zygote.killed:
                        self.stuck += 1
                        log.error(
                            "the sandbox's zygote (pid %d) has not answered its heartbeat for "
                            "%.1f s: killing it; its standby or a new zygote takes over",
                            zygote.pid,
                            late,
                        )
                    zygote.kill_now()
                else:
                    zygote.ping()
            self._let_go_of_ended_groups(zygote)

    def _let_go_of_ended_groups(self, current: Zygote | None) -> None:
        """Close the lifelines of process groups with no process left (not the current
        zygote's, whose standby carries it on)."""
        with self._lock:
            groups = [g for g in self._lifelines if current is None or g != current.pgid]
        for pgid in groups:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                with self._lock:
                    fd = self._lifelines.pop(pgid, -1)
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            except OSError:
                pass

    def _cut_lifelines(self) -> None:
        """Close our ends of every lifeline: the kernel SIGKILLs each group (every zygote,
        standby and worker we ever started that is still there)."""
        with self._lock:
            fds = list(self._lifelines.values())
            self._lifelines.clear()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)

    def live(self) -> bool:
        """False once the sandbox has not been able to serve for ``restart_deadline_s``: no
        zygote for that long (restarts keep failing), or one that has not answered its
        heartbeat for that long (killing it did not help). Liveness fails, and an orchestrator
        restarts the server."""
        return self._closed or self.failing() is None

    def failing(self) -> str | None:
        """Why liveness fails (None: it does not)."""
        deadline = self.config.restart_deadline_s
        now = time.monotonic()
        down = self.down_since
        if down is not None and now - down >= deadline:
            return f"no zygote has run for {now - down:.0f} s ({self._lost_why}; restarts failed)"
        zygote = self._zygote
        if zygote is not None and zygote.unanswered_s(now) >= deadline:
            return (
                f"the zygote (pid {zygote.pid}) has not answered its heartbeat for "
                f"{zygote.unanswered_s(now):.0f} s"
            )
        return None

    def ready(self) -> bool:
        """A live zygote that answers its heartbeat, and workers ready or running programs."""
        return self.not_ready() is None

    def not_ready(self) -> str | None:
        """Why the sandbox cannot take work now (None: it can)."""
        with self._lock:
            zygote = self._zygote
            if self._closed:
                return "the sandbox is closed"
            if zygote is None or not zygote.alive():
                if self.mode == "starting":
                    return "the sandbox is starting"
                return f"{self._lost_why or 'the zygote is gone'}: replacing it"
            late = zygote.unanswered_s()
            # half the time after which it is killed (and never later than liveness fails): no
            # new work for a zygote that may be stuck
            cfg = self.config
            if late >= min(cfg.heartbeat_timeout_s / 2, cfg.restart_deadline_s):
                return (
                    f"the zygote (pid {zygote.pid}) has not answered its heartbeat for "
                    f"{late:.1f} s: replacing it"
                )
            if len(self._ready["cpu"]) + len(self._busy) == 0:
                return "no worker is ready yet"
            return None

    def _ask(self, kind: str) -> None:
        """Ask the zygote for one more worker (the lock is held)."""
        zygote = self._zygote
        if zygote is None or not zygote.ask(kind):
            return
        self._asked[kind] += 1
        self._asked_at[kind].append(time.monotonic())

    def _want(self, kind: str) -> int:
        """How many workers of ``kind`` are kept ready."""
        return max(1, self.config.workers if kind == "cpu" else self.config.cuda_workers)

    def _top_up(self, kind: str = "cpu") -> None:
        with self._lock:
            want = self._want(kind)
            while len(self._ready[kind]) + self._asked[kind] < want and self._zygote is not None:
                before = self._asked[kind]
                self._ask(kind)
                if self._asked[kind] == before:
                    break

    def _levels(self) -> tuple[tuple[float, int], ...]:
        """(CPU seconds, niceness): a program that has used this much CPU (or, asleep, has
        held its worker twice as long on the wall clock) yields the cores to fresh ones (the
        kernel then gives it a small share while short programs run), so a classroom's quick
        runs stay quick next to a few infinite loops. The first level makes it long; once long,
        the wall clock takes it further. A program that waits for a core is not asleep: a busy
        machine does not make a program long."""
        s = self.config.slice_s
        return ((s, 10), (3 * s, 19))

    def _watch_long_runs(self) -> None:
        levels = self._levels()
        while not self._stopping.wait(0.1):
            now = time.monotonic()
            with self._lock:
                busy = list(self._busy.values())
                short, self._short = self._short, set()
            for kind in short:  # replacements for the runs that ended
                self._top_up(kind)
            for w in busy:
                usage = _cpu_and_state(w.pid)
                if usage is None:
                    continue
                used, wall = usage[0] - w.cpu_at_start, now - w.started
                by_wall = w.niceness > 0 or usage[1] in (b"S", b"D")  # long already, or asleep
                wanted = max(
                    (n for after, n in levels if used >= after or (by_wall and wall >= 2 * after)),
                    default=0,
                )
                if wanted <= w.niceness:
                    continue
                with self._lock:
                    if self._busy.get(w.pid) is not w:
                        continue
                    first = w.niceness == 0
                    w.niceness = wanted
                    on_long = w.on_long if first else None
                self._renice(w, wanted)
                if first:  # a long run: its replacement now, not at its end
                    self._top_up(w.kind)
                if on_long is not None:
                    with contextlib.suppress(Exception):
                        on_long()

    def _renice(self, w: Worker, niceness: int) -> None:
        """Lower a running worker's CPU priority (allowed for our own processes: only raising
        it needs privileges). The pidfd says it is still that process, not a reused pid."""
        if w.pidfd >= 0:
            try:
                signal.pidfd_send_signal(w.pidfd, 0)
            except OSError:
                return
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, w.pid, niceness)

    # ---- running a program ----------------------------------------------------------------------

    #: how long a request waits for a warm worker before it takes one still warming up
    WARM_WAIT_S = 0.01

    def _take(self, kind: str, timeout: float) -> Worker:
        """A ready worker: one that has said READY (warm) if any does within WARM_WAIT_S, else
        the oldest (it finishes warming, then runs the job). Waits through a zygote restart."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._ready[kind]:
                if self._asked[kind] == 0:
                    self._ask(kind)
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise PoolBusy
                self._lock.wait(left)
            queue = self._ready[kind]
            w = self._warm_one(queue, 0.0) or self._warm_one(queue, self.WARM_WAIT_S) or queue[0]
            queue.remove(w)
            # Its replacement: while more than half the pool is still ready, asked for after
            # this run, by the watcher (:meth:`_watch_long_runs`, within a tick of its end, or
            # once it is long), so that the fork and the new worker's warm-up take neither
            # the cores this run waits for nor those that send its answer; under pressure (a
            # burst, back-to-back runs), at once, as before.
            if 2 * len(queue) <= self._want(kind):
                self._ask(kind)
            return w

    @staticmethod
    def _warm_one(queue: collections.deque[Worker], wait: float) -> Worker | None:
        """The first worker of ``queue`` that is warm, reading READY frames that have arrived
        (waiting up to ``wait`` for one)."""
        for w in queue:
            if w.warm:
                return w
        cold = {w.out_fd: w for w in queue}
        if not cold:
            return None
        ready, _, _ = select.select(list(cold), [], [], wait)
        for fd in ready:
            w = cold[fd]
            try:
                header = os.read(fd, protocol.HEADER.size)
            except OSError:
                header = b""
            if header == protocol.frame(protocol.READY, b""):
                w.warm = True
            else:  # a refusal (its jail failed), or nothing: the run reports it
                w.warm = True
                w.early = header
        return next((w for w in queue if w.warm), None)

    def run(
        self,
        job: Mapping[str, Any],
        queue_timeout_s: float = 10.0,
        *,
        cancel: Cancel | None = None,
        on_stdout: Callable[[str], None] | None = None,
        on_cell: Callable[[int], None] | None = None,
        on_long: Callable[[], None] | None = None,
    ) -> Outcome:
        """Run one job on a fresh worker; hard-kill it after wall clock + grace, or as soon as
        ``cancel`` is set. ``on_stdout`` gets the program's output as it arrives (from this
        thread), each piece as it was printed; ``on_cell`` each notebook cell's number as it
        starts (in order with the output: what follows is that cell's); ``on_long`` is called
        (from another thread) once, if the program becomes long (:meth:`_levels`)."""
        kind = "cuda" if str(job.get("device", "cpu")).startswith("cuda") else "cpu"
        started = time.monotonic()
        if not self._running.acquire(timeout=queue_timeout_s):
            raise PoolBusy
        try:
            if cancel is not None and cancel.requested:
                return Outcome("", None, error_of("KeyboardInterrupt", STOPPED_MESSAGE), {})
            w = self._take(kind, max(0.1, queue_timeout_s - (time.monotonic() - started)))
            waited = time.monotonic() - started
            w.on_long = on_long
            cells: list[tuple[int, int]] = []
            try:
                outcome = self._drive(w, job, cancel, on_stdout, (cells, on_cell))
            finally:
                self._discard(w)
                with self._lock:
                    self._short.add(kind)
            outcome.cells = cells
            outcome.timing_ms["queue"] = round(waited * 1000, 3)
            self.runs += 1
            return outcome
        finally:
            self._running.release()

    def _drive(
        self,
        w: Worker,
        job: Mapping[str, Any],
        cancel: Cancel | None = None,
        on_stdout: Callable[[str], None] | None = None,
        cells: CellMarks | None = None,
    ) -> Outcome:
        """Run ``job`` on ``w`` (:class:`server.sandbox.drive.Drive`), counting it as running."""
        drive = Drive(self, self.config, w, job, cancel, on_stdout, cells)
        w.cpu_at_start = _cpu_seconds(w.pid) or 0.0
        with self._lock:
            self._busy[w.pid] = w
        outcome = drive.run()
        if drive.ending == "killed":
            self.kills += 1
        elif drive.ending == "died":
            self.crashes += 1
        return outcome

    def _death(self, w: Worker) -> dict[str, Any]:
        """Why a worker ended without a result (its exit status, reported by the zygote)."""
        # At most the CPU time it can have used: one thread uses no more than the wall time
        cpu_bound = w.cpu_at_start + (time.monotonic() - w.started)
        end = time.monotonic() + 1.0
        with self._lock:
            # only a live zygote reports its workers' exits (an orphan's status is its new
            # parent's, init's)
            while (
                w.pid not in self._exits
                and time.monotonic() < end
                and w.zygote is not None
                and not w.zygote.ended
            ):
                self._lock.wait(end - time.monotonic())
            status = self._exits.pop(w.pid, None)
        if status is None:
            return error_of("RuntimeError", "the program's worker ended without a result")
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            # Our own kills (wall clock, Stop) are answered before this; RLIMIT_CPU's SIGKILL
            # comes at its hard limit (a second past cpu_s): one before it can have reached
            # that came from elsewhere (a signal from outside, the kernel's OOM killer).
            if sig == signal.SIGKILL and cpu_bound + 0.05 < self._cpu_limit_s() + 1:
                return error_of(
                    "RuntimeError",
                    "the program's process was killed from outside the sandbox (by a signal, "
                    "or by the kernel's out-of-memory killer)",
                )
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                return error_of(
                    "TimeoutError",
                    "the program used up its CPU time and was stopped (budget: cpu_s)"
                    if sig == signal.SIGXCPU
                    else "the program was killed, most likely at its CPU time limit (budget: "
                    "cpu_s; else by a signal from outside the sandbox, or the kernel's "
                    "out-of-memory killer)",
                )
            if sig == signal.SIGSEGV:
                return error_of(
                    "RuntimeError",
                    "the program crashed (segmentation fault), for example by recursing too "
                    "deeply inside a native function",
                )
            name = (
                signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            )
            return error_of("RuntimeError", f"the program's process was ended by signal {name}")
        code = os.waitstatus_to_exitcode(status)
        if code == EXIT_NO_REPORT:
            return error_of(
                "RuntimeError",
                "the program broke its worker's pipe to the server (closed or overwrote it), "
                "so no result came back",
            )
        return error_of(
            "SystemExit", f"the program ended its process (exit status {code}) before it finished"
        )

    # ---- what a run's drive asks of the pool (server.sandbox.drive.Controls) -------------------

    def death(self, w: Worker) -> dict[str, Any]:
        return self._death(w)

    def kill(self, w: Worker) -> None:
        self._kill(w)

    def soft_stop(self, w: Worker, signum: signal.Signals) -> None:
        """Send a soft stop (only through its pidfd: a zygote would not know the signal)."""
        self._signal(w, signum, lambda zygote, pid: None)

    def ask_stack(self, w: Worker) -> None:
        """Ask the worker to write its Python stack (SIGUSR1: CPython's faulthandler writes it
        from its signal handler, even inside a long native call)."""
        self._signal(w, signal.SIGUSR1, Zygote.dump_stack)

    def _kill(self, w: Worker) -> None:
        """SIGKILL a worker."""
        self._signal(w, signal.SIGKILL, Zygote.kill)

    @staticmethod
    def _signal(
        w: Worker, signum: signal.Signals, by_zygote: Callable[[Zygote, int], None]
    ) -> None:
        """Send ``signum`` to a worker through its pidfd (which names that process and no other,
        whoever its parent is now), else ask its zygote to (``by_zygote``): only the parent
        knows the pid is still its unreaped child and not a reused one."""
        if w.pidfd >= 0:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(w.pidfd, signum)
        elif w.zygote is not None:
            by_zygote(w.zygote, w.pid)

    def _discard(self, w: Worker) -> None:
        """Close our ends and make sure the (one-shot) worker is gone."""
        with self._lock:
            if self._busy.get(w.pid) is w:
                del self._busy[w.pid]
        self._kill(w)
        for fd in (w.job_fd, w.out_fd, w.pidfd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        w.job_fd = w.out_fd = w.pidfd = -1

    # ---- state ----------------------------------------------------------------------------------

    def ready_workers(self) -> int:
        with self._lock:
            return len(self._ready["cpu"])

    def running(self) -> int:
        """Programs running now."""
        with self._lock:
            return len(self._busy)

    def close(self) -> None:
        """Stop the zygote and every worker."""
        with self._lock:
            self._closed = True
            workers = [w for q in self._ready.values() for w in q]
            for q in self._ready.values():
                q.clear()
            zygote, self._zygote = self._zygote, None
            standby, self._standby = self._standby, None
            self._lock.notify_all()
        if standby is not None:
            standby.close()  # the standby exits
        self._stopping.set()
        self._lost.set()
        for w in workers:
            self._discard(w)
        if zygote is not None:
            zygote.stop()
        # and whatever is left of every group (workers still running, a stopped standby)
        self._cut_lifelines()
