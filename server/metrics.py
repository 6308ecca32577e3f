"""Prometheus metrics (``GET /metrics``): what an operator of a deployment watches.

One registry per app (tests build many apps in one process). Counts are per server process:
scrape each pod (or uvicorn worker) and sum; nothing here is shared between replicas.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from fastapi import FastAPI

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class _StateCollector(Collector):
    """Gauges read from the live objects at scrape time."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        admission = getattr(self.app.state, "admission", None)
        sandbox = getattr(self.app.state, "sandbox", None)
        if admission is not None:
            yield GaugeMetricFamily(
                "agp_queue_depth", "Requests waiting for a worker.", value=admission.queued
            )
            yield GaugeMetricFamily(
                "agp_running", "Programs and training chunks running now.", value=admission.running
            )
            yield GaugeMetricFamily(
                "agp_running_long",
                "Long programs (past their slice of CPU) running in their own slots.",
                value=admission.running_long,
            )
            yield CounterMetricFamily(
                "agp_demoted",
                "Programs moved to the long slots.",
                value=admission.counters.demoted,
            )
        if sandbox is not None:
            yield GaugeMetricFamily(
                "agp_sandbox_ready_workers",
                "Jailed workers forked and waiting for a program.",
                value=sandbox.ready_workers(),
            )
            yield GaugeMetricFamily(
                "agp_sandbox_zygote_up",
                "1 while the sandbox's zygote runs, 0 while it is being restarted.",
                value=1.0 if sandbox.ready() else 0.0,
            )
            yield CounterMetricFamily(
                "agp_sandbox_restarts", "Zygotes started after the first.", value=sandbox.restarts
            )
            yield GaugeMetricFamily(
                "agp_sandbox_jailed",
                "1 when programs run in the seccomp jail, 0 when unjailed.",
                value=1.0 if sandbox.mode == "seccomp" else 0.0,
            )


class Metrics:
    """The app's counters and histograms."""

    def __init__(self, app: FastAPI) -> None:
        self.registry = CollectorRegistry()
        self.runs = Counter(
            "agp_runs",
            "Programs run, by outcome (ok, error, stopped).",
            ["outcome"],
            registry=self.registry,
        )
        self.refusals = Counter(
            "agp_refusals",
            "Requests refused before any work, by reason (rate_limit, queue_full, wait, busy).",
            ["reason"],
            registry=self.registry,
        )
        self.run_seconds = Histogram(
            "agp_run_seconds",
            "Time from admission to answer for /api/v1/run.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.training = Counter("agp_training_steps", "Training steps run.", registry=self.registry)
        self.registry.register(_StateCollector(app))

    def render(self) -> bytes:
        return bytes(generate_latest(self.registry))


def metrics_of(app: Any) -> Metrics | None:
    """The app's Metrics, if it has them (middleware in tests may run without)."""
    return getattr(getattr(app, "state", None), "metrics", None)
