"""`avadata serve`: the Data API (EVM half) over HTTP, reading the store read-only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from fastapi import FastAPI

    from avadata.delivery.host import DeliveryHost
    from avadata.exports.worker import ExportWorker
    from avadata.indexer.nft.worker import Worker
    from avadata.settings import Settings

# The `avadata keys` group lives in cli/keys.py; exposed here so cli/main.py registers it with
# one line next to `serve` (keys only matter to a served API).
from avadata.cli.keys import app as keys_app

HELP = """Serve the Data API (EVM chains) from a store written by `avadata index`.

Reads the store read-only (but for the webhooks' and exports' own tables: it also delivers
the webhooks' events, docs/webhooks.md, and writes transaction exports under --data-dir; a
database holding no store is refused unless --create); binds 127.0.0.1
unless told otherwise. Settings not given as flags come from AVADATA_* environment variables
(e.g. AVADATA_PRICES_FILE, AVADATA_RATE_LIMIT_ANONYMOUS).

Several processes: --workers N serves one port from N processes (each with its own
connections and rate-limit counts: docs/deploy.md); --read-db reads from a replica of --db
(same schema revision, checked at start) while writes still go to --db.

Example: avadata serve --db sqlite:///data/a.db --port 8080
then: curl http://127.0.0.1:8080/v1/chains
"""

__all__ = ["HELP", "keys_app", "serve"]


def serve(
    db: Annotated[str, typer.Option("--db", help="sqlite:///path/file.db or postgresql://...")],
    host: Annotated[str, typer.Option("--host", help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port")] = 8080,
    nft_worker: Annotated[
        bool,
        typer.Option(
            "--nft-worker/--no-nft-worker",
            help="resolve NFT metadata in the background (tokenURI by eth_call, then http/ipfs, "
            "paced by AVADATA_NFT_FETCH_PER_S; AVADATA_NFT_FETCH_ENABLED=false: no fetch)",
        ),
    ] = True,
    create: Annotated[
        bool,
        typer.Option("--create", help="start an empty store when --db holds none (yet)"),
    ] = False,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="where transaction exports are written (<data-dir>/exports); default: the "
            "SQLite store's folder, else ./avadata-data",
        ),
    ] = None,
    delivery: Annotated[
        bool,
        typer.Option(
            "--delivery/--no-delivery",
            help="deliver webhook events (when this process holds the store's delivery lease: "
            "one per store at a time) and write transaction exports from this process; run "
            "exports from one serve per store (--no-delivery on the others)",
        ),
    ] = True,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=64, help="API processes sharing the port")
    ] = 1,
    read_db: Annotated[
        str | None,
        typer.Option("--read-db", help="read from this replica of --db (writes go to --db)"),
    ] = None,
) -> None:
    from avadata.cli.ports import check_free
    from avadata.settings import Settings

    # First: a server that cannot listen touches no store.
    check_free(port, "--port", host)
    settings = Settings(db_url=db, host=host, port=port, read_db_url=read_db)
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir.resolve()})
    _prepare_store(db, create=create)
    if read_db is not None:
        from avadata.store.probe import check_replica

        check_replica(read_db, db)
    run, app = _serve_one(settings) if workers == 1 else _serve_many(settings, workers)
    worker = _start_nft_worker(settings) if nft_worker else None
    deliverer = _start_delivery(settings) if delivery else None
    if deliverer is not None and app is not None:
        from avadata.api.prometheus import watch_deliveries

        watch_deliveries(app, deliverer.counts)
    exports = _start_exports(settings) if delivery else None
    try:
        from avadata.gc_tuning import tune_for_serving

        tune_for_serving()
        run()
    finally:
        if exports is not None:
            exports.stop()
        if deliverer is not None:
            deliverer.stop()
        if worker is not None:
            worker.stop()


def _start_nft_worker(settings: Settings) -> Worker:
    """NFT metadata, resolved from this process (the parent of --workers), into --db."""
    from avadata.indexer.nft.worker import Worker
    from avadata.store.engine import make_engine

    worker = Worker(make_engine(settings.db_url), settings)
    worker.start()
    return worker


def _start_delivery(settings: Settings) -> DeliveryHost:
    """Webhooks (docs/webhooks.md), delivered by a process this one (the parent of --workers)
    starts and stops, so `up` delivers too; it reads and writes --db, never the replica."""
    from avadata.delivery.host import DeliveryHost

    host = DeliveryHost(settings)
    host.start()
    return host


def _start_exports(settings: Settings) -> ExportWorker:
    """Transaction exports (POST /v1/operations/transactions:export), written from this process
    (the parent of --workers) and resumed here after a restart; reads and writes --db."""
    from avadata.exports.worker import ExportWorker
    from avadata.store.engine import make_engine

    db = settings.db_url
    worker = ExportWorker(make_engine(db, read_only=True), make_engine(db), settings)
    worker.start()
    return worker


def _app(settings: Settings) -> FastAPI:
    """The app, built now, so a bad setting stops serve here (exit 2)."""
    from avadata.api.app import create_app

    try:
        return create_app(settings)
    except ValueError as exc:
        typer.echo(f"avadata serve: {exc}", err=True)
        raise typer.Exit(2) from None


def _serve_one(settings: Settings) -> tuple[Callable[[], None], FastAPI]:
    """Serving in this process (and its app, whose /metrics counts this process's deliveries)."""
    import uvicorn

    app = _app(settings)
    return lambda: uvicorn.run(
        app, host=settings.host, port=settings.port, log_level="info", access_log=False
    ), app


def _serve_many(settings: Settings, workers: int) -> tuple[Callable[[], None], None]:
    """Serving from `workers` processes on one socket (uvicorn's supervisor restarts one that
    dies); each builds its app from the environment set here (api/asgi.py). This process
    keeps the background workers, so the NFT and webhook workers still run once."""
    import os

    import uvicorn

    _app(settings).state.avadata.engine.dispose()  # stop here on a bad setting, not in N children
    os.environ["AVADATA_DB_URL"] = settings.db_url
    os.environ.pop("AVADATA_READ_DB_URL", None)
    if settings.read_db_url is not None:
        os.environ["AVADATA_READ_DB_URL"] = settings.read_db_url
    os.environ.pop("AVADATA_DATA_DIR", None)
    if settings.data_dir is not None:  # the children serve the export files from there
        os.environ["AVADATA_DATA_DIR"] = str(settings.data_dir)
    return lambda: uvicorn.run(
        "avadata.api.asgi:from_environment",
        factory=True,
        workers=workers,
        host=settings.host,
        port=settings.port,
        log_level="info",
        access_log=False,
    ), None


def _prepare_store(db: str, *, create: bool) -> None:
    """Bring the store to the current schema and create the shared page-token secret once
    (through a short-lived writer engine; the server itself only reads). A database holding
    no store is refused (errors.NoStore) unless `create`."""
    from avadata.store.keys import ensure_secret
    from avadata.store.probe import open_store

    writer = open_store(db, create=create)
    try:
        ensure_secret(writer)
    finally:
        writer.dispose()
