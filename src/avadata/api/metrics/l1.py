"""The L1 validator fee series: getTotalL1ValidatorMetrics, getMetricsByValidationId,
getMetricsByNodeId and getMetricsBySubnetId.

Stage: api. The P-chain rollup (store/metrics/pchain_reads.py) holds each validation's fees
per closed day and its fee replay's state; a request adds the newest day's open part up to
the P-chain's newest indexed tx (metrics/pchain_rollup.tail). The answer is
`{"results": [...]}` with one point per UTC day, newest first, from the first of those
validations' txs to the newest block's day (startTimestamp/endTimestamp clip it as on the
chain series). Values are nAVAX, a count of validations, or seconds (validationRunwaySeconds).
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, NamedTuple

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from avadata.api.deps import read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request, not_found
from avadata.api.metrics.models import MetricsApiResponse
from avadata.api.metrics.routes import Timestamp
from avadata.api.metrics.service import Metrics, MetricsState
from avadata.api.patterns import CB58_ID, NODE_ID, one_of
from avadata.decode.codec.ids import cb58_decode
from avadata.metrics import buckets, l1_fees
from avadata.metrics import pchain_rollup as pr
from avadata.metrics.buckets import Interval
from avadata.store.metrics import pchain_reads
from avadata.store.metrics.pchain_reads import L1Account
from avadata.store.types import Connection

router = APIRouter(tags=["Metrics"])


def _metric(name: str, allowed: dict[str, str]) -> str:
    kind = allowed.get(name)
    if kind is None:
        raise bad_request(f"metric: must be one of {', '.join(allowed)} (got {name[:80]!r})")
    return kind


def _id(param: str, value: str, size: int, prefix: str = "") -> str:
    try:
        ok = value.startswith(prefix) and len(cb58_decode(value[len(prefix) :])) == size
    except ValueError:  # the codec's DecodeError is one
        ok = False
    if not ok:
        raise bad_request(f"{param}: not a valid {param} (got {value[:80]!r})")
    return value


# Which column of an L1Account (pchain_reads) each path parameter selects.
_COLUMN = {"l1ValidationId": 0, "subnetId": 1, "nodeId": 2}


def _accounts(conn: Connection, m: MetricsState, clock: pchain_reads.Clock) -> list[L1Account]:
    # Every L1 validation, kept while the rollup's clock stands (a few rows each).
    key = ("l1-accounts", clock.height, clock.now)
    return m.derived.get(key, lambda: pchain_reads.l1_accounts(conn))


def fee_series(
    conn: Connection,
    m: MetricsState,
    kind: str,
    window: tuple[int | None, int | None],
    selector: tuple[str, str] | None = None,
) -> list[dict[str, int]]:
    """The points of one series over the validations that `selector` (path parameter, value)
    names, or all; 404 naming the parameter when it names none."""
    start, end = window
    if start is not None and end is not None and start > end:
        raise bad_request(f"startTimestamp: must be <= endTimestamp ({start} > {end})")
    clock = pchain_reads.clock(conn)
    chosen = [] if clock is None else _accounts(conn, m, clock)
    if selector is not None:
        param, value = selector
        chosen = [a for a in chosen if a[_COLUMN[param]] == value]
        if not chosen:
            raise not_found(f"{param}: no L1 validation of {param} {value} is indexed")
    if not chosen or clock is None:
        return []
    first = buckets.start(min(a[3] for a in chosen), Interval.DAY)
    last = buckets.start(clock.now, Interval.DAY)
    if start is not None:
        first = max(first, -(-start // buckets.DAY) * buckets.DAY)
    if end is not None:
        last = min(last, buckets.start(end, Interval.DAY))
    if first > last:
        return []
    if kind in (l1_fees.BALANCE, l1_fees.RUNWAY):
        points = _balances(conn, chosen[0], first, last, clock.now, kind)
    else:
        pick = 1 if kind == l1_fees.PAYING else 0
        per_day = {d: v[pick] for d, v in _per_day(conn, m, clock, chosen, selector).items()}
        points = l1_fees.day_series(per_day, first, last, kind)
    return [{"value": v, "timestamp": d} for d, v in points]


def _per_day(
    conn: Connection,
    m: MetricsState,
    clock: pchain_reads.Clock,
    chosen: list[L1Account],
    selector: tuple[str, str] | None,
) -> dict[int, tuple[int, int]]:
    """Per day (nAVAX paid, validations paying): the rollup's days, and the newest day's open
    part replayed from each account's state to the P-chain's newest time."""
    ids = None if selector is None else [a[0] for a in chosen]
    key = ("l1-days", clock.height, clock.now, selector)
    days = dict(m.derived.get(key, lambda: pchain_reads.l1_days(conn, ids)))
    newest = buckets.start(clock.now, Interval.DAY)
    tails = {a[0]: pr.tail(a[4], clock.now)[0] for a in chosen}
    paying = [vid for vid, paid in tails.items() if paid > 0]
    if paying:
        rows = pchain_reads.l1_rows(conn, paying, newest, newest)
        fee, count = days.get(newest, (0, 0))
        fee += sum(tails.values()) * l1_fees.FEE_PER_SECOND
        count += sum(1 for vid in paying if rows.get((vid, newest), (0, 0))[0] == 0)
        days[newest] = (fee, count)
    return days


def _balances(
    conn: Connection, account: L1Account, first: int, last: int, now: int, kind: str
) -> list[tuple[int, int]]:
    """A validation's balance (or the seconds it lasts) at each day's end in [first, last],
    newest first: its rows' balances carried over the days without one (the balance moves only
    by a tx or while paying, and a paying day always has a row); the newest day's at `now`."""
    vid, state = account[0], account[4]
    rows = pchain_reads.l1_rows(conn, [vid], buckets.start(account[3], Interval.DAY), last)
    newest = buckets.start(now, Interval.DAY)
    out, balance = [], 0
    for d in range(buckets.start(account[3], Interval.DAY), last + 1, buckets.DAY):
        balance = pr.tail(state, now)[1] if d == newest else rows.get((vid, d), (0, balance))[1]
        if d >= first:
            value = balance // l1_fees.FEE_PER_SECOND if kind == l1_fees.RUNWAY else balance
            out.append((d, value))
    return out[::-1]


_RESPONSES = {200: {"model": MetricsApiResponse}, **ERROR_RESPONSES}


@router.get(
    "/v2/validators/metrics/{metric}",
    operation_id="getTotalL1ValidatorMetrics",
    responses=_RESPONSES,
    response_model=None,
)
def get_total_l1_validator_metrics(
    m: Metrics,
    metric: Annotated[
        str,
        Path(
            description=", ".join(l1_fees.TOTAL_METRICS),
            json_schema_extra=one_of(l1_fees.TOTAL_METRICS),
        ),
    ],
    start_ts: Annotated[Timestamp, Query(alias="startTimestamp")] = None,
    end_ts: Annotated[Timestamp, Query(alias="endTimestamp")] = None,
) -> Response:
    kind = _metric(metric, l1_fees.TOTAL_METRICS)
    with read_conn(m.app) as conn:
        return JsonResponse({"results": fee_series(conn, m, kind, (start_ts, end_ts))})


class _SeriesBy(NamedTuple):
    """A fee series route over the validations one path parameter selects."""

    path: str
    operation_id: str
    name: str  # OpenAPI's summary is made from it
    param: str  # the path parameter, a CB58 ID of `size` bytes after `prefix`
    size: int
    metrics: dict[str, str]
    prefix: str = ""


def _mount_series_by(route: _SeriesBy) -> None:
    def endpoint(
        m: MetricsState, value: str, metric: str, start_ts: int | None, end_ts: int | None
    ) -> Response:
        kind = _metric(metric, route.metrics)
        selected = _id(route.param, value, route.size, route.prefix)
        with read_conn(m.app) as conn:
            window = (start_ts, end_ts)
            points = fee_series(conn, m, kind, window, (route.param, selected))
        return JsonResponse({"results": points})

    described = ", ".join(route.metrics)
    params: list[tuple[str, Any, Any]] = [
        ("m", Metrics, inspect.Parameter.empty),
        (
            "value",
            Annotated[str, Path(alias=route.param, pattern=NODE_ID if route.prefix else CB58_ID)],
            inspect.Parameter.empty,
        ),
        (
            "metric",
            Annotated[str, Path(description=described, json_schema_extra=one_of(route.metrics))],
            inspect.Parameter.empty,
        ),
        ("start_ts", Annotated[Timestamp, Query(alias="startTimestamp")], None),
        ("end_ts", Annotated[Timestamp, Query(alias="endTimestamp")], None),
    ]
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, kind, annotation=a, default=d) for n, a, d in params],
        return_annotation=Response,
    )
    router.add_api_route(
        route.path,
        endpoint,
        methods=["GET"],
        operation_id=route.operation_id,
        name=route.name,
        responses=_RESPONSES,
        response_model=None,
    )


for _route in (
    _SeriesBy(
        "/v2/validation/{l1ValidationId}/metrics/{metric}",
        "getMetricsByValidationId",
        "get_metrics_by_validation_id",
        "l1ValidationId",
        32,
        l1_fees.VALIDATION_METRICS,
    ),
    _SeriesBy(
        "/v2/validator/{nodeId}/metrics/{metric}",
        "getMetricsByNodeId",
        "get_metrics_by_node_id",
        "nodeId",
        20,
        l1_fees.NODE_METRICS,
        prefix="NodeID-",
    ),
    _SeriesBy(
        "/v2/subnet/{subnetId}/metrics/{metric}",
        "getMetricsBySubnetId",
        "get_metrics_by_subnet_id",
        "subnetId",
        32,
        l1_fees.SUBNET_METRICS,
    ),
):
    _mount_series_by(_route)
