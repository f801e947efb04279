"""Measured, not assumed: the overview is ready (first chart on screen) within 1 s, and every
API call the page makes answers with a p99 under 50 ms. The figures are written to the
test's temporary folder (speed.json) and printed.

Timings on a shared machine follow its load, and a p99 most of all, so the suite holds the
page to loose bounds on its ready time and each call's median (a regression by an order of
magnitude fails); AVADATA_STRICT_SPEED=1 holds it to the targets themselves (run so on an
idle machine, as the benchmarks are)."""

from __future__ import annotations

import json
import os
import statistics
import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.dashboard.conftest import Site
from tests.dashboard.test_browser import settled

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LOADS = 10
STRICT = os.environ.get("AVADATA_STRICT_SPEED") == "1"
# A p99 needs hundreds of samples; the suite's loose bound is on each call's median, which
# forty samples hold steady.
REPEATS = 200 if STRICT else 40
READY_MS = 1000 if STRICT else 5000


def _views(site: Site) -> list[str]:
    today = datetime.now(UTC).date()
    start = (today - timedelta(days=60)).isoformat()
    node = next(
        t["nodeId"]
        for t in site.get("/v1/networks/fuji/blockchains/p-chain/transactions", pageSize=100)[
            "transactions"
        ]
        if t.get("nodeId")
    )
    tx = site.get("/v1/chains/43113/transactions", pageSize=1)["transactions"][0]
    return [
        "/#/metrics",
        f"/#/metrics?metric=activeAddresses&chain=total&interval=hour&from={start}",
        "/#/primary",
        f"/#/search?q={tx['txHash']}",
        f"/#/address/{tx['from']['address']}",
        "/#/block/42",
        f"/#/node/{node}",
    ]


def test_page_ready_and_api_calls_are_fast(site: Site, page, tmp_path) -> None:
    tab, _ = page
    ready: list[float] = []
    for _ in range(LOADS):
        tab.goto(site.url + "/", wait_until="commit")
        tab.wait_for_function("() => performance.getEntriesByName('avadata:first-chart').length")
        ready.append(
            tab.evaluate("performance.getEntriesByName('avadata:first-chart')[0].startTime")
        )
    settled(tab)
    urls = set(tab.evaluate("window.__avadata.calls.map(c => c.url)"))
    for view in _views(site):
        tab.goto(site.url + view)
        settled(tab)
        urls |= set(tab.evaluate("window.__avadata.calls.map(c => c.url)"))
    p99: dict[str, float] = {}
    p50: dict[str, float] = {}
    for url in sorted(urls):
        took = []
        for _ in range(REPEATS):
            started = time.perf_counter()
            assert site.api.get(url).status_code == 200, url
            took.append((time.perf_counter() - started) * 1000)
        p99[url] = statistics.quantiles(took, n=100)[98]
        p50[url] = statistics.median(took)
    figures = {
        "page_ready_ms": {"median": statistics.median(ready), "max": max(ready), "all": ready},
        "api_calls": len(p99),
        "api_p50_ms_median": statistics.median(p50.values()),
        "api_p99_ms_median": statistics.median(p99.values()),
        "load_average": os.getloadavg(),
        "api_p99_ms": dict(sorted(p99.items(), key=lambda kv: -kv[1])),
        "api_p50_ms": dict(sorted(p50.items(), key=lambda kv: -kv[1])),
    }
    (tmp_path / "speed.json").write_text(json.dumps(figures, indent=1))
    print(
        json.dumps(
            {**figures, "api_p99_ms": dict(list(figures["api_p99_ms"].items())[:10])}, indent=1
        )
    )
    assert max(ready) < READY_MS, ready
    slow = {u: ms for u, ms in (p99 if STRICT else p50).items() if ms >= (50 if STRICT else 100)}
    assert slow == {}
