"""The one way a verb that is not built yet answers: a clear line on stderr, exit 2."""

from __future__ import annotations

from typing import NoReturn

import typer


def not_yet(what: str) -> NoReturn:
    typer.echo(f"avadata {what}: not yet implemented in this version", err=True)
    raise typer.Exit(2)
