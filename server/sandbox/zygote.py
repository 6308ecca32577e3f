"""The zygote: a clean process that loads everything importable, then forks workers on demand.

Started by the server (:mod:`server.sandbox.pool`) as ``python -m server.sandbox.zygote`` with
a scrubbed environment (nothing of the server's environment but an allow-list) and one
descriptor: a SOCK_SEQPACKET control socket. It reads its configuration (JSON) from that
socket, imports the engine (as ``torch``), NumPy and the standard modules a program may use,
probes whether the kernel can jail a worker, says hello, and then serves two messages:

- server -> zygote ``b"s" + kind`` (``cpu`` / ``cuda``): fork a worker; the zygote answers
  ``b"W" + pid + kind`` with the two server-side pipe ends attached (SCM_RIGHTS);
- server -> zygote ``b"k" + pid``: SIGKILL that worker if it is still a live child (only the
  parent knows a pid has not been reaped and reused, so only the parent kills);
- server -> zygote ``b"d" + pid``: SIGUSR1 that worker, whose faulthandler then writes its
  Python stack to the server (asked before a hard kill, to say which line it was stuck on);
- server -> zygote ``b"n" + pid + niceness``: lower that worker's CPU priority (a program that
  has run long yields the cores to short ones);
- zygote -> server ``b"X" + pid + status`` when a worker has exited (the zygote reaps them).

It never runs user code itself and holds no secret: the server's memory is not shared with
it (it is a new process, not a fork of the server).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import socket
import sys
from typing import Any

from server.sandbox.protocol import CONTROL_FD_ENV, PID, PID_STATUS


def _load(config: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    from server.program import imports as mods
    from server.program.source import is_program_file

    for path in config.get("extra_sys_path", []):
        sys.path.insert(0, path)
    loaded = mods.preload(("engine.graph", "engine.limits"))
    if config.get("cuda_workers"):
        with contextlib.suppress(Exception):
            import cupy  # noqa: F401 - imported only: CUDA itself starts after the fork

    import server.program.runner
    import server.sandbox.worker  # noqa: F401
    from server.sandbox import jail

    jail.preload()

    mods.present_as_torch(loaded)
    mods.warn_on_non_leaf_grad(loaded["torch"].Tensor, is_program_file)
    if config.get("warm_up", True):
        _warm_up(loaded)
    mods.scrub_paths()
    return loaded, mods


def _warm_up(loaded: dict[str, Any]) -> None:
    """Run the gallery once, here, before any fork: every worker then starts with the caches
    a program fills on its first run (the engine's dispatch tables, NumPy's, the compiler's)
    already filled, and their pages already touched. Our own code, not a learner's."""
    from server.examples import EXAMPLES
    from server.program.runner import StringSink, run_program

    engine = loaded["torch"]
    main = sys.modules["__main__"]
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
    sys.modules["__main__"] = main


def main() -> None:
    ctl = socket.socket(fileno=int(os.environ.pop(CONTROL_FD_ENV)))
    config = json.loads(ctl.recv(1 << 20))
    loaded, _ = _load(config)
    from server.sandbox import jail

    available, how = jail.probe()
    mode = config.get("mode", "auto")
    jailed = available and mode != "none"
    landlock = jail.landlock_abi() if jailed else 0
    hello = {"pid": os.getpid(), "seccomp": jailed, "reason": how, "landlock": landlock}
    ctl.send(b"H" + json.dumps(hello).encode())

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

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    children: set[int] = set()
    while True:
        ready, _, _ = select.select([ctl.fileno(), wake_r], [], [])
        if wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 4096)
            _reap(ctl, children)
        if ctl.fileno() in ready:
            try:
                message = ctl.recv(64)
            except OSError:
                message = b""
            if not message:  # the server is gone: so are we (workers die with their pipes)
                return
            if message[:1] == b"s":
                kind = message[1:].decode() if message[1:] in (b"cpu", b"cuda") else "cpu"
                children.add(_spawn(ctl, specs[kind], loaded, kind, job_cap, warm_workers))
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
            elif message[:1] == b"n" and len(message) == 1 + PID_STATUS.size:
                pid, niceness = PID_STATUS.unpack_from(message, 1)
                if pid in children and 0 <= niceness <= 19:
                    with contextlib.suppress(OSError):
                        os.setpriority(os.PRIO_PROCESS, pid, niceness)
        _reap(ctl, children)


def _nvidia_nodes() -> list[str]:
    with contextlib.suppress(OSError):
        return [n for n in os.listdir("/dev") if n.startswith("nvidia")]
    return []


def _spawn(
    ctl: socket.socket, spec: Any, loaded: dict[str, Any], kind: str, job_cap: int, warm: bool
) -> int:
    from server.sandbox import worker

    job_r, job_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        worker.serve(job_r, out_w, spec, loaded, kind, job_cap, warm)  # never returns
    os.close(job_r)
    os.close(out_w)
    try:
        socket.send_fds(ctl, [b"W" + PID.pack(pid) + kind.encode()], [job_w, out_r])
    finally:
        os.close(job_w)
        os.close(out_r)
    return pid


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


if __name__ == "__main__":
    main()
