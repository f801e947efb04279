"""`avadata serve`: the Data API (EVM half) over HTTP, reading the store read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# The `avadata keys` group lives in cli/keys.py; exposed here so cli/main.py registers it with
# one line next to `serve` (keys only matter to a served API).
from avadata.cli.keys import app as keys_app

HELP = """Serve the Data API (EVM chains) from a store written by `avadata index`.

Reads the store read-only (but for the webhooks' and exports' own tables: it also delivers
the webhooks' events, docs/webhooks.md, and writes transaction exports under --data-dir; a
database holding no store is refused unless --create); binds 127.0.0.1
unless told otherwise. Settings not given as flags come from AVADATA_* environment variables
(e.g. AVADATA_PRICES_FILE, AVADATA_RATE_LIMIT_ANONYMOUS).

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
) -> None:
    import uvicorn

    from avadata.api.app import create_app
    from avadata.cli.ports import check_free
    from avadata.settings import Settings

    # First: a server that cannot listen touches no store.
    check_free(port, "--port", host)
    settings = Settings(db_url=db, host=host, port=port)
    if data_dir is not None:
        settings = settings.model_copy(update={"data_dir": data_dir.resolve()})
    _prepare_store(db, create=create)
    try:
        app = create_app(settings)
    except ValueError as exc:
        typer.echo(f"avadata serve: {exc}", err=True)
        raise typer.Exit(2) from None
    worker = None
    if nft_worker:
        from avadata.indexer.nft.worker import Worker
        from avadata.store.engine import make_engine

        worker = Worker(make_engine(db), settings)
        worker.start()
    from avadata.delivery.worker import DeliveryWorker
    from avadata.store.engine import make_engine as engine_for

    # Webhooks (docs/webhooks.md): delivered from this process, so `up` delivers too.
    delivery = DeliveryWorker(engine_for(db, read_only=True), engine_for(db), settings)
    from avadata.api.prometheus import watch_deliveries

    watch_deliveries(app, delivery.counts)
    delivery.start()
    from avadata.exports.worker import ExportWorker

    # Transaction exports (POST /v1/operations/transactions:export) resume here after a restart.
    exports = ExportWorker(engine_for(db, read_only=True), engine_for(db), settings)
    exports.start()
    try:
        from avadata.gc_tuning import tune_for_serving

        tune_for_serving()
        uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)
    finally:
        exports.stop()
        delivery.stop()
        if worker is not None:
            worker.stop()


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
