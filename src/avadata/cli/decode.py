"""`avadata decode ...`: the Avalanche binary codec for people and scripts."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Decode Avalanche transactions, blocks and UTXOs to JSON.", no_args_is_help=True
)


@app.command("tx")
def tx() -> None:
    """Decode a signed transaction."""
    from avadata.cli.notyet import not_yet

    not_yet("decode tx")
