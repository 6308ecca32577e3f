"""The server's side of the sandbox: a zygote process and a few pre-forked, one-shot workers.

``Sandbox.run(job)`` takes a ready worker (the zygote forked it earlier, and it has already
jailed itself), sends the job, reads what comes back with a deadline, and asks the zygote for
a replacement at once, so the next request finds a worker waiting. A worker that overruns the
wall clock is SIGKILLed; whatever it printed until then is kept. Everything a worker sends is
treated as hostile: framed and capped (:mod:`server.sandbox.protocol`), parsed, and validated
against ``RunResponse`` before it is answered.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from server.program.source import FILENAME as PROGRAM_FILENAME
from server.program.source import cell_filename, cell_of, place
from server.sandbox import protocol
from server.sandbox.protocol import CONTROL_FD_ENV, PID, PID_STATUS
from server.sandbox.worker import EXIT_NO_REPORT

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parents[2]


#: environment variables a zygote (and so a worker) keeps; everything else is dropped
ENV_ALLOW = (
    "PATH", "LANG", "LC_ALL", "TZ", "HOME", "PYTHONPATH", "PYTHONHASHSEED",
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "NPY_DISABLE_CPU_FEATURES",
    "CUDA_VISIBLE_DEVICES", "CUDA_PATH", "LD_LIBRARY_PATH", "CUPY_CACHE_DIR",
)  # fmt: skip
ONE_THREAD = {
    "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
}  # fmt: skip


def scrubbed_environment(environ: dict[str, str]) -> dict[str, str]:
    """The zygote's environment: the allow-list above, one BLAS thread, nothing secret."""
    env = {k: v for k, v in environ.items() if k in ENV_ALLOW}
    env.update(ONE_THREAD)
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    return env


class PoolBusy(Exception):
    """No worker became ready in time (the API answers 503 with Retry-After)."""


class SandboxUnavailable(RuntimeError):
    """The zygote could not be started, or the jail is required and missing."""


class Cancel:
    """Ends one run from any thread (Stop, a newer run, a closed connection): its worker is
    SIGKILLed at once through the zygote, or, cancelled before it starts, the run never starts.
    ``Sandbox.run`` then answers with a ``KeyboardInterrupt`` error, as a notebook's Stop does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requested = False
        self._stop: Callable[[], None] | None = None

    @property
    def requested(self) -> bool:
        return self._requested

    def set(self) -> None:
        """Stop the run (idempotent; a run that has already ended is left alone)."""
        with self._lock:
            self._requested = True
            stop = self._stop
        if stop is not None:
            stop()

    def _bind(self, stop: Callable[[], None] | None) -> None:
        """While a worker runs, ``set`` kills it; bound after a request, it kills at once."""
        with self._lock:
            self._stop = stop
            now = self._requested and stop is not None
        if now and stop is not None:
            stop()


STOPPED_MESSAGE = "the run was stopped before it finished (Stop, or a newer run)"


@dataclass
class SandboxConfig:
    """How the sandbox runs; filled from Settings by the app."""

    workers: int = 2  # programs running at once (and workers kept ready)
    wall_clock_s: float = 5.0
    grace_s: float = 1.0
    cpu_seconds: int = 0  # RLIMIT_CPU per worker; 0 = wall clock + 1
    memory_bytes: int = 1024**3
    max_output_chars: int = 100_000
    max_result_bytes: int = 32 * 1024 * 1024
    mode: str = "auto"  # auto | seccomp | none
    cuda_workers: int = 0
    warm_up: bool = True  # run the gallery in the zygote before forking (warm caches)
    gc_freeze: bool = True  # gc.freeze() in the zygote (no copy-on-write from collections)
    warm_workers: bool = True  # each worker runs a warm-up program before it says READY
    extra_sys_path: list[str] = field(default_factory=list)


@dataclass(eq=False)
class _Worker:
    pid: int
    job_fd: int
    out_fd: int
    kind: str
    born: float
    warm: bool = False  # it has said READY: jailed, its first-run costs paid
    early: bytes = b""  # bytes read while looking for READY that were something else


@dataclass
class Outcome:
    """What came back from one worker."""

    stdout: str
    result: dict[str, Any] | None
    error: dict[str, Any] | None  # set when the worker ended without a usable result
    timing_ms: dict[str, float]
    #: a notebook's cells as they started: (cell number, where its output begins in stdout)
    cells: list[tuple[int, int]] = field(default_factory=list)


def _error(type_name: str, message: str) -> dict[str, Any]:
    return {"type": type_name, "message": message, "line": None, "col": None}


class Sandbox:
    """A zygote and its ready workers. Thread-safe: the API calls ``run`` from many threads."""

    def __init__(self, config: SandboxConfig) -> None:
        self.config = config
        self.mode = "starting"
        self.reason = ""
        self.landlock = 0
        self.runs = 0
        self.kills = 0
        self.crashes = 0
        self.ready_s: collections.deque[float] = collections.deque(maxlen=200)
        self._lock = threading.Condition()
        self._ready: dict[str, collections.deque[_Worker]] = {
            "cpu": collections.deque(),
            "cuda": collections.deque(),
        }
        self._asked: dict[str, int] = {"cpu": 0, "cuda": 0}
        self._asked_at: dict[str, collections.deque[float]] = {
            "cpu": collections.deque(),
            "cuda": collections.deque(),
        }
        self._exits: dict[int, int] = {}
        self._running = threading.BoundedSemaphore(max(1, config.workers))
        self._busy: dict[int, tuple[float, int]] = {}  # pid -> (started, niceness)
        self._closed = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctl: socket.socket | None = None
        self._start_zygote()

    # ---- the zygote ---------------------------------------------------------------------------

    def _start_zygote(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = scrubbed_environment(dict(os.environ))
        env[CONTROL_FD_ENV] = str(theirs.fileno())
        paths = [str(ROOT), *self.config.extra_sys_path]
        env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH", "")])])
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "server.sandbox.zygote"],
            env=env,
            cwd=str(ROOT),
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            close_fds=True,
        )
        theirs.close()
        cpu = self.config.cpu_seconds or int(self.config.wall_clock_s + self.config.grace_s) + 1
        ours.send(
            json.dumps(
                {
                    "mode": self.config.mode,
                    "memory_bytes": self.config.memory_bytes,
                    "cpu_seconds": cpu,
                    "cuda_workers": self.config.cuda_workers,
                    "warm_up": self.config.warm_up,
                    "gc_freeze": self.config.gc_freeze,
                    "warm_workers": self.config.warm_workers,
                    "extra_sys_path": self.config.extra_sys_path,
                    "job_cap": 1 << 20,
                }
            ).encode()
        )
        ours.settimeout(120)
        hello = ours.recv(4096)
        ours.settimeout(None)
        if hello[:1] != b"H":
            raise SandboxUnavailable("the sandbox's zygote did not start")
        info = json.loads(hello[1:])
        self.reason = str(info.get("reason", ""))
        self.landlock = int(info.get("landlock", 0))
        if info.get("seccomp"):
            self.mode = "seccomp"
        elif self.config.mode == "seccomp":
            self.close()
            raise SandboxUnavailable(
                f"AGP_SANDBOX=seccomp but the kernel cannot jail: {self.reason}"
            )
        else:
            self.mode = "none"
        self._ctl = ours
        threading.Thread(target=self._listen, name="sandbox-zygote", daemon=True).start()
        if not getattr(self, "_yielding", False):
            self._yielding = True
            threading.Thread(target=self._yield_long_runs, name="sandbox-nice", daemon=True).start()
        self._top_up()

    def _listen(self) -> None:
        """Receive workers and exit statuses from the zygote."""
        ctl = self._ctl
        assert ctl is not None
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(ctl, 64, 2)
            except OSError:
                data, fds = b"", []
            if not data:
                with self._lock:
                    self._closed_zygote()
                    self._lock.notify_all()
                return
            if data[:1] == b"W" and len(fds) == 2:
                (pid,) = PID.unpack_from(data, 1)
                kind = "cuda" if data[1 + PID.size :] == b"cuda" else "cpu"
                with self._lock:
                    self._asked[kind] = max(0, self._asked[kind] - 1)
                    w = _Worker(pid, fds[0], fds[1], kind, time.monotonic())
                    asked = self._asked_at[kind].popleft() if self._asked_at[kind] else w.born
                    self.ready_s.append(w.born - asked)
                    self._ready[kind].append(w)
                    self._lock.notify_all()
            elif data[:1] == b"X":
                pid, status = PID_STATUS.unpack_from(data, 1)
                for fd in fds:
                    os.close(fd)
                with self._lock:
                    self._exits[pid] = status
                    if len(self._exits) > 1000:
                        for old in list(self._exits)[:500]:
                            del self._exits[old]
                    self._lock.notify_all()
            else:
                for fd in fds:
                    os.close(fd)

    def _closed_zygote(self) -> None:
        for queue in self._ready.values():
            while queue:
                w = queue.popleft()
                self._discard(w)
        self._asked = {"cpu": 0, "cuda": 0}
        if not self._closed:
            log.error("the sandbox's zygote exited; it will be restarted on the next run")
            self.mode = "restarting"

    def _ask(self, kind: str) -> None:
        """Ask the zygote for one more worker (the lock is held)."""
        if self._ctl is None:
            return
        try:
            self._ctl.send(b"s" + kind.encode())
        except OSError:
            return
        self._asked[kind] += 1
        self._asked_at[kind].append(time.monotonic())

    def _top_up(self, kind: str = "cpu") -> None:
        with self._lock:
            want = (
                max(1, self.config.workers) if kind == "cpu" else max(1, self.config.cuda_workers)
            )
            while len(self._ready[kind]) + self._asked[kind] < want:
                self._ask(kind)

    def _ensure_zygote(self) -> None:
        with self._lock:
            alive = (
                self._proc is not None and self._proc.poll() is None and self.mode != "restarting"
            )
        if alive or self._closed:
            return
        with self._lock:
            if self._ctl is not None:
                with contextlib.suppress(OSError):
                    self._ctl.close()
                self._ctl = None
        self._start_zygote()

    #: how long a worker may take to close its pipe after its result (it exits at once)
    EOF_AFTER_RESULT_S = 0.5

    #: (seconds running, niceness): a program that has run this long yields the cores to
    #: fresh ones (the kernel then gives it a small share while short programs run), so a
    #: classroom's quick runs stay quick next to a few infinite loops.
    YIELD_AFTER = ((0.5, 10), (1.5, 19))

    def _yield_long_runs(self) -> None:
        while not self._closed:
            time.sleep(0.1)
            now = time.monotonic()
            with self._lock:
                busy = list(self._busy.items())
            for pid, (started, niceness) in busy:
                wanted = max(
                    (n for after, n in self.YIELD_AFTER if now - started >= after), default=0
                )
                if wanted > niceness:
                    with self._lock:
                        if pid not in self._busy:
                            continue
                        self._busy[pid] = (started, wanted)
                        ctl = self._ctl
                    if ctl is not None:
                        with contextlib.suppress(OSError):
                            ctl.send(b"n" + PID_STATUS.pack(pid, wanted))

    # ---- running a program ----------------------------------------------------------------------

    #: how long a request waits for a warm worker before it takes one still warming up
    WARM_WAIT_S = 0.01

    def _take(self, kind: str, timeout: float) -> _Worker:
        """A ready worker: one that has said READY (warm) if any does within WARM_WAIT_S, else
        the oldest (it finishes warming, then runs the job)."""
        deadline = time.monotonic() + timeout
        self._ensure_zygote()
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
            self._ask(kind)  # its replacement, forked while this one runs
            return w

    @staticmethod
    def _warm_one(queue: collections.deque[_Worker], wait: float) -> _Worker | None:
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
        job: dict[str, Any],
        queue_timeout_s: float = 10.0,
        *,
        cancel: Cancel | None = None,
        on_stdout: Callable[[str], None] | None = None,
        on_cell: Callable[[int], None] | None = None,
    ) -> Outcome:
        """Run one job on a fresh worker; hard-kill it after wall clock + grace, or as soon as
        ``cancel`` is set. ``on_stdout`` gets the program's output as it arrives (from this
        thread), each piece as it was printed; ``on_cell`` each notebook cell's number as it
        starts (in order with the output: what follows is that cell's)."""
        kind = "cuda" if str(job.get("device", "cpu")).startswith("cuda") else "cpu"
        started = time.monotonic()
        if not self._running.acquire(timeout=queue_timeout_s):
            raise PoolBusy
        try:
            if cancel is not None and cancel.requested:
                return Outcome("", None, _error("KeyboardInterrupt", STOPPED_MESSAGE), {})
            w = self._take(kind, max(0.1, queue_timeout_s - (time.monotonic() - started)))
            waited = time.monotonic() - started
            cells: list[tuple[int, int]] = []
            try:
                outcome = self._drive(w, job, cancel, on_stdout, (cells, on_cell))
            finally:
                self._discard(w)
            outcome.cells = cells
            outcome.timing_ms["queue"] = round(waited * 1000, 3)
            self.runs += 1
            return outcome
        finally:
            self._running.release()

    def _drive(
        self,
        w: _Worker,
        job: dict[str, Any],
        cancel: Cancel | None = None,
        on_stdout: Callable[[str], None] | None = None,
        cells: _CellMarks | None = None,
    ) -> Outcome:
        cfg = self.config
        payload = protocol.frame(protocol.JOB, orjson.dumps(job))
        stdout_cap = 4 * cfg.max_output_chars + 4096
        reader = protocol.FrameReader(
            {
                protocol.STDOUT: stdout_cap,
                protocol.RESULT: cfg.max_result_bytes,
                protocol.READY: 0,
                protocol.CELL: protocol.CELL_CAP,
            },
            stacks=True,
        )
        marks, on_cell = cells if cells is not None else ([], None)
        chars = 0  # characters of output so far (where a cell's output begins)
        stack = bytearray()  # the program's stack, asked for before a hard kill
        if w.early:  # a frame's first bytes, read while looking for READY: the rest follows
            with contextlib.suppress(protocol.ProtocolError):
                reader.feed(w.early)
        started = time.monotonic()
        deadline = started + cfg.wall_clock_s + cfg.grace_s
        with self._lock:
            self._busy[w.pid] = (started, 0)
        out = bytearray()
        result_bytes: bytes | None = None
        killed = False
        asked_stack = False
        broken: str | None = None
        if cancel is not None:
            cancel._bind(lambda: self._kill(w))
        try:
            _write_all(w.job_fd, payload)
        except OSError:
            broken = "the worker was gone before it got the program"
        with contextlib.suppress(OSError):
            os.close(w.job_fd)
        w.job_fd = -1
        # Read until the pipe closes: the worker exits as soon as it has sent its one result,
        # so anything after a result (or a second result) is the program writing into the pipe.
        eof = started + cfg.wall_clock_s + cfg.grace_s
        while broken is None:
            left = (deadline if result_bytes is None else eof) - time.monotonic()
            if left <= 0:
                if result_bytes is None and not asked_stack:
                    # Past the soft wall clock and the grace: the program is stuck where its
                    # TimeoutError cannot be raised (inside one native call). Ask for its stack
                    # first, so that the error can say which line it was on.
                    asked_stack = True
                    self._ask_stack(w)
                    deadline = time.monotonic() + self.STACK_WAIT_S
                    continue
                self._kill(w)
                killed = result_bytes is None
                break
            ready, _, _ = select.select([w.out_fd], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(w.out_fd, 1 << 16)
            except OSError:
                data = b""
            if not data:
                break
            try:
                for kind, body in reader.feed(data):
                    if result_bytes is not None:
                        raise protocol.ProtocolError("a frame after the result")
                    if kind == protocol.STDOUT:
                        if len(out) + len(body) > stdout_cap:
                            raise protocol.ProtocolError("more output than the budget allows")
                        out += body
                        text = body.decode("utf-8", "replace")
                        chars += len(text)
                        if on_stdout is not None and text:
                            on_stdout(text)
                    elif kind == protocol.CELL:
                        number = protocol.cell_number(body)
                        marks.append((number, chars))
                        if on_cell is not None:
                            on_cell(number)
                    elif kind == protocol.STACK:
                        stack += (body + b"\n")[: max(0, self.STACK_CAP - len(stack))]
                        if asked_stack:  # it has answered: the rest follows within moments
                            deadline = min(deadline, time.monotonic() + self.STACK_REST_S)
                    elif kind == protocol.RESULT:
                        result_bytes = body
                        eof = time.monotonic() + self.EOF_AFTER_RESULT_S
            except protocol.ProtocolError as exc:
                result_bytes = None
                self._kill(w)
                if asked_stack:  # its stack, written over a frame it was sending: out of time
                    killed = True
                    break
                broken = f"the program wrote into its worker's pipe to the server ({exc})"
        if cancel is not None:
            cancel._bind(None)
        if killed:  # keep what it printed before it was killed
            self._drain(w, reader, out, stdout_cap, stack, marks)
        stdout = out.decode("utf-8", "replace")
        timing = {"worker": round((time.monotonic() - started) * 1000, 3)}
        if cancel is not None and cancel.requested and result_bytes is None:
            return Outcome(stdout, None, _error("KeyboardInterrupt", STOPPED_MESSAGE), timing)
        if result_bytes is not None:
            try:
                result = orjson.loads(result_bytes)
                if not isinstance(result, dict):
                    raise ValueError("not an object")
            except ValueError:
                return Outcome(
                    stdout,
                    None,
                    _error("RuntimeError", "the program's worker sent an invalid result"),
                    timing,
                )
            return Outcome(stdout, result, None, timing)
        if killed:
            self.kills += 1
            error = _error(
                "TimeoutError", f"stopped after {cfg.wall_clock_s:g} s (budget: wall_clock_s)"
            )
            return Outcome(stdout, None, _at_stack(error, bytes(stack), _sources(job)), timing)
        if broken is not None:
            return Outcome(stdout, None, _error("RuntimeError", broken), timing)
        self.crashes += 1
        return Outcome(stdout, None, self._death(w), timing)

    def _drain(
        self,
        w: _Worker,
        reader: protocol.FrameReader,
        out: bytearray,
        cap: int,
        stack: bytearray,
        marks: list[tuple[int, int]],
    ) -> None:
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            ready, _, _ = select.select([w.out_fd], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                return
            try:
                data = os.read(w.out_fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            try:
                for kind, body in reader.feed(data):
                    if kind == protocol.STDOUT and len(out) + len(body) <= cap:
                        out += body
                    elif kind == protocol.CELL:
                        chars = len(out.decode("utf-8", "replace"))
                        marks.append((protocol.cell_number(body), chars))
                    elif kind == protocol.STACK:
                        stack += (body + b"\n")[: max(0, self.STACK_CAP - len(stack))]
            except protocol.ProtocolError:
                return

    def _death(self, w: _Worker) -> dict[str, Any]:
        """Why a worker ended without a result (its exit status, reported by the zygote)."""
        end = time.monotonic() + 1.0
        with self._lock:
            while w.pid not in self._exits and time.monotonic() < end:
                self._lock.wait(end - time.monotonic())
            status = self._exits.pop(w.pid, None)
        if status is None:
            return _error("RuntimeError", "the program's worker ended without a result")
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                return _error(
                    "TimeoutError",
                    "the program used up its CPU time and was stopped (budget: cpu_s)"
                    if sig == signal.SIGXCPU
                    else "the program was killed (it ran out of CPU time or memory: budgets "
                    "cpu_s, sandbox_memory_limit_bytes)",
                )
            if sig == signal.SIGSEGV:
                return _error(
                    "RuntimeError",
                    "the program crashed (segmentation fault), for example by recursing too "
                    "deeply inside a native function",
                )
            name = (
                signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
            )
            return _error("RuntimeError", f"the program's process was ended by signal {name}")
        code = os.waitstatus_to_exitcode(status)
        if code == EXIT_NO_REPORT:
            return _error(
                "RuntimeError",
                "the program broke its worker's pipe to the server (closed or overwrote it), "
                "so no result came back",
            )
        return _error(
            "SystemExit", f"the program ended its process (exit status {code}) before it finished"
        )

    #: how long a stuck worker has to send its stack once asked, and then to finish sending it
    STACK_WAIT_S = 0.2
    STACK_REST_S = 0.02
    STACK_CAP = 16 * 1024

    def _ask_stack(self, w: _Worker) -> None:
        """Ask the worker, through the zygote, to write its Python stack (SIGUSR1: CPython's
        faulthandler writes it from its signal handler, even inside a long native call)."""
        ctl = self._ctl
        if ctl is not None:
            with contextlib.suppress(OSError):
                ctl.send(b"d" + PID.pack(w.pid))

    def _kill(self, w: _Worker) -> None:
        """SIGKILL through the zygote, the worker's parent: it alone knows the pid is still its
        unreaped child (a pid we signalled ourselves could have been reused)."""
        ctl = self._ctl
        if ctl is not None:
            with contextlib.suppress(OSError):
                ctl.send(b"k" + PID.pack(w.pid))

    def _discard(self, w: _Worker) -> None:
        """Close our ends and make sure the (one-shot) worker is gone."""
        with self._lock:
            self._busy.pop(w.pid, None)
        self._kill(w)
        for fd in (w.job_fd, w.out_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        w.job_fd = w.out_fd = -1

    # ---- state ----------------------------------------------------------------------------------

    def ready_workers(self) -> int:
        with self._lock:
            return len(self._ready["cpu"])

    def close(self) -> None:
        """Stop the zygote and every worker."""
        with self._lock:
            self._closed = True
            workers = [w for q in self._ready.values() for w in q]
            for q in self._ready.values():
                q.clear()
        for w in workers:
            self._discard(w)
        if self._ctl is not None:
            with contextlib.suppress(OSError):
                self._ctl.close()
        if self._proc is not None:
            with contextlib.suppress(OSError):
                self._proc.kill()
            with contextlib.suppress(Exception):
                self._proc.wait(timeout=5)


_STACK_LINE = re.compile(rb'^  File "(<[a-z]{1,10}(?: \d{1,6})?>)", line (\d+) in (\S{1,200})$')

#: (cell marks, on_cell): where the notebook cells' outputs begin, and who to tell
_CellMarks = tuple[list[tuple[int, int]], Callable[[int], None] | None]


def _sources(job: dict[str, Any]) -> dict[str, str]:
    """The job's source by the file name it runs under (a notebook's cells: ``<cell 3>``)."""
    cells = job.get("cells")
    if isinstance(cells, list):
        return {cell_filename(i): str(c) for i, c in enumerate(cells, 1)}
    return {PROGRAM_FILENAME: str(job.get("source", ""))}


def _at_stack(error: dict[str, Any], stack: bytes, sources: dict[str, str]) -> dict[str, Any]:
    """Locate a hard-killed program's error at the line its stack (faulthandler's text, most
    recent call first; as untrusted as anything a worker sends) says it was on."""
    frames = []
    for raw in stack.splitlines():
        match = _STACK_LINE.match(raw)
        filename = match.group(1).decode("ascii") if match else ""
        if match and filename in sources:
            frames.append(
                (filename, int(match.group(2)), match.group(3).decode("ascii", "replace"))
            )
    if not frames:
        return error
    calls = ""
    for filename, number, name in reversed(frames):
        lines = sources[filename].splitlines()
        calls += f'  File "{filename}", line {number}, in {name}\n'
        if 0 < number <= len(lines) and lines[number - 1].strip():
            calls += f"    {lines[number - 1].strip()}\n"
    filename, line, _ = frames[0]
    message = f"{error['message']}, stuck in a call on {place(filename, line)}"
    located = {
        **error,
        "line": line,
        "message": message,
        "traceback": f"Traceback (most recent call last):\n{calls}{error['type']}: {message}",
    }
    cell = cell_of(filename)
    if cell is not None:
        located["cell"] = cell
    return located


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]
