"""The extra writers the indexer passes to the store writer, run inside its transaction.

One list, so `avadata index`, `avadata up` and the tests wire the same ones.
"""

from __future__ import annotations

from avadata.indexer.sink import Applier
from avadata.metrics.applier import apply_metrics


def default_appliers() -> list[Applier]:
    return [apply_metrics]
