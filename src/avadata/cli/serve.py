"""`avadata serve`: the Data API (EVM half) over HTTP, reading the store read-only."""

from __future__ import annotations

from typing import Annotated

import typer

# The `avadata keys` group lives in cli/keys.py; exposed here so cli/main.py registers it with
# one line next to `serve` (keys only matter to a served API).
from avadata.cli.keys import app as keys_app

HELP = """Serve the Data API (EVM chains) from a store written by `avadata index`.

Reads the store read-only; binds 127.0.0.1 unless told otherwise. Settings not given as flags
come from AVADATA_* environment variables (e.g. AVADATA_PRICES_FILE, AVADATA_RATE_LIMIT_ANONYMOUS).

Example: avadata serve --db sqlite:///data/a.db --port 8080
then: curl http://127.0.0.1:8080/v1/chains
"""

__all__ = ["HELP", "bench_api", "keys_app", "serve"]


def serve(
    db: Annotated[str, typer.Option("--db", help="sqlite:///path/file.db or postgresql://...")],
    host: Annotated[str, typer.Option("--host", help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port")] = 8080,
    nft_worker: Annotated[
        bool,
        typer.Option(
            "--nft-worker",
            help="also resolve NFT metadata in the background (tokenURI by eth_call; http/ipfs "
            "fetches only with AVADATA_NFT_FETCH_ENABLED=true)",
        ),
    ] = False,
) -> None:
    import uvicorn

    from avadata.api.app import create_app
    from avadata.settings import Settings

    settings = Settings(db_url=db, host=host, port=port)
    try:
        _prepare_store(db)
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
    try:
        from avadata.heap import tune_for_serving

        tune_for_serving()
        uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)
    finally:
        if worker is not None:
            worker.stop()


def _prepare_store(db: str) -> None:
    """Bring the store to the current schema and create the shared page-token secret once
    (through a short-lived writer engine; the server itself only reads)."""
    from avadata.store.engine import make_engine
    from avadata.store.keys import ensure_secret
    from avadata.store.migrate import migrate

    writer = make_engine(db)
    try:
        migrate(writer)
        ensure_secret(writer)
    finally:
        writer.dispose()


# `avadata bench api` is defined here, next to the server it measures, and registered on the
# bench group by cli/main.py.
def bench_api(
    db: Annotated[
        str | None, typer.Option("--db", help="store URL (default: a fresh SQLite file)")
    ] = None,
    txs: Annotated[
        int, typer.Option(min=1, help="transactions in the synthetic store")
    ] = 1_000_000,
    seconds: Annotated[float, typer.Option(min=1, help="wrk duration per endpoint")] = 10.0,
    page: Annotated[int, typer.Option(min=2, help="the deep page compared with page 1")] = 10_000,
    write_docs: Annotated[
        bool, typer.Option(help="record the result in docs/benchmarks.md")
    ] = True,
) -> None:
    """Serve a store of >= 1M transactions and load every EVM endpoint with wrk, beside a
    trivial endpoint of the same app; p50/p99 and req/s go to docs/benchmarks.md.

    Example: avadata bench api --txs 1000000 --seconds 10
    """
    from avadata.api.bench import run
    from avadata.bench.machine import describe, write_section
    from avadata.paths import REPO_ROOT

    text = (
        run(db, txs, seconds, page)
        + f"\n\nMachine: {describe()}\n\n"
        + f"Command: `avadata bench api --txs {txs} --seconds {seconds:g} --page {page}`"
    )
    typer.echo(text)
    if write_docs:
        write_section(REPO_ROOT / "docs" / "benchmarks.md", "avadata bench api", text)
