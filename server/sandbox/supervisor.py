"""One zygote process as the server sees it: started with a scrubbed environment (or a
standby activated), greeted, listened to on its control socket, and reaped; its end reported
once.

:class:`Zygote` knows one process; :class:`server.sandbox.pool.Sandbox` supervises them: as
soon as the current one's control socket closes it activates the standby that zygote forked
(or, failing that, starts a new one), from one thread, one at a time, without waiting for a
request.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
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
    """A zygote process that has said hello. ``on_worker`` and ``on_exit`` are called from its
    listener thread as workers arrive and end; ``on_end`` once, when its control socket closes
    (it died, or was stopped).

    Made by :meth:`start` (a new process, which loads everything: seconds) or :meth:`activate`
    (a standby that an earlier zygote forked, already loaded: milliseconds)."""

    def __init__(
        self,
        ctl: socket.socket,
        hello: bytes,
        proc: subprocess.Popen[bytes] | None,
        on_worker: Callable[[Zygote, Delivered], None],
        on_exit: Callable[[int, int], None],
        on_end: Callable[[Zygote], None],
    ) -> None:
        self.ctl = ctl
        self.proc = proc
        self.on_worker = on_worker
        self.on_exit = on_exit
        self.on_end = on_end
        self._send_lock = threading.Lock()
        info = json.loads(hello[1:])
        self.pid = int(info["pid"])
        self.jailed = bool(info.get("seccomp"))
        self.reason = str(info.get("reason", ""))
        self.landlock = int(info.get("landlock", 0))
        self.pidfd = -1  # a standby is not our child: we signal it through a pidfd
        if proc is None:
            with contextlib.suppress(AttributeError, OSError):
                self.pidfd = os.pidfd_open(self.pid)
        self.ended = False
        self._listener = threading.Thread(target=self._listen, name="sandbox-zygote", daemon=True)
        self._listener.start()

    @classmethod
    def start(
        cls,
        settings: dict[str, Any],
        extra_sys_path: list[str],
        on_worker: Callable[[Zygote, Delivered], None],
        on_exit: Callable[[int, int], None],
        on_end: Callable[[Zygote], None],
        hello_timeout_s: float = 120.0,
    ) -> Zygote:
        """Start a new zygote process and wait for its hello."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = scrubbed_environment(dict(os.environ))
        env[CONTROL_FD_ENV] = str(theirs.fileno())
        paths = [str(ROOT), *extra_sys_path]
        env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH", "")])])
        proc = subprocess.Popen(
            [sys.executable, "-c", ENTRY],
            env=env,
            cwd=str(ROOT),
            pass_fds=(theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            close_fds=True,
        )
        theirs.close()
        try:
            ours.send(json.dumps({**settings, "extra_sys_path": extra_sys_path}).encode())
            hello = _hello(ours, hello_timeout_s)
        except (OSError, ZygoteFailed) as exc:
            ours.close()
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)
            raise ZygoteFailed(f"the sandbox's zygote did not start ({exc})") from None
        return cls(ours, hello, proc, on_worker, on_exit, on_end)

    @classmethod
    def activate(
        cls,
        standby: socket.socket,
        on_worker: Callable[[Zygote, Delivered], None],
        on_exit: Callable[[int, int], None],
        on_end: Callable[[Zygote], None],
        hello_timeout_s: float = 10.0,
    ) -> Zygote:
        """Tell a standby to be the zygote now (see :meth:`spawn_standby`)."""
        try:
            standby.send(b"a")
            hello = _hello(standby, hello_timeout_s)
        except (OSError, ZygoteFailed) as exc:
            standby.close()
            raise ZygoteFailed(f"the standby zygote did not take over ({exc})") from None
        return cls(standby, hello, None, on_worker, on_exit, on_end)

    def spawn_standby(self) -> socket.socket | None:
        """Have this zygote fork a standby; returns our end of its control socket."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            with self._send_lock:
                socket.send_fds(self.ctl, [b"b"], [theirs.fileno()])
        except OSError:
            ours.close()
            return None
        finally:
            theirs.close()
        return ours

    def ask(self, kind: str) -> bool:
        """Ask for one more worker of ``kind``; False when the zygote is gone."""
        return self._send(b"s" + kind.encode())

    def kill(self, pid: int) -> None:
        """SIGKILL one of this zygote's workers (for workers delivered without a pidfd)."""
        self._send(b"k" + PID.pack(pid))

    def dump_stack(self, pid: int) -> None:
        """Have one of this zygote's workers write its Python stack (for workers delivered
        without a pidfd)."""
        self._send(b"d" + PID.pack(pid))

    def _send(self, message: bytes) -> bool:
        with self._send_lock:
            try:
                self.ctl.send(message)
            except OSError:
                return False
        return True

    def alive(self) -> bool:
        return not self.ended and (self.proc is None or self.proc.poll() is None)

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
        """Make sure it is gone: kill it, then close its pidfd and control socket."""
        self._kill()
        if self.proc is None:
            with self._send_lock, contextlib.suppress(OSError):
                if self.pidfd >= 0:
                    os.close(self.pidfd)
            self.pidfd = -1
        with contextlib.suppress(OSError):
            self.ctl.close()

    def _kill(self) -> None:
        """Kill it, and wait for it if it is our child (an activated standby is not: its first
        parent was a zygote, and init reaps it)."""
        if self.proc is not None:
            with contextlib.suppress(OSError):
                self.proc.kill()
            with contextlib.suppress(Exception):
                self.proc.wait(timeout=5)
        else:
            with self._send_lock:
                self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        if self.pidfd >= 0:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.pidfd, sig)

    def stop(self) -> None:
        """Close its control socket (it exits) and kill it; its listener reports its end."""
        with contextlib.suppress(OSError):
            self.ctl.shutdown(socket.SHUT_RDWR)
        self._kill()


def _hello(ctl: socket.socket, timeout_s: float) -> bytes:
    """Wait for a zygote's hello (``b"H"`` + JSON)."""
    ctl.settimeout(timeout_s)
    try:
        hello = ctl.recv(4096)
    finally:
        ctl.settimeout(None)
    if hello[:1] != b"H":
        raise ZygoteFailed("no hello")
    return hello
