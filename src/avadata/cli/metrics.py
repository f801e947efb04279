"""`avadata metrics ...`: maintenance of the metric rollups."""

from __future__ import annotations

import time
from typing import Annotated

import typer

app = typer.Typer(help="Metric rollups: rebuild them from the stored rows.", no_args_is_help=True)


@app.command("rebuild")
def rebuild(
    db: Annotated[
        str | None,
        typer.Option("--db", help="Database URL (default: AVADATA_DB_URL or sqlite:///avadata.db)"),
    ] = None,
) -> None:
    """Recompute every metric bucket from the stored blocks, txs, transfers and contracts."""
    from avadata.settings import Settings
    from avadata.store.metrics.rebuild import rebuild as run
    from avadata.store.probe import open_store

    url = db or Settings().db_url
    # A store to rebuild: creating an empty one here would only hide a wrong --db.
    engine = open_store(url, create=False)
    try:
        t0 = time.perf_counter()
        stats = run(engine)
        typer.echo(
            f"rebuilt metrics of {stats.chains} chain(s): {stats.blocks} blocks, "
            f"{stats.transactions} transactions in {time.perf_counter() - t0:.1f} s"
        )
    finally:
        engine.dispose()
