"""Running untrusted programs: real Python in one-shot, kernel-jailed worker processes.

- :mod:`~server.sandbox.pool`: the server's side (a supervised zygote, ready workers,
  deadlines, long programs reniced);
- :mod:`~server.sandbox.supervisor`: one zygote process as the server sees it (started,
  greeted, listened to, reaped);
- :mod:`~server.sandbox.zygote`: the clean process that loads what programs may import and
  forks workers;
- :mod:`~server.sandbox.hostpaths`: no host path in a program's reach (code objects' file
  names, path caches, the process's environment and command line);
- :mod:`~server.sandbox.jail`: rlimits, Landlock and the seccomp allow-list;
- :mod:`~server.sandbox.worker`: inside a worker: jail itself, read one job, run it with
  :mod:`server.program` (parse, name, run, record, report), stream the output, exit;
- :mod:`~server.sandbox.protocol`: the frames on the pipes;
- :mod:`~server.sandbox.answers`: a worker's answer bounded before it is parsed, and parsed
  off the event loop;
- :mod:`~server.sandbox.startup`: settings -> sandbox (no unjailed sandbox on a public address).

What the web sees of a run (a job, its answer, its stream) is ``server/runs``.

How the layers fit together: docs/architecture.md, "The jail".
"""

from server.program.budgets import Budgets
from server.sandbox.pool import PoolBusy, Sandbox, SandboxConfig

__all__ = ["Budgets", "PoolBusy", "Sandbox", "SandboxConfig"]
