"""The page-token secret kept in the store, so every API process signs tokens alike.

Stage: api. Until the store has an api_secrets table, there is nothing to read: None.
"""

from __future__ import annotations

from sqlalchemy import Engine


def stored_secret(engine: Engine) -> bytes | None:
    del engine
    return None
