"""A program's time: its wall clock, and the soft stops the server may send it.

The wall clock raises ``TimeoutError`` in the program when its budget is spent, again every
``AGAIN_S`` (code that catches ``Exception`` cannot swallow its end); the server SIGKILLs a
program that still runs after the grace. Two signals end it early the same way: ``SIGUSR2`` (no
long-run slot for it: a ``TimeoutError`` that says so) and ``SIGINT`` (the learner's Stop:
:class:`StoppedByUser`, a ``KeyboardInterrupt`` raised where the program is, so that what it
printed and recorded is kept).
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Iterator
from typing import Any

#: a TimeoutError swallowed by the program (or code it calls) is raised again this much later
AGAIN_S = 0.1


class StoppedByUser(KeyboardInterrupt):
    """Stop pressed while the program ran (a soft stop, the server's ``SIGINT``): raised where
    the program is, as Jupyter's interrupt is, so that what it printed and recorded is kept."""


def stopped_message(seconds: float) -> str:
    return (
        f"stopped by Stop after {seconds:.1f} s; what it printed and the passes it recorded "
        "until then are kept"
    )


@contextlib.contextmanager
def wall_clock(seconds: float, enabled: bool) -> Iterator[None]:
    """Raise TimeoutError in the program after ``seconds`` (the parent kills it a little later
    if it does not stop: a handler cannot interrupt one long native call). Two signals from the
    server end it early, softly, the same way: ``SIGUSR2`` (no long-run slot for it: a
    TimeoutError that says so) and ``SIGINT`` (Stop: :class:`StoppedByUser`)."""
    if not enabled or seconds <= 0:
        yield
        return

    started = time.monotonic()
    why = [f"stopped after {seconds:g} s (budget: wall_clock_s)"]
    kind: list[type[BaseException]] = [TimeoutError]

    def stop(signum: int, frame: Any) -> None:
        raise kind[0](why[0])

    def out_of_cpu(signum: int, frame: Any) -> None:
        raise TimeoutError("used up its CPU time (budget: cpu_s)")

    def overdue(signum: int, frame: Any) -> None:  # the server: no long-run slot for it
        if kind[0] is StoppedByUser:
            return  # already stopping, for a reason the learner gave
        why[0] = (
            f"stopped after {time.monotonic() - started:.1f} s: every long-run slot was taken "
            "(a run that goes on past its first fraction of a second needs one, and this "
            "client's or the whole class's are busy), so it could not go on (budget: "
            "sandbox_overdue_s); run it again when a long run has ended"
        )
        signal.setitimer(signal.ITIMER_REAL, 0.001, AGAIN_S)  # as the wall clock, now

    def stopped(signum: int, frame: Any) -> None:  # the server: the learner pressed Stop
        kind[0] = StoppedByUser
        why[0] = stopped_message(time.monotonic() - started)
        signal.setitimer(signal.ITIMER_REAL, 0.001, AGAIN_S)

    signal.signal(signal.SIGALRM, stop)
    signal.signal(signal.SIGXCPU, out_of_cpu)
    signal.signal(signal.SIGUSR2, overdue)
    signal.signal(signal.SIGINT, stopped)
    # Raised again every AGAIN_S while the program runs on: code that catches Exception
    # (the program's, or a library's) cannot swallow its end; the parent's SIGKILL after the
    # grace is the last word.
    signal.setitimer(signal.ITIMER_REAL, seconds, AGAIN_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        # A stop that comes while the answer is being made is too late to end the program:
        # it must not end the export instead.
        for signum in (signal.SIGALRM, signal.SIGUSR2, signal.SIGINT):
            signal.signal(signum, signal.SIG_IGN)
