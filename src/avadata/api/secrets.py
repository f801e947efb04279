"""The page-token secret kept in the store, so every API process signs tokens alike.

Stage: api. `avadata serve` creates it once (keystore.ensure_secret); a store without the
api_secrets table, or without the row, gives None and the app falls back to a process secret.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from avadata.api.keystore import read_secret


def stored_secret(engine: Engine) -> bytes | None:
    try:
        with engine.connect() as conn:
            return read_secret(conn)
    except SQLAlchemyError:
        return None
