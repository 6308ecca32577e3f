"""A worker: forked by the zygote, jailed before it reads anything, runs one program, exits.

Its life, in order (all before the program's first byte is read):

1. close every descriptor but its two pipes (``job`` in, ``out`` back to the server), and put
   ``/dev/null`` on 0, 1 and 2 so that stray native writes go nowhere; this closes its copy of
   the zygote's lifeline too (:mod:`server.sandbox.zygote`), so no program can re-aim or hold
   it, and the process group it stays in (the jail allows no ``setpgid``/``setsid``) is the
   one the kernel SIGKILLs when the server goes;
2. for a CUDA worker, initialise the device (CUDA does not survive ``fork``);
3. install the jail (:mod:`server.sandbox.jail`): rlimits, Landlock, seccomp;
4. read one ``JOB`` frame, run it (:func:`server.program.runner.run_program`), streaming what
   the program prints as ``STDOUT`` frames, then one ``RESULT`` frame; exit. Asked (SIGUSR1)
   before a hard kill, it writes its Python stack between frames (``protocol.STACK``).

Nothing in here trusts the program: it may have replaced anything it can reach, so the result
is encoded defensively and the server validates it again.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import time
import types
from collections.abc import Mapping
from typing import Any

import orjson

from server.examples import TINY_EXAMPLE
from server.program import imports
from server.program.packing import pack_answer
from server.sandbox import hostpaths, protocol
from server.sandbox.jail import JailError, JailSpec, install

#: exit statuses of a worker that could not do its job (others are the program's own)
EXIT_NO_JAIL = 3
EXIT_NO_REPORT = 4


class PipeSink:
    """Program output to the server as STDOUT frames, line by line (or every ``chunk``
    characters), so a program killed in the middle of a native call keeps every whole line it
    printed: ``print(x)`` writes ``x`` and then ``"\n"``, which sends both in one frame."""

    def __init__(self, fd: int, chunk: int = 8192) -> None:
        self.fd = fd
        self.chunk = chunk
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> int:
        self._parts.append(text)
        self._size += len(text)
        if self._size >= self.chunk or "\n" in text:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if not self._parts:
            return
        data = "".join(self._parts).encode("utf-8", "surrogatepass")
        self._parts.clear()
        self._size = 0
        write_all(self.fd, protocol.frame(protocol.STDOUT, data))

    def cell(self, number: int) -> None:
        """A notebook's cell ``number`` starts: what it prints from now on is its own."""
        self.flush()
        write_all(self.fd, protocol.frame(protocol.CELL, str(number).encode("ascii")))


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_frame(fd: int, cap: int) -> tuple[bytes, bytes]:
    """Block until one whole frame has arrived."""
    reader = protocol.FrameReader({protocol.JOB: cap})
    while True:
        data = os.read(fd, 65536)
        if not data:
            raise EOFError("the server closed the job pipe")
        frames = reader.feed(data)
        if frames:
            return frames[0]


def packed(result: dict[str, Any]) -> dict[str, Any]:
    """The answer with its passes sharing their structure (:mod:`server.program.packing`)."""
    started = time.perf_counter()
    pack_answer(result)
    timing = result.get("timing_ms")
    if isinstance(timing, dict):
        timing["pack"] = round((time.perf_counter() - started) * 1000, 3)
    return result


def encode(result: dict[str, Any]) -> bytes:
    """The result frame's JSON; anything odd becomes a string rather than an error."""
    return orjson.dumps(result, option=orjson.OPT_SERIALIZE_NUMPY, default=str)


def _isolate(keep: tuple[int, ...]) -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    keep_all = sorted({0, 1, 2, *keep})
    start = 3
    for fd in keep_all:
        if fd >= start:
            os.closerange(start, fd)
            start = fd + 1
    os.closerange(start, 1 << 16)
    if null not in keep_all:
        with contextlib.suppress(OSError):
            os.close(null)


def _init_cuda() -> None:
    from engine import backend

    backend.init_cuda_after_fork()


def serve(
    job_fd: int,
    out_fd: int,
    spec: JailSpec,
    modules: Mapping[str, types.ModuleType],
    device_kind: str,
    job_cap: int,
    warm: bool = True,
) -> None:
    """The worker's whole life (never returns: exits the process)."""
    code = 0
    try:
        _isolate((job_fd, out_fd))
        try:
            if device_kind == "cuda":
                _init_cuda()
            hostpaths.forget_process()
            install(spec)
        except (JailError, Exception) as exc:
            write_all(
                out_fd,
                _refusal(f"the sandbox could not prepare its worker: {type(exc).__name__}: {exc}"),
            )
            os._exit(EXIT_NO_JAIL)
        # When the server asks before a hard kill (SIGUSR1, through the zygote), CPython's
        # faulthandler writes the program's stack to the pipe from its C signal handler: the
        # line it is stuck on, even inside a native call that no Python handler can interrupt.
        with contextlib.suppress(Exception):
            faulthandler.register(signal.SIGUSR1, file=out_fd, all_threads=False)
        # The soft stops (Stop's SIGINT, the overdue SIGUSR2) mean something only once the
        # program runs (the runner's wall clock installs their handlers): one that comes
        # before must not end the worker (SIGUSR2's default) or raise in its set-up code.
        for soft in (signal.SIGINT, signal.SIGUSR2):
            signal.signal(soft, signal.SIG_IGN)
        imports.one_program_per_process()
        if warm:
            _warm(modules)
        write_all(out_fd, protocol.frame(protocol.READY, b""))
        _kind, payload = read_frame(job_fd, job_cap)
        os.close(job_fd)
        job = orjson.loads(payload)
        from server.program.runner import run_program

        sink = PipeSink(out_fd)
        result = run_program(job, sink, modules, on_cell=sink.cell)
        sink.flush()
        write_all(out_fd, protocol.frame(protocol.RESULT, encode(packed(result))))
        # The server reads until this pipe closes (anything after the result is the program
        # writing into it): close it now rather than when the exit has torn the whole address
        # space down. Nothing else holds it (the jail allows no dup).
        os.close(out_fd)
    except BaseException:  # the server reports a worker that ends without a result
        code = EXIT_NO_REPORT
    finally:
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
        os._exit(code)


#: What a worker runs on itself while it waits for its program (our code, before the user's):
#: a forked process pays for its first run with copy-on-write page faults and cold caches
#: (~4 ms for the tiny example, against ~1.3 ms for the same run a second time); paid here,
#: off the request's path, the program's own run starts warm. The tiny example, then a few
#: steps of an nn.Linear and an optimizer.
WARM_UP = (
    TINY_EXAMPLE
    + """from torch import nn
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X = torch.ones(4, 2)
for _ in range(2):
    l = nn.functional.mse_loss(model(X), torch.zeros(4, 1))
    opt.zero_grad()
    l.backward()
    opt.step()
"""
)


def _warm(modules: Mapping[str, types.ModuleType]) -> None:
    from server.program.output import StringSink
    from server.program.runner import run_program

    with contextlib.suppress(Exception):
        run_program({"source": WARM_UP}, StringSink(), modules, timed=False)


def _refusal(message: str) -> bytes:
    body: dict[str, Any] = {
        "ok": False, "graph": None, "passes": [], "notice": None, "device": "cpu",
        "timing_ms": {}, "error": {"type": "RuntimeError", "message": message, "line": None, "col": None},
    }  # fmt: skip
    return protocol.frame(protocol.RESULT, encode(body))
