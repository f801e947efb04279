"""The extra writers the indexer runs inside the store writer's transaction, each in two halves.

Indexer stage. An applier is the store's `writer.Applier` (conn, batch): it writes after the
batch's rows and before the cursor moves, so all three commit together. The indexer runs each
as a `SplitApplier`: the pure half in the fetch process beside decoding, the writing half in the
write transaction. `default_appliers()` is the one list `avadata index` and the tests wire (the
metrics rollup); a caller that wants others (a benchmark timing the rollup) passes its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from avadata.metrics.rollup import changes
from avadata.records import EvmBatch
from avadata.store.metrics.rollup_writer import apply_changes
from avadata.store.types import Connection
from avadata.store.writer import Applier


@dataclass(frozen=True, slots=True)
class SplitApplier:
    """An applier in two halves. `prepare` is pure and runs where the batch is decoded (the
    fetch process; it must be a module-level function, since it is pickled by reference);
    `apply` runs inside the write transaction with what `prepare` returned. Called whole, it is
    an ordinary `Applier`."""

    prepare: Callable[[EvmBatch], Any]
    apply: Callable[..., None]  # (conn, prepared) [, carried=]
    # `apply` takes `carried=` too: what the sink's earlier batches left (store/batch_cache.py).
    carries: bool = False

    def __call__(self, conn: Connection, batch: EvmBatch) -> None:
        self.apply(conn, self.prepare(batch))


def whole_batch(batch: EvmBatch) -> EvmBatch:
    """The `prepare` of a plain applier: the decoded batch itself crosses the process boundary
    (correct, but pickling records costs about what decoding them does)."""
    return batch


def split(applier: Applier) -> SplitApplier:
    """`applier` in two halves: itself if it is split already, else all of it in the writer."""
    if isinstance(applier, SplitApplier):
        return applier
    return SplitApplier(whole_batch, applier)


# The metrics rollup: its pure half (`metrics.rollup.changes`) in the fetch process, its writing
# half (`apply_changes`) in the write transaction.
ROLLUP = SplitApplier(changes, apply_changes, carries=True)


def default_appliers() -> list[Applier]:
    return [ROLLUP]
