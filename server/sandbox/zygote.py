"""The zygote: a clean process that loads everything importable, then forks workers on demand.

Started by the server (:mod:`server.sandbox.supervisor`) as ``python -c`` :data:`ENTRY` with a
scrubbed environment (nothing of the server's environment but an allow-list) and one
descriptor: a SOCK_SEQPACKET control socket. It reads its configuration (JSON) from that
socket, imports the engine (as ``torch``), NumPy and the standard modules a program may use,
renames every code object's host path (:mod:`server.sandbox.hostpaths`), probes whether the
kernel can jail a worker, says hello, and then serves these messages:

- server -> zygote ``b"s" + kind`` (``cpu`` / ``cuda``): fork a worker; the zygote answers
  ``b"W" + pid + kind`` with the two server-side pipe ends and, where the kernel has pidfds,
  a pidfd of the worker attached (SCM_RIGHTS): the server can then kill and renice that worker
  whatever happens to this zygote, and never a process that reused its pid;
- server -> zygote ``b"k" + pid``: SIGKILL that worker if it is still a live child (where
  there are no pidfds: only the parent knows a pid has not been reaped and reused);
- server -> zygote ``b"d" + pid``: SIGUSR1 that worker, whose faulthandler then writes its
  Python stack to the server (asked before a hard kill, to say which line it was stuck on);
- server -> zygote ``b"b"`` with a socket attached: fork a *standby*, a copy of this zygote
  that keeps that socket and waits; server -> standby ``b"a"``: be the zygote now (it says
  hello and serves). A dead zygote is so replaced in milliseconds, not the seconds a new one
  takes to load, and the idle copy costs little memory (its pages are shared until written);
- server -> zygote ``b"p"`` (a heartbeat, about once a second): the zygote answers ``b"P"``
  from its loop; one that stops answering (stopped, stuck) is SIGKILLed and replaced;
- zygote -> server ``b"X" + pid + status`` when a worker has exited (the zygote reaps them).

**Nothing outlives the server.** The zygote leads a process group of its own, which every
worker and the standby it forks inherit (and which the jail's system calls cannot leave: no
``setpgid``, no ``setsid``). It holds the read end of a *lifeline* pipe whose only write end
is the server's, armed with ``O_ASYNC``, ``F_SETOWN`` to that group and ``F_SETSIG`` =
``SIGKILL``: when the server's end closes, however the server ended (SIGKILL included), the
kernel SIGKILLs the whole group at once, stopped or running, jailed or not. Workers close
their copy before the jail (they keep only their two pipes), so no program can touch it.

It never runs user code itself and holds no secret: the server's memory is not shared with
it (it is a new process, not a fork of the server). A forked worker does not run inside the
zygote's loop: it returns out of it, so that the frames below a program hold nothing of the
zygote (its configuration, its control socket, the other workers' pids), and runs from the
bottom of the stack (:data:`ENTRY`).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gc
import json
import os
import select
import signal
import socket
import sys
from collections.abc import Callable
from typing import Any

from server.sandbox import hostpaths
from server.sandbox.protocol import CONTROL_FD_ENV, PID, PID_STATUS

#: What the server runs (``python -c``): the zygote's loop returns only in a forked worker,
#: which then runs its program from here, two frames above nothing.
ENTRY = "from server.sandbox.zygote import serve\nserve()()"
#: the environment variable naming the lifeline's read end (see the module's docstring)
LIFELINE_FD_ENV = "AGP_ZYGOTE_LIFELINE_FD"
#: fcntl's F_SETSIG (Linux), which Python's fcntl names only on some builds
F_SETSIG = getattr(fcntl, "F_SETSIG", 10)


def hold_lifeline(fd: int) -> bool:
    """Arm the lifeline's read end ``fd``: when its last write end (the server's) closes, the
    kernel SIGKILLs this process group, this process included. Only armed when this process
    leads its own group (it would otherwise name its parent's, the server's, group); False if
    not armed. Exits at once if the server has already gone (its end closed before we armed
    it: no signal would come)."""
    if os.getpgrp() != os.getpid():
        return False
    fcntl.fcntl(fd, fcntl.F_SETOWN, -os.getpgrp())
    fcntl.fcntl(fd, F_SETSIG, signal.SIGKILL)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)
    readable, _, _ = select.select([fd], [], [], 0)
    if readable:  # nothing is ever written to it: readable means its write end has closed
        os._exit(0)
    return True


def _load(config: dict[str, Any]) -> dict[str, Any]:
    from server.program import imports as mods
    from server.program.source import is_program_file

    for path in config.get("extra_sys_path", []):
        sys.path.insert(0, path)
    loaded = mods.preload(("recorder",))
    if config.get("cuda_workers"):
        with contextlib.suppress(Exception):
            import cupy  # noqa: F401 - imported only: CUDA itself starts after the fork

    import server.program.runner
    import server.sandbox.worker  # noqa: F401
    from server.sandbox import jail

    jail.preload()

    mods.present_as_torch(loaded)
    mods.warn_on_non_leaf_grad(loaded["torch"].Tensor, is_program_file)
    # Before the warm-up, so that the code objects it specialises are the ones workers run;
    # and again after it, for whatever it loaded lazily.
    hostpaths.rename_code()
    if config.get("warm_up", True):
        _warm_up(loaded)
    hostpaths.rename_code()
    mods.scrub_paths()
    hostpaths.forget_caches()
    mods.settle_sys_modules(loaded)  # made once here, handed to each worker's program as it is
    return loaded


def _warm_up(loaded: dict[str, Any]) -> None:
    """Run the gallery once, here, before any fork: every worker then starts with the caches
    a program fills on its first run (the engine's dispatch tables, NumPy's, the compiler's)
    already filled, and their pages already touched. Our own code, not a learner's."""
    from server.examples import EXAMPLES
    from server.program.output import StringSink
    from server.program.runner import run_program

    engine = loaded["torch"]
    for example in EXAMPLES:
        with contextlib.suppress(Exception):
            run_program(
                {"source": example.source, "bindings": example.bindings or {}},
                StringSink(),
                loaded,
                timed=False,
            )
    engine.set_default_device("cpu")
    engine.set_grad_enabled(True)


def serve() -> Callable[[], None]:
    """Be the zygote until the server goes (then exit); in a forked worker, return the
    worker's life (:func:`server.sandbox.worker.serve` with its arguments) for :data:`ENTRY`
    to call, the zygote's frames gone. A standby, forked from the zygote, waits here until the
    server activates it, then is the zygote."""
    ctl = socket.socket(fileno=int(os.environ.pop(CONTROL_FD_ENV)))
    lifeline = os.environ.pop(LIFELINE_FD_ENV, None)
    if lifeline is not None:  # first, before the seconds of loading
        hold_lifeline(int(lifeline))
    config = json.loads(ctl.recv(1 << 20))
    loaded = _load(config)
    from server.sandbox import jail

    available, how = jail.probe()
    mode = config.get("mode", "auto")
    jailed = available and mode != "none"
    landlock = jail.landlock_abi() if jailed else 0
    hello = {"seccomp": jailed, "reason": how, "landlock": landlock}

    specs = {
        "cpu": jail.JailSpec(
            memory_bytes=int(config.get("memory_bytes", 0)),
            cpu_seconds=int(config.get("cpu_seconds", 0)),
            seccomp=jailed,
            landlock=jailed,
        ),
        "cuda": jail.JailSpec(
            memory_bytes=0,  # the CUDA driver reserves huge address ranges; CuPy's pool is capped
            cpu_seconds=int(config.get("cpu_seconds", 0)),
            seccomp=jailed,
            landlock=jailed,
            extra_syscalls=jail.CUDA_SYSCALLS,
            landlock_allow=tuple(f"/dev/{n}" for n in _nvidia_nodes()),
        ),
    }
    job_cap = int(config.get("job_cap", 1 << 20))
    warm_workers = bool(config.get("warm_workers", True))
    if config.get("gc_freeze", True):
        # Everything loaded so far is immortal for the collector: a worker's collections then
        # never walk (and so never copy-on-write) the zygote's objects.
        gc.collect()
        gc.freeze()
    config.clear()

    while True:
        ctl.send(b"H" + json.dumps({**hello, "pid": os.getpid()}).encode())
        kind, result = _serve_requests(ctl, specs, loaded, job_cap, warm_workers)
        if kind == "worker":
            assert callable(result)
            return result
        # a standby: a fork of the zygote, as loaded; it waits until the server activates it
        # (its zygote died) and is then the zygote itself, or until the server goes
        assert isinstance(result, socket.socket)
        ctl = result
        try:
            message = ctl.recv(64)
        except OSError:
            message = b""
        if message != b"a":
            sys.exit(0)


def _serve_requests(
    ctl: socket.socket,
    specs: dict[str, Any],
    loaded: dict[str, Any],
    job_cap: int,
    warm_workers: bool,
) -> tuple[str, Callable[[], None] | socket.socket]:
    """The zygote's loop. Returns only in a process it forked: ``("worker", its life)`` or
    ``("standby", its control socket)``; the zygote itself exits when the server goes."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    def leave() -> None:
        """In a forked child: forget the zygote (its socket, its wake-up pipe, its children)."""
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        children.clear()
        for fd in (wake_r, wake_w):
            os.close(fd)
        ctl.close()

    children: set[int] = set()
    while True:
        ready, _, _ = select.select([ctl.fileno(), wake_r], [], [])
        if wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 4096)
            _reap(ctl, children)
        if ctl.fileno() in ready:
            try:
                message, fds, _, _ = socket.recv_fds(ctl, 64, 1)
            except OSError:
                message, fds = b"", []
            if not message:  # the server is gone: so are we (workers die with their pipes)
                sys.exit(0)
            if message[:1] == b"s":
                kind = message[1:].decode() if message[1:] in (b"cpu", b"cuda") else "cpu"
                pid, life = _spawn(ctl, specs[kind], loaded, kind, job_cap, warm_workers)
                if life is not None:  # the worker: leave the zygote's loop
                    leave()
                    return "worker", life
                children.add(pid)
            elif message[:1] == b"b" and len(fds) == 1:
                if os.fork() == 0:  # the standby
                    leave()
                    return "standby", socket.socket(fileno=fds[0])
                os.close(fds[0])
                fds = []
            elif message == b"p":  # the server's heartbeat
                with contextlib.suppress(OSError):
                    ctl.send(b"P")
            elif message[:1] == b"k" and len(message) == 1 + PID.size:
                (pid,) = PID.unpack_from(message, 1)
                if pid in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            elif message[:1] == b"d" and len(message) == 1 + PID.size:
                (pid,) = PID.unpack_from(message, 1)
                if pid in children:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGUSR1)  # its faulthandler writes its stack
            for fd in fds:
                os.close(fd)
        _reap(ctl, children)


def _nvidia_nodes() -> list[str]:
    with contextlib.suppress(OSError):
        return [n for n in os.listdir("/dev") if n.startswith("nvidia")]
    return []


def _spawn(
    ctl: socket.socket, spec: Any, loaded: dict[str, Any], kind: str, job_cap: int, warm: bool
) -> tuple[int, Callable[[], None] | None]:
    """Fork a worker: in the zygote ``(pid, None)``, in the worker ``(0, its life)``."""
    from server.sandbox import worker

    job_r, job_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in (job_w, out_r):
            os.close(fd)
        return 0, functools.partial(worker.serve, job_r, out_w, spec, loaded, kind, job_cap, warm)
    os.close(job_r)
    os.close(out_w)
    fds = [job_w, out_r]
    with contextlib.suppress(AttributeError, OSError):  # without (Linux < 5.3): through us
        fds.append(os.pidfd_open(pid))
    try:
        socket.send_fds(ctl, [b"W" + PID.pack(pid) + kind.encode()], fds)
    finally:
        for fd in fds:
            os.close(fd)
    return pid, None


def _reap(ctl: socket.socket, children: set[int]) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        with contextlib.suppress(OSError):
            ctl.send(b"X" + PID_STATUS.pack(pid, status))
