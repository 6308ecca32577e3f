"""The training service behind /api/v1/train and /api/v1/train/stream.

- ``schemas``: the public contract (pydantic);
- ``trainer``: one run's Trainer (build from a request and an optional carried state, advance,
  report) and the budgets; ``model``, ``codec``, ``datasets``, ``program``: its parts;
- ``stream``: the server-sent-events run for REST clients.

Nothing here keeps a run between connections: the client carries the state.
"""
