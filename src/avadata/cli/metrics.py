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
    from avadata.metrics.rebuild import rebuild as run
    from avadata.settings import Settings
    from avadata.store.engine import make_engine
    from avadata.store.migrate import migrate

    url = db or Settings().db_url
    engine = make_engine(url)
    try:
        migrate(engine)
        t0 = time.perf_counter()
        stats = run(engine)
        typer.echo(
            f"rebuilt metrics of {stats.chains} chain(s): {stats.blocks} blocks, "
            f"{stats.transactions} transactions in {time.perf_counter() - t0:.1f} s"
        )
    finally:
        engine.dispose()


@app.command("bench")
def bench(
    txs: Annotated[int, typer.Option(help="Transactions of the synthetic chain")] = 1_000_000,
    days: Annotated[int, typer.Option(help="Days the chain spans")] = 365,
    accounts: Annotated[int, typer.Option(help="Distinct sender/recipient pool")] = 50_000,
    rounds: Annotated[int, typer.Option(help="Requests per case")] = 200,
    db: Annotated[
        str | None, typer.Option("--db", help="Database URL (default: a temp SQLite)")
    ] = None,
    in_process: Annotated[
        bool, typer.Option(help="Time through an in-process test client instead of a server")
    ] = False,
    write_docs: Annotated[
        bool, typer.Option(help="record the result in docs/benchmarks.md")
    ] = True,
) -> None:
    """Write a synthetic chain with the rollup on, then time metric requests (p50/p99).

    Example: avadata bench metrics --txs 1000000 --days 365
    """
    from avadata.bench import metrics as b
    from avadata.bench.machine import describe, write_section
    from avadata.paths import REPO_ROOT

    result = b.run(
        txs=txs,
        days=days,
        accounts=accounts,
        rounds=rounds,
        db=db,
        in_process=in_process,
        log=typer.echo,
    )
    # The database URL is left out: the default is a fresh temp file, different every run.
    command = (
        f"avadata bench metrics --txs {txs} --days {days} --accounts {accounts}"
        f" --rounds {rounds}" + (" --in-process" if in_process else "")
    )
    text = b.report(result, rounds=rounds, machine=describe(), command=command)
    typer.echo(text)
    if write_docs:
        write_section(REPO_ROOT / "docs" / "benchmarks.md", "avadata bench metrics", text)
