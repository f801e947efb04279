"""`avadata bench ...`: benchmarks whose results go to docs/benchmarks.md."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Benchmarks (results are recorded in docs/benchmarks.md).", no_args_is_help=True
)


@app.command("ingest")
def ingest() -> None:
    """Index a seeded chain and compare with the raw pull and ethereum-etl."""
    from avadata.cli.notyet import not_yet

    not_yet("bench ingest")
