"""Your own autograd, drawn: a program's micrograd-style objects watched as they run.

- :mod:`~server.program.values.record`: one observed pass (:class:`ValuePass`);
- :mod:`~server.program.values.names`: the user's names for the objects;
- :mod:`~server.program.values.observers`: the per-node functions swapped in for a pass;
- :mod:`~server.program.values.observer`: detection, passes, snapshots;
- :mod:`~server.program.values.graph`: a pass as the API's ``Graph``;
- :mod:`~server.program.values.compare`: a pass checked against PyTorch's rules.
"""
