"""The extra writers the indexer passes to the store writer, run inside its transaction.

One list, so `avadata index`, `avadata up` and the tests wire the same ones. With
AVADATA_ROLLUP_TIMING=<file> the metrics rollup is timed and its total seconds written to
that file when the process exits: `avadata bench ingest` reads it to report the rollup's share
of the indexer's ingest time.
"""

from __future__ import annotations

import atexit
import os
import time
from pathlib import Path
from typing import Any

from avadata.indexer.sink import Applier
from avadata.metrics.applier import apply_metrics

TIMING_ENV = "AVADATA_ROLLUP_TIMING"


def default_appliers() -> list[Applier]:
    target = os.environ.get(TIMING_ENV)
    if not target:
        return [apply_metrics]
    spent = [0.0]

    def timed_metrics(*args: Any, **kwargs: Any) -> None:
        t = time.perf_counter()
        try:
            apply_metrics(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t

    atexit.register(lambda: Path(target).write_text(f"{spent[0]:.6f}\n"))
    return [timed_metrics]
