"""The app of one `avadata serve --workers N` process: built from the AVADATA_* environment
the parent set (`avadata.api.asgi:from_environment`, uvicorn's factory).

Stage: api. uvicorn starts each worker process fresh and imports the app by name, so nothing
of the parent's objects crosses: each process opens its own connections and counts its own
rate-limit windows (docs/deploy.md gives the arithmetic).
"""

from __future__ import annotations

from fastapi import FastAPI

from avadata.api.app import create_app
from avadata.settings import Settings


def from_environment() -> FastAPI:
    """The Data API app on the settings of this process's environment."""
    from avadata.gc_tuning import tune_for_serving

    tune_for_serving()
    return create_app(Settings())
