"""`avadata keys create|revoke|list`: Data API keys, stored hashed in the store."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:  # SQLAlchemy is imported on use: every verb's start-up imports this module
    from avadata.store.types import Engine

HELP = """Manage Data API keys (sent as x-data-api-key or x-glacier-api-key; they raise the
caller's rate limit). Only a hash is stored: a new key is printed once.

Example: avadata keys create --db sqlite:///data/a.db --name dashboard
"""

app = typer.Typer(help=HELP, no_args_is_help=True)

Db = Annotated[str, typer.Option("--db", help="sqlite:///path/file.db or postgresql://...")]


def _engine(db: str) -> Engine:
    from avadata.store.probe import open_store

    return open_store(db)


def _when(ts: int | None) -> str:
    return "-" if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


@app.command(
    "create", help="Create a key, print it once. Example: avadata keys create --db sqlite:///a.db"
)
def create(
    db: Db,
    name: Annotated[str | None, typer.Option("--name", help="a label for the key")] = None,
    rate_limit: Annotated[
        int | None,
        typer.Option("--rate-limit", min=1, help="requests per minute (default: server setting)"),
    ] = None,
) -> None:
    from avadata.store.keys import create_key

    key, info = create_key(_engine(db), name, rate_limit)
    typer.echo(key)
    typer.echo(f"key id {info.key_id}: store it now, it cannot be shown again", err=True)


@app.command(
    "revoke",
    help="Revoke a key by id. Example: avadata keys revoke --db sqlite:///a.db 3f2a9c01d4e5",
)
def revoke(
    db: Db, key_id: Annotated[str, typer.Argument(help="the key id (see keys list)")]
) -> None:
    from avadata.store.keys import revoke_key

    if not revoke_key(_engine(db), key_id):
        typer.echo(f"avadata keys revoke: no active key with id {key_id}", err=True)
        raise typer.Exit(1)
    typer.echo(f"revoked {key_id}")


@app.command(
    "list", help="List key ids, names, dates. Example: avadata keys list --db sqlite:///a.db"
)
def list_(db: Db) -> None:
    from avadata.store.keys import list_keys

    for k in list_keys(_engine(db)):
        state = "active" if k.revoked_at is None else f"revoked {_when(k.revoked_at)}"
        limit = "default" if k.rate_limit is None else f"{k.rate_limit}/min"
        typer.echo(f"{k.key_id}\t{k.name or '-'}\tcreated {_when(k.created_at)}\t{state}\t{limit}")
