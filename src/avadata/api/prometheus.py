"""GET /metrics: the Prometheus text format, through prometheus_client.

Stage: api. Two halves:

- `RequestMetrics`, a plain ASGI middleware: requests and latency per route template (the
  matched route's path, so `/v1/chains/{chainId}/blocks`, never one series per address), method
  and status. Its per-request cost is two dict look-ups, a counter increment and a histogram
  observation; label children are cached so `labels()` runs once per series.
- `StoreCollector`, read at scrape time from the store: each EVM chain's indexed head and its
  lag (now minus the head block's timestamp), each primary chain's head container, every
  L1 validation's balance and runway from the P-chain rollup's fee replay, and the rows each
  writer committed (store/metrics/rows_written.py: the indexer is another process, so its
  counters are in the store).
- `DeliveryCollector`: the webhook deliveries of the delivery worker `avadata serve` runs in
  this same process (`watch_deliveries`), counted in memory.

Each app has its own registry (tests build many apps in one process).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from avadata.api.deps import AppState, read_conn
from avadata.metrics import pchain_rollup
from avadata.metrics.l1_fees import FEE_PER_SECOND
from avadata.store.metrics import pchain_reads, prom_reads, rows_written

router = APIRouter()

# Latency buckets for an API whose answers take about a millisecond.
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class RequestMetrics:
    """Counts and times every HTTP request by route template, method and status."""

    def __init__(self, app: ASGIApp, registry: CollectorRegistry) -> None:
        self.app = app
        self.requests = Counter(
            "avadata_api_requests",
            "API requests served",
            ("route", "method", "status"),
            registry=registry,
        )
        self.latency = Histogram(
            "avadata_api_request_seconds",
            "API request latency until the response's last byte",
            ("route",),
            buckets=_BUCKETS,
            registry=registry,
        )
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = scope.get("route")
            # Unmatched paths share one label: a scan of random URLs must not grow the series.
            template = getattr(route, "path", None) or "unmatched"
            key = (template, scope["method"], status)
            pair = self._children.get(key)
            if pair is None:
                pair = (
                    self.requests.labels(template, scope["method"], str(status)),
                    self.latency.labels(template),
                )
                self._children[key] = pair
            pair[0].inc()
            pair[1].observe(time.perf_counter() - start)


class StoreCollector(Collector):
    """Gauges read from the store when Prometheus scrapes."""

    def __init__(self, state: AppState) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        now = int(time.time())
        head = GaugeMetricFamily(
            "avadata_index_head_block", "Newest indexed block of each EVM chain", labels=["chain"]
        )
        lag = GaugeMetricFamily(
            "avadata_index_lag_seconds",
            "Seconds from the newest indexed block's timestamp to now, per EVM chain",
            labels=["chain"],
        )
        primary = GaugeMetricFamily(
            "avadata_primary_index_head_container",
            "Last committed Index API container of each primary-network chain",
            labels=["blockchain_id"],
        )
        with read_conn(self.state) as conn:
            for chain_id, number, ts in prom_reads.evm_heads(conn):
                head.add_metric([str(chain_id)], number)
                if ts is not None:
                    lag.add_metric([str(chain_id)], max(0, now - ts))
            for blockchain_id, index in prom_reads.primary_heads(conn):
                primary.add_metric([blockchain_id], index)
            l1 = list(_l1_gauges(conn, now))
            rows = _rows_written(conn)
        yield from (head, lag, primary, *l1, rows)


def _l1_gauges(conn: Any, now: int) -> Iterator[GaugeMetricFamily]:
    """Balance and runway of every L1 validation at the P-chain's newest time, from the P-chain
    rollup's fee replay state (store/metrics/pchain_reads.py)."""
    labels = ["validation_id", "subnet_id", "node_id"]
    balance = GaugeMetricFamily(
        "avadata_l1_validator_balance_navax",
        "L1 validator balance left for the continuous fee, nAVAX, at the newest P-chain block",
        labels=labels,
    )
    runway = GaugeMetricFamily(
        "avadata_l1_validator_runway_seconds",
        "Seconds until the L1 validator's balance runs out at the current fee (0: not paying)",
        labels=labels,
    )
    clock = pchain_reads.clock(conn)
    if clock is not None:
        for vid, subnet, node, _, state in pchain_reads.l1_accounts(conn):
            left = pchain_rollup.tail(state, clock.now)[1]
            balance.add_metric([vid, subnet, node], left)
            ends = clock.now + left // FEE_PER_SECOND
            runway.add_metric([vid, subnet, node], max(0, ends - max(now, clock.now)))
    yield balance
    yield runway


def _rows_written(conn: Any) -> CounterMetricFamily:
    rows = CounterMetricFamily(
        "avadata_rows_written",
        "Rows the indexer handed to the store, per source (EVM chain ID or primary chain) and"
        " table; a replayed batch counts again",
        labels=["source", "table"],
    )
    for source, table, n in rows_written.read(conn):
        rows.add_metric([source, table], n)
    return rows


class DeliveryCollector(Collector):
    """Webhook deliveries of this process's delivery worker (`avadata serve` hosts it, so the
    counts are in the process that answers /metrics), by outcome."""

    def __init__(self, counts: Callable[[], Mapping[str, int]]) -> None:
        self.counts = counts

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "avadata_webhook_deliveries",
            "Webhook message POSTs by outcome: acknowledged (2xx), failed (another status or"
            " no answer; retried), refused (a target the settings forbid; retried)",
            labels=["outcome"],
        )
        for outcome, n in sorted(self.counts().items()):
            family.add_metric([outcome], n)
        yield family


def watch_deliveries(app: Any, counts: Callable[[], Mapping[str, int]]) -> None:
    """Expose a delivery worker's counts (`DeliveryWorker.counts`) on `app`'s /metrics."""
    registry_of_app(app).register(DeliveryCollector(counts))


def registry_of(request: Request) -> CollectorRegistry:
    return registry_of_app(request.app)


def registry_of_app(app: Any) -> CollectorRegistry:
    registry: CollectorRegistry = app.state.avadata_prometheus
    return registry


@router.get("/metrics", include_in_schema=False)
def prometheus_metrics(request: Request) -> Response:
    return Response(generate_latest(registry_of(request)), media_type=CONTENT_TYPE_LATEST)


def install(app: Any, state: AppState) -> None:
    """Give `app` its registry, the request middleware and the /metrics route."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoreCollector(state))
    app.state.avadata_prometheus = registry
    app.add_middleware(RequestMetrics, registry=registry)
    app.include_router(router)
