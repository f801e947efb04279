"""The appliers the indexer passes to the store writer (metrics rollups plug in here)."""

from __future__ import annotations

from avadata.indexer.sink import Applier


def default_appliers() -> list[Applier]:
    return []
