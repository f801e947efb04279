"""Whose request it is, and the engine the webhooks API writes through.

Stage: api. A webhook belongs to the API key that created it: the rate limiter (limits.py)
checks the key and leaves its KeyInfo in the request's scope; a request without a key is
refused (401), since a webhook needs an owner. The rest of the API reads through a read-only
engine; the webhooks' configuration is written through a writer engine of its own, opened on
first use (one per app).
"""

from __future__ import annotations

import threading

from fastapi import Request

from avadata.api.deps import AppState
from avadata.api.errors import ApiError
from avadata.api.limits import KEY_SCOPE
from avadata.store.engine import make_engine
from avadata.store.keys import KeyInfo
from avadata.store.types import Engine

_LOCK = threading.Lock()


def owner(request: Request, what: str = "webhooks") -> str:
    """The key_id of the request's API key; a 401 without one (`what` belongs to a key)."""
    info = request.scope.get(KEY_SCOPE)
    if not isinstance(info, KeyInfo):
        raise ApiError(
            401,
            f"{what} belong to an API key: send one in x-glacier-api-key (avadata keys create)",
        )
    return info.key_id


def writer(request: Request, st: AppState) -> Engine:
    with _LOCK:
        engine: Engine | None = getattr(request.app.state, "webhooks_writer", None)
        if engine is None:
            engine = make_engine(st.settings.db_url)
            request.app.state.webhooks_writer = engine
    return engine
