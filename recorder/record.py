"""``record_passes``: record a block's backward passes as the graphs the page draws."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

from engine.core import observing
from recorder.graph import freeze_leaves
from recorder.pass_export import PassExporter
from recorder.passlog import PassLog
from recorder.replay import export_as_it_was


@contextmanager
def record_passes(
    max_passes: int = 8, max_nodes: int | None = None, max_kept_nodes: int | None = None
) -> Iterator[PassLog]:
    """Record every backward pass inside the block as an exported graph with its walk (the
    first ``max_passes - 1`` passes and the latest are kept; ``log.count`` counts them all);
    with ``max_nodes``, each graph is drawn around its root within that many nodes; with
    ``max_kept_nodes``, passes after those holding that many nodes together are not kept,
    except the latest. The passes not kept as they happen run unwalked; the latest is walked
    when it is exported (recorder.replay)."""
    draw = PassExporter(max_nodes)  # a pass like the one before reuses its structure
    freeze = functools.partial(freeze_leaves, max_nodes=max_nodes)
    with observing(PassLog(max_passes, draw, freeze, max_kept_nodes, export_as_it_was)) as log:
        yield log  # type: ignore[misc]
