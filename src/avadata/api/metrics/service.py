"""Per-app state of the Metrics API: the page-token store, built on first use.

Stage: api. Built lazily from the Data API's AppState (settings + read-only engine), so
create_app needs only one line to include the metrics router. Rate limiting is not here: the
app's one limiter (avadata.api.limits) counts every request, metrics included, exactly once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from avadata.api.deps import AppState
from avadata.api.derived import DerivedCache
from avadata.api.metrics.tokens import TokenStore
from avadata.store.engine import make_engine

_build_lock = threading.Lock()


@dataclass(slots=True)
class MetricsState:
    app: AppState
    tokens: TokenStore
    derived: DerivedCache = field(default_factory=DerivedCache)


def _build(app: AppState) -> MetricsState:
    s = app.settings
    # The API's own engine is read-only; page tokens need a (tiny) writer on the same store.
    writer = make_engine(s.db_url)
    return MetricsState(
        app=app,
        tokens=TokenStore(writer, reader=app.engine),
    )


# Async (no I/O: building the state only makes engine objects) so FastAPI does not hop to a
# worker thread to run it.
async def metrics_state(request: Request) -> MetricsState:
    st: MetricsState | None = getattr(request.app.state, "avadata_metrics", None)
    if st is None:
        with _build_lock:
            st = getattr(request.app.state, "avadata_metrics", None)
            if st is None:
                st = _build(request.app.state.avadata)
                request.app.state.avadata_metrics = st
    return st


Metrics = Annotated[MetricsState, Depends(metrics_state)]
