"""The kernel jail a worker installs on itself before it reads a program.

Three layers, in this order (docs/architecture.md, "The jail"):

1. **rlimits**: address space, CPU seconds, no file writes, a handful of descriptors, no core.
2. **Landlock** (a second layer where the kernel has it): no filesystem access at all, no TCP
   bind/connect, no signals or abstract sockets outside the worker's own domain.
3. **seccomp-bpf**: an allow-list of system calls (memory, the pipes the worker already holds,
   time, signals to itself, exit). Everything else fails with ``EPERM``, which Python shows as
   ``PermissionError`` (``open``, ``socket``) or ``RuntimeError`` (threads).

Nothing here is a language restriction: user code may do anything CPython allows; the kernel
refuses what a program must not do. Filters are inherited by nothing (the worker cannot fork)
and cannot be removed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import resource
from collections.abc import Iterable
from dataclasses import dataclass

#: What a CPython + NumPy program needs once everything is imported (checked by the tests:
#: the lessons, NumPy's linear algebra and random streams run under this list).
BASE_SYSCALLS: tuple[str, ...] = (
    # the pipes the worker already holds (no open, no dup: no new descriptors)
    "read", "write", "readv", "writev", "close",
    # memory
    "brk", "mmap", "munmap", "mremap", "madvise", "mprotect",
    # threads that already exist, locks, time, randomness
    "futex", "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday",
    "time", "getrandom", "sched_yield", "getpid", "gettid", "getrusage", "times",
    # signals: the soft wall clock (SIGALRM) and CPU limit (SIGXCPU) handlers
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall",
    "setitimer", "getitimer",
    # the end
    "exit", "exit_group",
)  # fmt: skip
#: Never allowed (tested): leaving the zygote's process group would escape the lifeline that
#: SIGKILLs the group when the server dies (:mod:`server.sandbox.zygote`).
NEVER_ALLOWED: tuple[str, ...] = ("setpgid", "setsid", "fork", "vfork", "clone", "clone3")

#: Added for a CUDA worker, whose driver talks to the device through ioctls on files it may
#: open after the jail (Landlock then limits which: the device nodes only).
CUDA_SYSCALLS: tuple[str, ...] = (
    "ioctl", "openat", "fstat", "newfstatat", "lseek", "pread64", "poll", "ppoll",
    "sched_getaffinity", "fcntl", "readlink", "getdents64", "sysinfo",
)  # fmt: skip


@dataclass(frozen=True)
class JailSpec:
    """What one worker is confined to."""

    memory_bytes: int = 0  # RLIMIT_AS; 0 = unlimited
    cpu_seconds: int = 0  # RLIMIT_CPU soft limit (SIGXCPU); the hard limit is one more
    max_open_files: int = 16
    seccomp: bool = True
    landlock: bool = True
    extra_syscalls: tuple[str, ...] = ()
    #: files Landlock still lets the worker open for reading and writing (CUDA device nodes)
    landlock_allow: tuple[str, ...] = ()


class JailError(RuntimeError):
    """The jail could not be installed; the worker must not run a program."""


def set_rlimits(spec: JailSpec) -> None:
    """Lower the worker's limits (lowering is always allowed; nothing can raise them again past
    the hard limits set here)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    limit = (
        spec.max_open_files
        if nofile == resource.RLIM_INFINITY
        else min(spec.max_open_files, nofile)
    )
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    if spec.memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (spec.memory_bytes, spec.memory_bytes))
    if spec.cpu_seconds > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (spec.cpu_seconds, spec.cpu_seconds + 1))


# ---- seccomp ----------------------------------------------------------------------------------


def install_seccomp(allowed: Iterable[str]) -> None:
    """Allow exactly these system calls; every other one fails with EPERM."""
    try:
        import pyseccomp
    except Exception as exc:  # libseccomp missing: no jail
        raise JailError(f"seccomp is unavailable: {exc}") from None
    flt = pyseccomp.SyscallFilter(pyseccomp.ERRNO(errno.EPERM))
    for name in allowed:
        with contextlib.suppress(Exception):  # a call this kernel/arch does not have
            flt.add_rule(pyseccomp.ALLOW, name)
    try:
        flt.load()  # sets no_new_privs first (libseccomp's default)
    except OSError as exc:
        raise JailError(f"the kernel refused the seccomp filter: {exc}") from None


# ---- Landlock (ctypes over the raw system calls; Linux >= 5.13) ----------------------------------

_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_O_PATH = 0o10000000
_O_CLOEXEC = 0o2000000
#: filesystem access rights per ABI version (each version adds rights)
_FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_FS_FILE_RW = (1 << 0) | (1 << 1) | (1 << 2)  # execute, write_file, read_file
_NET_BIND_CONNECT_TCP = 0b11
_SCOPE_ABSTRACT_UNIX_AND_SIGNAL = 0b11


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 where it has none."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except Exception:
        return 0
    return max(0, int(version))


def install_landlock(allow_files: Iterable[str] = ()) -> int:
    """Deny all filesystem access (except ``allow_files``), TCP bind/connect and signals to
    processes outside this one, as far as the kernel's ABI goes. Returns the ABI used (0: none).
    """
    abi = landlock_abi()
    if abi <= 0:
        return 0
    libc = ctypes.CDLL(None, use_errno=True)
    fs = _FS_RIGHTS_BY_ABI[max(k for k in _FS_RIGHTS_BY_ABI if k <= abi)]
    attr = _RulesetAttr(fs, _NET_BIND_CONNECT_TCP if abi >= 4 else 0, 0)
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_AND_SIGNAL
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    ruleset = libc.syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        return 0
    try:
        for path in allow_files:
            fd = os.open(path, _O_PATH | _O_CLOEXEC) if os.path.exists(path) else -1
            if fd < 0:
                continue
            try:
                rule = _PathBeneathAttr(_FS_FILE_RW & fs, fd)
                libc.syscall(
                    _SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0
                )
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0
        if libc.syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
            return 0
    finally:
        os.close(ruleset)
    return abi


def install(spec: JailSpec) -> dict[str, object]:
    """rlimits, then Landlock, then seccomp (last: it forbids the calls the others need).

    Returns what was installed, for the worker's report.
    """
    set_rlimits(spec)
    landlock = install_landlock(spec.landlock_allow) if spec.landlock else 0
    if spec.seccomp:
        install_seccomp((*BASE_SYSCALLS, *spec.extra_syscalls))
    return {"seccomp": spec.seccomp, "landlock": landlock}


def preload() -> None:
    """Load what installing the jail needs (libseccomp via ctypes) while files can be read."""
    with contextlib.suppress(Exception):
        import pyseccomp  # noqa: F401


def probe() -> tuple[bool, str]:
    """Can this kernel jail a worker? Forks a child that installs the filter and reports.

    Returns (available, reason). Called once by the zygote at start-up.
    """
    try:
        import pyseccomp  # noqa: F401
    except Exception as exc:
        return False, f"libseccomp/pyseccomp unavailable ({type(exc).__name__}: {exc})"
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        code = 1
        try:
            install_seccomp(BASE_SYSCALLS)
            try:
                os.open("/", os.O_RDONLY)
                code = 2  # the filter did not hold
            except PermissionError:
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return True, "seccomp-bpf"
    return False, "the kernel refused a seccomp filter" if code == 1 else "seccomp did not hold"
