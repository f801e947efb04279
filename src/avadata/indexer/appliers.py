"""The extra writers the indexer passes to the store writer, run inside its transaction.

One list, so `avadata index`, `avadata up` and the tests wire the same ones. The metrics rollup
is a SplitApplier: its pure half (`metrics.rollup.changes`) runs in the fetch process beside
decoding, its writing half (`apply_changes`) in the write transaction. With
AVADATA_ROLLUP_TIMING=<file> the writing half is timed and its total seconds written to that
file when the process exits: `avadata bench ingest` reads it to report the rollup's share of
the indexer's ingest time.
"""

from __future__ import annotations

import atexit
import os
import time
from pathlib import Path

from sqlalchemy import Connection

from avadata.indexer.sink import Applier, SplitApplier
from avadata.metrics.rollup import RollupChanges, changes
from avadata.store.batch_cache import Carried
from avadata.store.metrics.rollup_writer import apply_changes, apply_metrics

TIMING_ENV = "AVADATA_ROLLUP_TIMING"

METRICS = SplitApplier(changes, apply_changes, carries=True)


def known_split(applier: Applier) -> SplitApplier | None:
    """The split form of a plain applier we know (tests pass `apply_metrics` itself)."""
    return METRICS if applier is apply_metrics else None


def default_appliers() -> list[Applier]:
    target = os.environ.get(TIMING_ENV)
    if not target:
        return [METRICS]
    spent = [0.0]

    def timed_apply(conn: Connection, ch: RollupChanges, carried: Carried | None = None) -> None:
        t = time.perf_counter()
        try:
            apply_changes(conn, ch, carried)
        finally:
            spent[0] += time.perf_counter() - t

    atexit.register(lambda: Path(target).write_text(f"{spent[0]:.6f}\n"))
    return [SplitApplier(changes, timed_apply, carries=True)]
