"""The service operations of both APIs: GET /v1/health-check and /v1/live-check (Data API),
/v2/health-check and /v2/live-check (Metrics API).

Stage: api. Health reads the store only (never a node): the database answers, and each EVM
chain's progress from its stored cursor (the last block whose rows are all committed) and
that block's time, as `lagSeconds` behind the server's clock. A chain is down when its lag
passes `health_max_lag_s` (unset: never); when any indicator is down the answer is a 503 in
the seed's error shape, naming what is down. Liveness answers without touching the store.
"""

from __future__ import annotations

import logging
import time
from typing import Any, cast

from fastapi import APIRouter

from avadata.api.data.models import HealthCheckResult, HealthIndicatorResult
from avadata.api.deps import AppState, State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, ApiError
from avadata.api.fastroute import FastRoute
from avadata.store.queries import presence

log = logging.getLogger(__name__)

router = APIRouter(tags=["Health Check"], route_class=FastRoute)


def _chain(row: Any, now: float, max_lag: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {"status": "up", "lastIndexedBlock": int(row.block_number)}
    if row.timestamp is None:
        return out
    lag = max(0, int(now) - int(row.timestamp))
    out.update(lastIndexedBlockTimestamp=int(row.timestamp), lagSeconds=lag)
    if max_lag is not None and lag > max_lag:
        out["status"] = "down"
    return out


def health(st: AppState) -> HealthCheckResult:
    indicators: dict[str, dict[str, Any]] = {}
    try:
        with read_conn(st) as conn:
            rows = presence.progress(conn)
        indicators["database"] = {"status": "up"}
    except Exception as exc:  # the store is what is being checked: any failure is "down"
        log.warning("health check: the store did not answer: %s", exc)
        indicators["database"] = {"status": "down", "message": type(exc).__name__}
        rows = []
    now = time.time()
    for row in rows:
        indicators[f"chain:{row.chain_id}"] = _chain(row, now, st.settings.health_max_lag_s)
    up = {k: v for k, v in indicators.items() if v["status"] == "up"}
    down = {k: v for k, v in indicators.items() if v["status"] != "up"}
    result = {"status": "error" if down else "ok", "info": up, "error": down, "details": indicators}
    return cast(HealthCheckResult, result)


def _live() -> HealthCheckResult:
    ok: HealthIndicatorResult = {"status": "up"}
    return {"status": "ok", "info": {"server": ok}, "error": {}, "details": {"server": ok}}


# Each API under its own version prefix, the same answer (one store behind both).
for _prefix, _api in (("/v1", "data"), ("/v2", "metrics")):

    @router.get(
        f"{_prefix}/health-check",
        operation_id=f"{_api}-health-check",
        responses={200: {"model": HealthCheckResult}, **ERROR_RESPONSES},
        response_model=None,
    )
    @on_store
    def health_check(st: State) -> JsonResponse:
        result = health(st)
        if result["status"] != "ok":
            # A 503 for the monitors, in the error shape the SDK reads a 503 as.
            down = ", ".join(sorted(result["error"] or {}))
            raise ApiError(503, f"unhealthy: {down} down")
        return JsonResponse(result)

    @router.get(
        f"{_prefix}/live-check",
        operation_id="live-check" if _api == "data" else "metrics-live-check",
        responses={200: {"model": HealthCheckResult}, **ERROR_RESPONSES},
        response_model=None,
    )
    async def live_check() -> JsonResponse:
        return JsonResponse(_live())
