"""One run on one worker, from the server's side: the job sent, the frames read with a
deadline, the run stopped (softly when it can, by SIGKILL when it must), and how it ended.

:class:`Drive` is the conversation; :class:`Cancel` is how another thread (Stop, a newer run, a
closed connection, admission control finding no long slot) ends it; :class:`Outcome` is what
it leaves: the output, the worker's answer (unparsed: hostile input, bounded and parsed by
:mod:`server.sandbox.answers`), or the error the server saw. The pool (:mod:`server.sandbox.pool`)
supplies the worker and what only it can do (:class:`Controls`).
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from server.program.source import FILENAME as PROGRAM_FILENAME
from server.program.source import cell_filename, cell_of, place
from server.sandbox import protocol
from server.sandbox.config import SandboxConfig
from server.sandbox.supervisor import Zygote


class Cancel:
    """Ends one run from any thread (Stop, a newer run, a closed connection): its worker is
    SIGKILLed at once through the zygote, or, cancelled before it starts, the run never starts.
    ``Sandbox.run`` then answers with a ``KeyboardInterrupt`` error, as a notebook's Stop does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requested = False
        self._stop: Callable[[], None] | None = None
        #: when the program must stop softly (an error raised where it is, that says why, its
        #: output and recorded passes kept), from another thread: a long program with no long
        #: slot free (:meth:`hurry`), or the learner's Stop (:meth:`stop_softly`)
        self.soft_deadline: float | None = None
        #: the signal that stops it softly: :data:`OVERDUE_SIGNAL` or :data:`SOFT_STOP_SIGNAL`
        self.soft_signal: signal.Signals = OVERDUE_SIGNAL

    def hurry(self, seconds: float) -> None:
        """Give the program at most ``seconds`` more, then stop it softly (see
        :data:`OVERDUE_SIGNAL`); a later :meth:`unhurry` lifts it if it has not fired yet."""
        if self.soft_signal is not SOFT_STOP_SIGNAL:
            self.soft_deadline = time.monotonic() + max(0.0, seconds)

    def unhurry(self) -> None:
        if self.soft_signal is not SOFT_STOP_SIGNAL:
            self.soft_deadline = None

    def stop_softly(self) -> None:
        """Stop as the learner's Stop does: the program gets a KeyboardInterrupt where it is
        (:data:`SOFT_STOP_SIGNAL`) and answers with what it printed and recorded so far; one
        that does not end within the grace is killed (:meth:`set`'s answer, nothing kept)."""
        self.soft_signal = SOFT_STOP_SIGNAL
        self.soft_deadline = time.monotonic()

    @property
    def stopping_softly(self) -> bool:
        return self.soft_signal is SOFT_STOP_SIGNAL

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
#: what a hurried program is sent when its time is up: the runner raises a TimeoutError that
#: says every long-run slot was taken (server.program.clock.wall_clock)
OVERDUE_SIGNAL = signal.SIGUSR2
#: what a program is sent on Stop: the runner raises a KeyboardInterrupt where it is
SOFT_STOP_SIGNAL = signal.SIGINT
#: a soft Stop the program did not answer within the grace (stuck in one native call)
STOPPED_HARD_MESSAGE = (
    "stopped by Stop; it did not stop within the grace (busy in one long native call), so it "
    "was killed and what it recorded is lost"
)


@dataclass(eq=False)
class Worker:
    """A forked worker as the server knows it: its pipes, its pidfd, and while it runs a
    program, when it started and how nice it is."""

    pid: int
    job_fd: int
    out_fd: int
    kind: str
    born: float
    pidfd: int = -1  # -1: no pidfd here; killed through its zygote
    zygote: Zygote | None = None
    warm: bool = False  # it has said READY: jailed, its first-run costs paid
    early: bytes = b""  # bytes read while looking for READY that were something else
    # while it runs a program:
    started: float = 0.0
    cpu_at_start: float = 0.0
    niceness: int = 0
    on_long: Callable[[], None] | None = None


@dataclass
class Outcome:
    """What came back from one worker."""

    stdout: str
    #: its RESULT frame, not parsed (hostile input: server.sandbox.answers bounds and parses it)
    answer: bytes | None
    error: dict[str, Any] | None  # set when the worker ended without a usable result
    timing_ms: dict[str, float]
    #: a notebook's cells as they started: (cell number, where its output begins in stdout)
    cells: list[tuple[int, int]] = field(default_factory=list)

    @property
    def result(self) -> dict[str, Any] | None:
        """The answer parsed, for tests and tools (the server parses it through
        :class:`server.runs.responses.ProgramAnswer`, bounded and off the event loop)."""
        return None if self.answer is None else dict(orjson.loads(self.answer))


def error_of(type_name: str, message: str) -> dict[str, Any]:
    """An answer's ``error`` from the server's side (no line: the worker said nothing)."""
    return {"type": type_name, "message": message, "line": None, "col": None}


_STACK_LINE = re.compile(rb'^  File "(<[a-z]{1,10}(?: \d{1,6})?>)", line (\d+) in (\S{1,200})$')

#: (cell marks, on_cell): where the notebook cells' outputs begin, and who to tell
CellMarks = tuple[list[tuple[int, int]], Callable[[int], None] | None]


def job_sources(job: Mapping[str, Any]) -> dict[str, str]:
    """The job's source by the file name it runs under (a notebook's cells: ``<cell 3>``)."""
    cells = job.get("cells")
    if isinstance(cells, list):
        return {cell_filename(i): str(c) for i, c in enumerate(cells, 1)}
    return {PROGRAM_FILENAME: str(job.get("source", ""))}


def is_program_top(line: bytes, sources: dict[str, str]) -> bool:
    """Whether a stack dump's line is a frame of the program's module code (a cell's, in a
    notebook): the outermost of the program's frames, most recent call first."""
    match = _STACK_LINE.match(line)
    return bool(match and match.group(3) == b"<module>" and match.group(1).decode() in sources)


def at_stack(error: dict[str, Any], stack: bytes, sources: dict[str, str]) -> dict[str, Any]:
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


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class Controls(Protocol):
    """What a run's drive asks of the pool: to signal its worker (through its pidfd, or its
    zygote), to SIGKILL it, to ask for its stack, and why it died."""

    def kill(self, w: Worker) -> None: ...

    def soft_stop(self, w: Worker, signum: signal.Signals) -> None: ...

    def ask_stack(self, w: Worker) -> None: ...

    def death(self, w: Worker) -> dict[str, Any]: ...


class Drive:
    """One run's conversation with its worker: send the job, read what comes back with a
    deadline (output as it arrives, a notebook's cell marks, its one result), stop it softly
    when asked (Stop, no long slot: an error raised where it is, then the grace), ask for its
    stack and SIGKILL it when its time is up, and say how it ended (:class:`Outcome`).
    Everything the worker sends is hostile: any frame out of order, over its cap, or a stack
    nobody asked for ends the run."""

    #: the longest the reader sleeps between looks at its run's controls
    LOOK_S = 0.25
    #: how long a stuck worker has to send its stack once asked, down to the program's
    #: outermost frame (by then it is long, reniced to 19: on busy cores it may wait hundreds
    #: of milliseconds for each turn, and faulthandler writes a line at a time; one that never
    #: answers, having blocked the signal, is killed this much later, no more)
    STACK_WAIT_S = 1.0
    STACK_CAP = 16 * 1024
    #: after its result, how long the worker has to close its pipe
    EOF_AFTER_RESULT_S = 0.5

    def __init__(
        self,
        controls: Controls,
        config: SandboxConfig,
        w: Worker,
        job: Mapping[str, Any],
        cancel: Cancel | None = None,
        on_stdout: Callable[[str], None] | None = None,
        cells: CellMarks | None = None,
    ) -> None:
        self.controls = controls
        self.config = config
        self.w = w
        self.job = job
        self.cancel = cancel
        self.on_stdout = on_stdout
        self.marks, self.on_cell = cells if cells is not None else ([], None)
        self.stdout_cap = 4 * config.max_output_chars + 4096
        self.reader = protocol.FrameReader(
            {
                protocol.STDOUT: self.stdout_cap,
                protocol.RESULT: config.max_result_bytes,
                protocol.READY: 0,
                protocol.CELL: protocol.CELL_CAP,
            },
            stacks=True,
        )
        self.out = bytearray()
        self.chars = 0  # characters of output so far (where a cell's output begins)
        self.stack = bytearray()  # the program's stack, asked for before a hard kill
        self.sources = job_sources(job)
        self.result: bytes | None = None
        self.killed = False  # SIGKILLed without a result: out of time
        self.asked_stack = False
        self.hurried = False  # the soft-stop signal has been sent
        self.broken: str | None = None
        #: how it ended: "answered", "stopped", "killed" (out of time), "broken", "died"
        self.ending = ""
        self.started = time.monotonic()
        self.deadline = self.started + config.wall_clock_s + config.grace_s
        self.eof = self.deadline  # after a result: when the pipe must have closed

    def run(self) -> Outcome:
        """Send the job, read until the worker is done (or killed), and say how it ended."""
        w = self.w
        if w.early:  # a frame's first bytes, read while looking for READY: the rest follows
            with contextlib.suppress(protocol.ProtocolError):
                self.reader.feed(w.early)
        w.started = self.started
        if self.cancel is not None:
            self.cancel._bind(lambda: self.controls.kill(w))
        self._send_job()
        # Read until the pipe closes: the worker exits as soon as it has sent its one result,
        # so anything after a result (or a second result) is the program writing into it.
        while self.broken is None and self._step():
            pass
        if self.cancel is not None:
            self.cancel._bind(None)
        if self.killed:  # keep what it printed before it was killed
            self._drain()
        return self._outcome()

    def _send_job(self) -> None:
        payload = protocol.frame(protocol.JOB, orjson.dumps(self.job))
        try:
            write_all(self.w.job_fd, payload)
        except OSError:
            self.broken = "the worker was gone before it got the program"
        with contextlib.suppress(OSError):
            os.close(self.w.job_fd)
        self.w.job_fd = -1

    def _step(self) -> bool:
        """One look at the worker: stop it if its time is up, else read what it sent. False
        when the conversation is over."""
        now = time.monotonic()
        cancel = self.cancel
        soft = cancel.soft_deadline if cancel is not None and not self.hurried else None
        if cancel is not None and soft is not None and self.result is None and now >= soft:
            self.hurried = True  # its error now, then the usual grace
            self.controls.soft_stop(self.w, cancel.soft_signal)
            self.deadline = min(self.deadline, now + self.config.grace_s)
        left = (self.deadline if self.result is None else self.eof) - now
        if soft is not None and not self.hurried:
            left = min(left, max(0.0, soft - now))
        if left <= 0:
            if self.result is None and not self.asked_stack:
                # Past the soft wall clock and the grace: the program is stuck where its
                # error cannot be raised (inside one native call). Ask for its stack first,
                # so that the error can say which line it was on.
                self.asked_stack = True
                self.controls.ask_stack(self.w)
                self.deadline = time.monotonic() + self.STACK_WAIT_S
                return True
            self.controls.kill(self.w)
            self.killed = self.result is None
            return False
        # (at most a quarter second asleep: a hurry from another thread is seen in time)
        ready, _, _ = select.select([self.w.out_fd], [], [], min(left, self.LOOK_S))
        if not ready:
            return True
        try:
            data = os.read(self.w.out_fd, 1 << 16)
        except OSError:
            data = b""
        if not data:
            return False
        try:
            for kind, body in self.reader.feed(data):
                self._frame(kind, body)
        except protocol.ProtocolError as exc:
            self.result = None
            self.controls.kill(self.w)
            if self.asked_stack:  # its stack, written over a frame it was sending: out of time
                self.killed = True
                return False
            self.broken = f"the program wrote into its worker's pipe to the server ({exc})"
        return True

    def _frame(self, kind: bytes, body: bytes) -> None:
        """One frame from the worker, in the order the protocol allows."""
        if self.result is not None:
            raise protocol.ProtocolError("a frame after the result")
        if kind == protocol.STDOUT:
            if len(self.out) + len(body) > self.stdout_cap:
                raise protocol.ProtocolError("more output than the budget allows")
            self.out += body
            text = body.decode("utf-8", "replace")
            self.chars += len(text)
            if self.on_stdout is not None and text:
                self.on_stdout(text)
        elif kind == protocol.CELL:
            number = protocol.cell_number(body)
            self.marks.append((number, self.chars))
            if self.on_cell is not None:
                self.on_cell(number)
        elif kind == protocol.STACK:
            if not self.asked_stack:  # a program forging the line its error names
                raise protocol.ProtocolError("a stack dump the server did not ask for")
            self.stack += (body + b"\n")[: max(0, self.STACK_CAP - len(self.stack))]
            if is_program_top(body, self.sources):  # every line of the program's is here
                self.deadline = min(self.deadline, time.monotonic())
        elif kind == protocol.RESULT:
            self.result = body
            self.eof = time.monotonic() + self.EOF_AFTER_RESULT_S

    def _drain(self) -> None:
        """What a killed worker had sent but not yet been read: its output, cells, stack."""
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            wait = max(0.0, end - time.monotonic())
            ready, _, _ = select.select([self.w.out_fd], [], [], wait)
            if not ready:
                return
            try:
                data = os.read(self.w.out_fd, 1 << 16)
            except OSError:
                return
            if not data:
                return
            try:
                for kind, body in self.reader.feed(data):
                    if kind == protocol.STDOUT and len(self.out) + len(body) <= self.stdout_cap:
                        self.out += body
                    elif kind == protocol.CELL:
                        chars = len(self.out.decode("utf-8", "replace"))
                        self.marks.append((protocol.cell_number(body), chars))
                    elif kind == protocol.STACK:
                        self.stack += (body + b"\n")[: max(0, self.STACK_CAP - len(self.stack))]
            except protocol.ProtocolError:
                return

    def _outcome(self) -> Outcome:
        stdout = self.out.decode("utf-8", "replace")
        timing = {"worker": round((time.monotonic() - self.started) * 1000, 3)}
        cancel = self.cancel
        if cancel is not None and cancel.requested and self.result is None:
            self.ending = "stopped"
            return Outcome(stdout, None, error_of("KeyboardInterrupt", STOPPED_MESSAGE), timing)
        if self.result is not None:  # parsed by whoever answers, bounded, off the event loop
            self.ending = "answered"
            return Outcome(stdout, self.result, None, timing)
        if self.killed:
            self.ending = "killed"
            if cancel is not None and cancel.stopping_softly:
                error = error_of("KeyboardInterrupt", STOPPED_HARD_MESSAGE)
            else:
                wall = self.config.wall_clock_s
                error = error_of("TimeoutError", f"stopped after {wall:g} s (budget: wall_clock_s)")
            located = at_stack(error, bytes(self.stack), self.sources)
            return Outcome(stdout, None, located, timing)
        if self.broken is not None:
            self.ending = "broken"
            return Outcome(stdout, None, error_of("RuntimeError", self.broken), timing)
        self.ending = "died"
        return Outcome(stdout, None, self.controls.death(self.w), timing)
