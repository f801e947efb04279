"""`avadata serve`: the Data API (EVM half) over HTTP, reading the store read-only."""

from __future__ import annotations

from typing import Annotated

import typer

HELP = """Serve the Data API (EVM chains) from a store written by `avadata index`.

Reads the store read-only; binds 127.0.0.1 unless told otherwise. Settings not given as flags
come from AVADATA_* environment variables (e.g. AVADATA_PRICES_FILE, AVADATA_RATE_LIMIT_ANONYMOUS).

Example: avadata serve --db sqlite:///data/a.db --port 8080
then: curl http://127.0.0.1:8080/v1/chains
"""


def serve(
    db: Annotated[str, typer.Option("--db", help="sqlite:///path/file.db or postgresql://...")],
    host: Annotated[str, typer.Option("--host", help="address to bind")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="TCP port")] = 8080,
) -> None:
    import uvicorn

    from avadata.api.app import create_app
    from avadata.settings import Settings

    settings = Settings(db_url=db, host=host, port=port)
    try:
        app = create_app(settings)
    except ValueError as exc:
        typer.echo(f"avadata serve: {exc}", err=True)
        raise typer.Exit(2) from None
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)
