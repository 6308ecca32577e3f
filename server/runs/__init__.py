"""The run service: a program's or a notebook's run, from a validated request to its answer.

- :mod:`~server.runs.jobs`: the request and the budgets as the job a worker runs (typed);
- :mod:`~server.runs.responses`: a run's outcome as its validated, encoded answer;
- :mod:`~server.runs.stream`: a run as a stream of events (newline-delimited JSON);
- :mod:`~server.runs.live`: a run over a WebSocket, whose Stop keeps what was recorded;
- :mod:`~server.runs.service`: admission control, the sandbox and the metrics around a run,
  three ways (whole, streamed, live): what the routers (``server/routes``) call.

The jail that runs a job is ``server/sandbox``; what runs inside it is ``server/program``.
"""
