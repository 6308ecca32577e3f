"""One zygote process as the server sees it: started with a scrubbed environment, greeted,
listened to on its control socket, and reaped; its end reported once.

:class:`Zygote` knows one process; :class:`server.sandbox.pool.Sandbox` supervises them: it
starts a new one as soon as the old one's control socket closes (one at a time, from one
thread), without waiting for a request.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.sandbox.protocol import CONTROL_FD_ENV, PID, PID_STATUS
from server.sandbox.zygote import ENTRY

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


class ZygoteFailed(RuntimeError):
    """The zygote did not start (or did not say hello)."""


@dataclass(frozen=True)
class Delivered:
    """A worker the zygote forked: its pid, kind, the server's ends of its two pipes and, where
    the kernel has them, a pidfd (killing through it can never hit a reused pid)."""

    pid: int
    kind: str
    job_fd: int
    out_fd: int
    pidfd: int


class Zygote:
    """A started zygote process. ``on_worker`` and ``on_exit`` are called from its listener
    thread as workers arrive and end; ``on_end`` once, when its control socket closes (it
    died, or was stopped)."""

    def __init__(
        self,
        settings: dict[str, Any],
        extra_sys_path: list[str],
        on_worker: Callable[[Zygote, Delivered], None],
        on_exit: Callable[[int, int], None],
        on_end: Callable[[Zygote], None],
        hello_timeout_s: float = 120.0,
    ) -> None:
        self.on_worker = on_worker
        self.on_exit = on_exit
        self.on_end = on_end
        self._send_lock = threading.Lock()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = scrubbed_environment(dict(os.environ))
        env[CONTROL_FD_ENV] = str(theirs.fileno())
        paths = [str(ROOT), *extra_sys_path]
        env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH", "")])])
        self.proc = subprocess.Popen(
            [sys.executable, "-c", ENTRY],
            env=env,
            cwd=str(ROOT),
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            close_fds=True,
        )
        theirs.close()
        self.ctl = ours
        try:
            ours.send(json.dumps({**settings, "extra_sys_path": extra_sys_path}).encode())
            ours.settimeout(hello_timeout_s)
            hello = ours.recv(4096)
            ours.settimeout(None)
        except OSError as exc:
            self.stop()
            raise ZygoteFailed(f"the sandbox's zygote did not start ({exc})") from None
        if hello[:1] != b"H":
            self.stop()
            raise ZygoteFailed("the sandbox's zygote did not start")
        info = json.loads(hello[1:])
        self.pid = self.proc.pid
        self.jailed = bool(info.get("seccomp"))
        self.reason = str(info.get("reason", ""))
        self.landlock = int(info.get("landlock", 0))
        self.ended = False
        self._listener = threading.Thread(target=self._listen, name="sandbox-zygote", daemon=True)
        self._listener.start()

    def ask(self, kind: str) -> bool:
        """Ask for one more worker of ``kind``; False when the zygote is gone."""
        return self._send(b"s" + kind.encode())

    def kill(self, pid: int) -> None:
        """SIGKILL one of this zygote's workers (for workers delivered without a pidfd)."""
        self._send(b"k" + PID.pack(pid))

    def _send(self, message: bytes) -> bool:
        with self._send_lock:
            try:
                self.ctl.send(message)
            except OSError:
                return False
        return True

    def alive(self) -> bool:
        return not self.ended and self.proc.poll() is None

    def _listen(self) -> None:
        """Receive workers and exit statuses until the control socket closes."""
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(self.ctl, 64, 3)
            except OSError:
                data, fds = b"", []
            if not data:
                for fd in fds:
                    os.close(fd)
                break
            if data[:1] == b"W" and len(fds) in (2, 3):
                (pid,) = PID.unpack_from(data, 1)
                kind = "cuda" if data[1 + PID.size :] == b"cuda" else "cpu"
                pidfd = fds[2] if len(fds) == 3 else -1
                self.on_worker(self, Delivered(pid, kind, fds[0], fds[1], pidfd))
            elif data[:1] == b"X" and len(data) == 1 + PID_STATUS.size:
                for fd in fds:
                    os.close(fd)
                self.on_exit(*PID_STATUS.unpack_from(data, 1))
            else:
                for fd in fds:
                    os.close(fd)
        self.ended = True
        self._reap()
        self.on_end(self)

    def _reap(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=5)
        with contextlib.suppress(OSError):
            self.ctl.close()

    def stop(self) -> None:
        """Kill it and reap it (its listener, if any, then reports its end)."""
        with contextlib.suppress(OSError):
            self.ctl.shutdown(socket.SHUT_RDWR)
        self._reap()
