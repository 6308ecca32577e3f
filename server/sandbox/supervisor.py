"""One zygote process as the server sees it: started with a scrubbed environment (or a
standby activated), greeted, listened to on its control socket, and reaped; its end reported
once.

:class:`Zygote` knows one process; :class:`server.sandbox.pool.Sandbox` supervises them: as
soon as the current one's control socket closes it activates the standby that zygote forked
(or, failing that, starts a new one), from one thread, one at a time, without waiting for a
request.

Each started zygote leads a process group of its own and gets a *lifeline*, a pipe whose only
write end the server holds (:attr:`Zygote.lifeline`): when it closes, the kernel SIGKILLs
that group (the zygote, its standby, its workers; see :mod:`server.sandbox.zygote`). A
zygote also answers a heartbeat (:meth:`Zygote.ping`), so that a stopped or stuck one is
noticed and replaced.
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
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.sandbox.protocol import CONTROL_FD_ENV, PID, PID_STATUS
from server.sandbox.zygote import ENTRY, LIFELINE_FD_ENV

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
        #: our end of its family's lifeline (started zygotes; -1 for an activated standby,
        #: whose family's lifeline is its first zygote's). Whoever supervises owns it: closing
        #: it SIGKILLs the whole process group.
        self.lifeline = -1
        self.pgid = self.pid
        with contextlib.suppress(OSError):
            self.pgid = os.getpgid(self.pid)
        self.killed = False  # we SIGKILLed it (a heartbeat it did not answer)
        self._ping_since: float | None = None  # when the unanswered ping was sent
        self.answered = time.monotonic()  # when it last answered (or said hello)
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
        """Start a new zygote process, in a process group of its own with a lifeline whose
        write end only we hold (:attr:`lifeline`: the caller owns it once this returns), and
        wait for its hello."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # os.pipe's ends are close-on-exec: no other child of the server inherits the write end
        life_r, life_w = os.pipe()
        env = scrubbed_environment(dict(os.environ))
        env[CONTROL_FD_ENV] = str(theirs.fileno())
        env[LIFELINE_FD_ENV] = str(life_r)
        paths = [str(ROOT), *extra_sys_path]
        env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH", "")])])
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", ENTRY],
                env=env,
                cwd=str(ROOT),
                pass_fds=(theirs.fileno(), life_r),
                stdin=subprocess.DEVNULL,
                close_fds=True,
                process_group=0,  # its own group: the one its lifeline kills
            )
        except BaseException:
            for fd in (life_r, life_w):
                os.close(fd)
            ours.close()
            theirs.close()
            raise
        theirs.close()
        os.close(life_r)
        try:
            ours.send(json.dumps({**settings, "extra_sys_path": extra_sys_path}).encode())
            hello = _hello(ours, hello_timeout_s)
        except (OSError, ZygoteFailed) as exc:
            ours.close()
            os.close(life_w)  # the kernel kills its group
            with contextlib.suppress(OSError):
                proc.kill()
            with contextlib.suppress(Exception):
                proc.wait(timeout=5)
            raise ZygoteFailed(f"the sandbox's zygote did not start ({exc})") from None
        zygote = cls(ours, hello, proc, on_worker, on_exit, on_end)
        zygote.lifeline = life_w
        zygote.pgid = proc.pid
        return zygote

    @classmethod
    def activate(
        cls,
        standby: socket.socket,
        on_worker: Callable[[Zygote, Delivered], None],
        on_exit: Callable[[int, int], None],
        on_end: Callable[[Zygote], None],
        hello_timeout_s: float = 3.0,
    ) -> Zygote:
        """Tell a standby to be the zygote now (see :meth:`spawn_standby`). It answers in
        milliseconds: one that does not within ``hello_timeout_s`` (stopped, stuck) is given
        up, and a new zygote is started instead."""
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
                socket.send_fds(self.ctl, [b"b"], [theirs.fileno()], socket.MSG_DONTWAIT)
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

    def ping(self) -> None:
        """Send a heartbeat unless one is still unanswered (it answers from its loop)."""
        with self._send_lock:
            if self._ping_since is not None or self.ended:
                return
            # before sending: its answer (on the listener's thread) may come before send returns
            self._ping_since = time.monotonic()
            try:  # never blocks: a stopped zygote must not stop the one who checks it
                self.ctl.send(b"p", socket.MSG_DONTWAIT)
            except BlockingIOError:
                pass  # its socket is full: it reads nothing, so this ping is as unanswered
            except OSError:
                self._ping_since = None  # gone: its listener reports its end

    def unanswered_s(self, now: float | None = None) -> float:
        """How long its last heartbeat has waited for an answer (0.0: none is waiting)."""
        since = self._ping_since
        return 0.0 if since is None else max(0.0, (now or time.monotonic()) - since)

    def kill_now(self) -> None:
        """SIGKILL it (a stopped process too) without waiting: its control socket then closes,
        its listener reaps it and reports its end, and the supervisor replaces it."""
        self.killed = True
        if self.proc is not None:
            with contextlib.suppress(OSError):
                self.proc.send_signal(signal.SIGKILL)
        else:
            with self._send_lock:
                self._signal(signal.SIGKILL)

    def _send(self, message: bytes) -> bool:
        """False when it is gone, or when it has stopped reading (its socket's buffer is full:
        it is stuck, and the heartbeat replaces it): a send never blocks, so that nobody waits
        on a zygote while holding a lock (the pool's, or the heartbeat's)."""
        with self._send_lock:
            try:
                self.ctl.send(message, socket.MSG_DONTWAIT)
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
            elif data == b"P":  # it answered the heartbeat
                self.answered = time.monotonic()
                self._ping_since = None
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
