"""create_app(settings) -> the FastAPI app of the Data API (EVM half), on a read-only store.

Stage: api. Validate, query, shape JSON; nothing else. The page-token secret comes from the
settings, else from the store's api_secrets table, else is random for this process.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI

from avadata.api import errors, health, prometheus
from avadata.api import metrics as metrics_api
from avadata.api.dashboard import routes as dashboard
from avadata.api.data import (
    address_txs,
    allchains,
    balances,
    blocks,
    chains,
    contracts,
    holdings,
    internals,
    nfts,
    transactions,
    transfers,
    tx_detail,
)
from avadata.api.deps import AppState, Readers
from avadata.api.encoding import JsonResponse
from avadata.api.freshness import FreshnessMiddleware
from avadata.api.limits import RateLimitMiddleware
from avadata.api.operations import routes as operation_routes
from avadata.api.paging import PageCodec
from avadata.api.prices import FilePriceSource, PriceSource
from avadata.api.primary import addresses as primary_addresses
from avadata.api.primary import assets as primary_assets
from avadata.api.primary import balances as primary_balances
from avadata.api.primary import blocks as primary_blocks
from avadata.api.primary import delegators as primary_delegators
from avadata.api.primary import details as primary_details
from avadata.api.primary import l1_validators as primary_l1_validators
from avadata.api.primary import network as primary_network
from avadata.api.primary import openapi as primary_openapi
from avadata.api.primary import rewards as primary_rewards
from avadata.api.primary import routes as primary_routes
from avadata.api.primary import supply as primary_supply
from avadata.api.primary import validator_list as primary_validator_list
from avadata.api.primary import validators as primary_validators
from avadata.api.primary import vertices as primary_vertices
from avadata.api.readers import LoopConnection, ReaderThreads
from avadata.api.webhooks import routes as webhook_routes
from avadata.api.webhooks import stream as webhook_stream
from avadata.settings import Settings
from avadata.store.dialect import queries_in_process, read_concurrency
from avadata.store.engine import make_reader_engine
from avadata.store.loop_readers import LoopReaders
from avadata.store.types import Engine

_ROUTERS = (
    health,
    # Before chains: its older paths (/v1/chains/allBlocks, ...) would match /v1/chains/{chainId}.
    allchains,
    chains,
    blocks,
    transactions,
    tx_detail,
    address_txs,
    transfers,
    internals,
    balances,
    holdings,
    contracts,
    nfts,
    primary_routes,
    primary_assets,
    primary_blocks,
    primary_vertices,
    primary_network,
    primary_details,
    primary_validators,
    primary_addresses,
    primary_balances,
    primary_supply,
    primary_validator_list,
    primary_delegators,
    primary_l1_validators,
    primary_rewards,
    webhook_routes,
    webhook_stream,
    operation_routes,
)


def _secret(settings: Settings, engine: Engine) -> bytes:
    if settings.page_token_secret:
        return settings.page_token_secret.encode()
    from avadata.store.keys import stored_secret

    found = stored_secret(engine)
    if found is None and settings.read_db_url:
        # A replica that has not replayed the secret yet: every process must sign pages
        # alike, so ask the writer's database (serve created the secret there).
        writer = make_reader_engine(settings.db_url)
        try:
            found = stored_secret(writer)
        finally:
            writer.dispose()
    return found or secrets.token_bytes(32)


def _money_schema(schema: dict[str, Any], settings: Settings) -> None:
    """Make the documented Money.value type the one served (AVADATA_MONEY_VALUE)."""
    money = schema.get("components", {}).get("schemas", {}).get("Money")
    if money and settings.money_value == "string":
        money["properties"]["value"] = {"type": "string", "title": "Value"}


def create_app(settings: Settings, *, engine: Engine | None = None) -> FastAPI:
    """The Data API app. `engine` defaults to a read-only engine on `settings.read_db_url`
    (a replica), else on `settings.db_url`."""
    engine = engine or make_reader_engine(settings.read_db_url or settings.db_url)
    prices: PriceSource | None = (
        FilePriceSource(settings.prices_file) if settings.prices_file is not None else None
    )
    loop = LoopConnection(engine)
    readers: Readers = (
        LoopReaders(engine.url.render_as_string(hide_password=False), read_concurrency(engine))
        if engine.dialect.name == "postgresql"
        else ReaderThreads(loop, read_concurrency(engine))
    )
    inline = queries_in_process(engine)
    if settings.api_inline_reads is not None:
        inline = settings.api_inline_reads

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await readers.stop()
        loop.close()
        app.state.avadata.writer.close()

    app = FastAPI(
        title="avadata Data API",
        version="1.0.0",
        description="Self-hosted Avalanche Data API (EVM chains), for the official SDK.",
        default_response_class=JsonResponse,
        lifespan=lifespan,
    )
    app.state.avadata = AppState(
        settings=settings,
        engine=engine,
        codec=PageCodec(_secret(settings, engine)),
        prices=prices,
        loop=loop,
        readers=readers,
        inline=inline,
    )
    errors.install(app)
    # Added first, so inside the limiter: a refused request costs no head lookup.
    app.add_middleware(FreshnessMiddleware, engine=engine)
    app.add_middleware(RateLimitMiddleware, settings=settings, engine=engine)
    # Outermost: counts and times every request, the limiter's 429s included (GET /metrics).
    prometheus.install(app, app.state.avadata)
    for module in _ROUTERS:
        app.include_router(module.router)

    # Trivial endpoint of the same app: the ceiling `avadata bench api` compares against. Async
    # (it has nothing to wait for), so it costs no worker-thread hop either.
    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> JsonResponse:
        return JsonResponse({"status": "ok"})

    app.include_router(metrics_api.router)
    # The page at / (docs/dashboard.md): static files that call the routes above.
    app.include_router(dashboard.make_router())

    default_openapi = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = default_openapi()
            _money_schema(schema, settings)
            errors.drop_unserved(schema)
            primary_openapi.add_components(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
