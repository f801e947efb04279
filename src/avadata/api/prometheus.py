"""GET /metrics: the Prometheus text format, through prometheus_client.

Stage: api. Two halves:

- `RequestMetrics`, a plain ASGI middleware: requests and latency per route template (the
  matched route's path, so `/v1/chains/{chainId}/blocks`, never one series per address), method
  and status. Its per-request cost is two dict look-ups, a counter increment and a histogram
  observation; label children are cached so `labels()` runs once per series.
- `StoreCollector`, read at scrape time from the store: each EVM chain's indexed head and its
  lag (now minus the head block's timestamp), each primary chain's head container, and every
  L1 validation's balance and runway from the fee replay (metrics/l1_fees.py).

Each app has its own registry (tests build many apps in one process).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
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
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from avadata.api.deps import AppState, read_conn
from avadata.api.metrics.l1 import l1_book
from avadata.metrics import l1_fees
from avadata.store.metrics import prom_reads, staking_reads

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

    def collect(self) -> Iterator[GaugeMetricFamily]:
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
        yield from (head, lag, primary, *l1)


def _l1_gauges(conn: Any, now: int) -> Iterator[GaugeMetricFamily]:
    """Balance and runway of every L1 validation, replayed to the P-chain's newest time."""
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
    p_now = staking_reads.newest(conn)
    if p_now is not None:
        book = l1_book(conn, p_now)
        for vid, subnet, node in book.validations:
            r = book.replays.get(vid, l1_fees.Replay([], 0, None))
            balance.add_metric([vid, subnet, node], r.balance)
            left = 0 if r.deactivates_at is None else max(0, r.deactivates_at - max(now, p_now))
            runway.add_metric([vid, subnet, node], left)
    yield balance
    yield runway


def registry_of(request: Request) -> CollectorRegistry:
    registry: CollectorRegistry = request.app.state.avadata_prometheus
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
