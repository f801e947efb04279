"""GET /v2/chains/{chainId}/rollingWindowMetrics/{metric} (getEvmChainRollingWindowMetrics).

Stage: api. The windows and their arithmetic are metrics/rolling.py; the rows come from
store/metrics/rolling_reads.py. The body is `{"result": {lastHour, ..., allTime}}`; a window
a metric does not answer is left out (every member is optional in the spec), and a chain
without rolled-up blocks answers `{"result": {}}`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from avadata.api.deps import read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.metrics.models import RollingWindowMetricsApiResponse
from avadata.api.metrics.routes import ChainPath, scope_of
from avadata.api.metrics.service import Metrics
from avadata.api.patterns import one_of
from avadata.metrics import rolling
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import MetricName
from avadata.metrics.series import Scope
from avadata.metrics.sums import Number
from avadata.store.metrics import rolling_reads
from avadata.store.types import Connection

router = APIRouter(tags=["Metrics"])

_NAMES = {m.value: m for m in rolling.ROLLING_METRICS}


def _metric(name: str) -> MetricName:
    m = _NAMES.get(name)
    if m is None:
        raise bad_request(f"metric: must be one of {', '.join(_NAMES)} (got {name!r})")
    return m


def rolling_values(conn: Connection, scope: Scope, metric: MetricName) -> dict[str, Number]:
    """Every window's value of `metric` in `scope` ({} when the scope has no blocks)."""
    newest = {i: rolling_reads.newest_rows(conn, scope, i) for i in (Interval.HOUR, Interval.DAY)}
    if not newest[Interval.HOUR]:
        return {}
    last = {i: max(r.bucket for r in rows.values()) for i, rows in newest.items()}
    out: dict[str, Number] = {}
    kind = rolling.DISTINCT_KIND.get(metric)
    if kind is not None:
        # Last-seen rows are per chain, so an aggregate not yet built is exact here too.
        for name, (interval, count) in rolling.distinct_windows(metric).items():
            first = rolling.first_bucket(last[interval], interval, count)
            out[name] = rolling_reads.distinct_since(conn, scope, kind, first)
        return out
    column = rolling.LARGEST.get(metric)
    if column is not None:
        for w in rolling.WINDOWS:
            first = rolling.first_bucket(last[w.interval], w.interval, w.buckets)
            top = rolling_reads.largest(conn, scope, w.interval, column, first, last[w.interval])
            out[w.name] = rolling.largest_value(metric, top)
        return out
    starts = rolling_reads.first_blocks(conn, list(newest[Interval.DAY]))
    for w in rolling.WINDOWS:
        first = rolling.first_bucket(last[w.interval], w.interval, w.buckets)
        chains = rolling_reads.chain_windows(conn, newest[w.interval], starts, w.interval, first)
        out[w.name] = rolling.summed_value(metric, chains, first)
    return out


@router.get(
    "/v2/chains/{chainId}/rollingWindowMetrics/{metric}",
    operation_id="getEvmChainRollingWindowMetrics",
    responses={200: {"model": RollingWindowMetricsApiResponse}, **ERROR_RESPONSES},
    response_model=None,
)
def get_rolling_window_metrics(
    m: Metrics,
    chain_id: ChainPath,
    metric: Annotated[
        str,
        Path(
            description="One of the 13 rolling-window metric names",
            json_schema_extra=one_of(_NAMES),
        ),
    ],
) -> Response:
    name = _metric(metric)
    with read_conn(m.app) as conn:
        scope = scope_of(conn, chain_id)
        values = rolling_values(conn, scope, name)
    return JsonResponse({"result": values})
