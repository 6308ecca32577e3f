"""One program, run as real Python and described as a ``RunResponse``-shaped dict.

Everything here runs *inside* a jailed worker (:mod:`server.sandbox` forks, jails and talks to
it); nothing here knows of processes, pipes or the web:

- :mod:`~server.program.source`: parse (friendly errors, size budgets), the naming pass;
- :mod:`~server.program.imports`: what a program imports, preloaded before the jail;
- :mod:`~server.program.known`: the names a program knows without importing them (``tanh``,
  ``torch``, ``nn``, ``F`` ...);
- :mod:`~server.program.runner`: run it, record its backward passes, report;
- :mod:`~server.program.budgets`: the limits one program runs under;
- :mod:`~server.program.values`: the program's own autograd objects (micrograd's ``Value``),
  watched and drawn.
"""
