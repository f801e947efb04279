"""The Metrics API (seed 000): metric series, the legacy avg_tps route and the chain listing."""

from __future__ import annotations

from fastapi import APIRouter

from avadata.api.metrics import chains, routes

router = APIRouter()
router.include_router(routes.router)
router.include_router(chains.router)
