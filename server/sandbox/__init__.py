"""Running untrusted programs: real Python in one-shot, kernel-jailed worker processes.

- :mod:`~server.sandbox.pool`: the server's side (zygote process, ready workers, deadlines);
- :mod:`~server.sandbox.zygote`: the clean process that loads what programs may import and
  forks workers;
- :mod:`~server.sandbox.jail`: rlimits, Landlock and the seccomp allow-list;
- :mod:`~server.sandbox.worker`, :mod:`~server.sandbox.runner`, :mod:`~server.sandbox.source`:
  inside a worker (parse, name, run, record, report);
- :mod:`~server.sandbox.service`: settings -> sandbox, request -> validated response.
"""

from server.sandbox.budgets import Budgets
from server.sandbox.pool import PoolBusy, Sandbox, SandboxConfig

__all__ = ["Budgets", "PoolBusy", "Sandbox", "SandboxConfig"]
