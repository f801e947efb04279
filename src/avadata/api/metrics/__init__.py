"""The Metrics API: chain metric series and rolling windows (seed 000 and the hosted spec),
the legacy avg_tps route, the chain listing, staking and L1 validator fee series, ICM."""

from __future__ import annotations

from fastapi import APIRouter

from avadata.api.metrics import chains, icm, l1, rolling, routes, staking

router = APIRouter()
router.include_router(routes.router)
router.include_router(rolling.router)
router.include_router(staking.router)
router.include_router(l1.router)
router.include_router(icm.router)
router.include_router(chains.router)
