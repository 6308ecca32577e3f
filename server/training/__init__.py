"""The training service behind /api/v1/train, /api/v1/train/stream and /api/v1/train/live.

- ``schemas``: the public contract (pydantic), including the live protocol's messages;
- ``trainer``: one run's Trainer (build from a request and an optional carried state, advance,
  report) and the budgets; ``model``, ``codec``, ``datasets``, ``program``: its parts;
- ``stream``: the server-sent-events run for REST clients;
- ``live``: the page's run over one WebSocket.

Nothing here keeps a run between connections: the client carries the state.
"""
