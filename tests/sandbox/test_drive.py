"""A run's drive (server/sandbox/drive.py) against a scripted worker: pipes and a stand-in for
the pool's signals, so that how the worker answers in time is set here, not left to a machine's
load."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from server.sandbox.config import SandboxConfig
from server.sandbox.drive import Drive, Outcome, Worker

SOURCE = "print('start')\ndef total():\n    return sum(range(10**14))\n\ntotal()\n"
HEADER = b"Stack (most recent call first):"


class SlowStack:
    """A stuck worker that answers the ask for its stack as a reniced process on busy cores
    does: a line, a long wait for its next turn, the next line ... (``lines``: each with the
    pause before it)."""

    def __init__(self, lines: list[tuple[float, bytes]]) -> None:
        self.lines = lines
        self.read_fd, self.write_fd = os.pipe()
        self.killed_at: float | None = None
        self.asked_at: float | None = None
        self._writer: threading.Thread | None = None
        self._lock = threading.Lock()  # a killed worker writes nothing more

    def kill(self, w: Worker) -> None:
        with self._lock:
            if self.killed_at is None:
                self.killed_at = time.monotonic()
                os.close(self.write_fd)

    def soft_stop(self, w: Worker, signum: signal.Signals) -> None:
        pass

    def ask_stack(self, w: Worker) -> None:
        self.asked_at = time.monotonic()

        def write() -> None:
            for pause_s, line in self.lines:
                time.sleep(pause_s)
                with self._lock:
                    if self.killed_at is not None:
                        return
                    os.write(self.write_fd, line + b"\n")

        self._writer = threading.Thread(target=write)
        self._writer.start()

    def death(self, w: Worker) -> dict[str, Any]:
        raise AssertionError("the worker was killed, it did not die")

    def drive(self) -> Drive:
        job_read, job_write = os.pipe()
        self.job_read = job_read
        worker = Worker(pid=0, job_fd=job_write, out_fd=self.read_fd, kind="cpu", born=0.0)
        config = SandboxConfig(workers=1, wall_clock_s=0.1, grace_s=0.1)
        return Drive(self, config, worker, {"source": SOURCE})

    def close(self) -> None:
        if self._writer is not None:
            self._writer.join()
        for fd in (self.read_fd, self.job_read):
            os.close(fd)


def drive_against(lines: list[tuple[float, bytes]]) -> tuple[Drive, Outcome, SlowStack]:
    """A drive's run against a stuck worker that answers the ask for its stack with ``lines``."""
    worker = SlowStack(lines)
    try:
        drive = worker.drive()
        outcome = drive.run()
    finally:
        worker.close()
    return drive, outcome, worker


def test_the_drive_waits_for_the_programs_frames_of_a_slow_stack() -> None:
    """The header, then the program's frames 0.3 s later: the kill waits for them."""
    _, outcome, _ = drive_against(
        [
            (0.0, HEADER),
            (0.3, b'  File "<program>", line 5 in <module>'),
            (0.0, b'  File "<worker>", line 9 in main'),
        ]
    )
    assert outcome.error is not None and outcome.error["type"] == "TimeoutError"
    assert outcome.error["line"] == 5, outcome.error
    assert "stuck in a call on line 5" in outcome.error["message"]


def test_the_drive_kills_once_the_programs_outermost_frame_is_in() -> None:
    """The worker's own frames below the program's are not waited for (they name no line of
    the program): the kill follows the program's ``<module>`` frame, not the wait's end."""
    drive, outcome, _ = drive_against(
        [
            (0.0, HEADER),
            (0.0, b'  File "<program>", line 3 in total'),
            (0.0, b'  File "<program>", line 5 in <module>'),
            (Drive.STACK_WAIT_S * 0.9, b'  File "<worker>", line 9 in main'),
        ]
    )
    assert outcome.error is not None and outcome.error["line"] == 3
    assert outcome.error["traceback"].splitlines()[1:5] == [
        '  File "<program>", line 5, in <module>',
        "    total()",
        '  File "<program>", line 3, in total',
        "    return sum(range(10**14))",
    ]
    assert b"line 5 in <module>" in drive.stack and b"<worker>" not in drive.stack


def test_a_frame_named_module_of_another_file_does_not_end_the_wait() -> None:
    _, outcome, _ = drive_against(
        [
            (0.0, HEADER),
            (0.0, b'  File "<string>", line 1 in <module>'),
            (0.3, b'  File "<program>", line 5 in <module>'),
        ]
    )
    assert outcome.error is not None and outcome.error["line"] == 5


def test_a_stack_that_never_comes_ends_in_a_kill_without_a_line() -> None:
    _, outcome, worker = drive_against([])
    assert outcome.error is not None and outcome.error["type"] == "TimeoutError"
    assert outcome.error["line"] is None
    assert worker.asked_at is not None and worker.killed_at is not None
