"""The playground's recorder: what a program's backward passes did, as graphs the page draws.

engine/ is a library with PyTorch's API and knows nothing of the page; this package watches it
through the backward loop's observer interface (``engine.core.PassObserver``) and the nodes and
tensors it leaves, and exports what it saw as plain dicts (server/schemas.py's contract):

- :mod:`recorder.passlog`: the observer that keeps the passes (the first ones and the latest),
  and each pass's walk (what each node received and sent);
- :mod:`recorder.graph`: a graph to its dict (nodes, edges, module scopes, labels, the walk);
  :mod:`recorder.graph_walk` one walk step with its caption, :mod:`recorder.caption` the
  captions' notation, :mod:`recorder.summaries` how values are summarised;
- :mod:`recorder.pass_export`: a recording's passes, each like the one before reusing its
  structure; :mod:`recorder.replay`: the latest pass of a long loop walked again as it was;
- :mod:`recorder.record`: :func:`record_passes`, all of it put together.

Layers, lowest first (tests/test_layers.py): caption, passlog -> summaries -> graph_walk ->
graph -> pass_export, replay -> record -> this package.
"""

from __future__ import annotations

from recorder.passlog import PassLog, PassWalk, WalkStep
from recorder.record import record_passes

__all__ = ["PassLog", "PassWalk", "WalkStep", "record_passes"]
