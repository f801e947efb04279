"""The L1 validator fee series: getTotalL1ValidatorMetrics, getMetricsByValidationId,
getMetricsByNodeId and getMetricsBySubnetId.

Stage: api. Each request replays the selected validations' P-chain txs (metrics/l1_fees.py)
up to the P-chain's newest indexed block; the answer is `{"results": [...]}` with one point
per UTC day, newest first, from the first of those validations' txs to the newest block's day
(startTimestamp/endTimestamp clip it as on the chain series). Values are nAVAX.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, NamedTuple

import orjson
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
from avadata.metrics.buckets import Interval
from avadata.store.metrics import l1_reads, staking_reads
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


class L1Book(NamedTuple):
    """Every L1 validation replayed to the P-chain's newest time."""

    validations: list[tuple[str, str, str]]  # (validation ID, subnet ID, node ID)
    replays: dict[str, l1_fees.Replay]
    first_tx: dict[str, int]  # validation ID -> time of its first tx


def l1_book(conn: Connection, now: int) -> L1Book:
    events: dict[str, list[l1_fees.Event]] = {}
    first: dict[str, int] = {}
    for vid, ts, tx_type, body in l1_reads.validation_txs(conn):
        events.setdefault(vid, []).append(l1_fees.events_of(vid, ts, tx_type, orjson.loads(body)))
        first.setdefault(vid, ts)
    replays = {vid: l1_fees.replay(e, now) for vid, e in events.items()}
    return L1Book(l1_reads.validations(conn), replays, first)


# Which column of L1Book.validations each path parameter selects.
_COLUMN = {"l1ValidationId": 0, "subnetId": 1, "nodeId": 2}


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
    now = staking_reads.newest(conn)
    book = (
        L1Book([], {}, {})
        if now is None
        else m.derived.get(("l1", now), lambda: l1_book(conn, now))
    )
    ids = [v[0] for v in book.validations]
    if selector is not None:
        param, value = selector
        ids = [v[0] for v in book.validations if v[_COLUMN[param]] == value]
        if not ids:
            raise not_found(f"{param}: no L1 validation of {param} {value} is indexed")
    ids = [i for i in ids if i in book.first_tx]
    if not ids or now is None:
        return []
    first = buckets.start(min(book.first_tx[i] for i in ids), Interval.DAY)
    last = buckets.start(now, Interval.DAY)
    if start is not None:
        first = max(first, -(-start // buckets.DAY) * buckets.DAY)
    if end is not None:
        last = min(last, buckets.start(end, Interval.DAY))
    if first > last:
        return []
    replays = [book.replays[i] for i in ids]
    return [{"value": v, "timestamp": d} for d, v in l1_fees.series(replays, first, last, kind)]


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
