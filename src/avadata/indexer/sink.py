"""The store behind the indexer's EvmSink seam, and the appliers it runs in each write."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select

from avadata.records import EvmBatch
from avadata.store import cursors, schema, writer
from avadata.store.prepared import PreparedBatch

CURSOR_SOURCE = "evm"

Applier = Callable[[Connection, EvmBatch], None]


@dataclass(frozen=True, slots=True)
class SplitApplier:
    """An applier in two halves. `prepare` is pure and runs where the batch is decoded (the
    fetch process; it must be a module-level function, since it is pickled by reference);
    `apply` runs inside the write transaction with what `prepare` returned. Called whole, it is
    an ordinary `Applier`."""

    prepare: Callable[[EvmBatch], Any]
    apply: Callable[[Connection, Any], None]

    def __call__(self, conn: Connection, batch: EvmBatch) -> None:
        self.apply(conn, self.prepare(batch))


def whole_batch(batch: EvmBatch) -> EvmBatch:
    """The `prepare` of a plain applier: the decoded batch itself crosses the process boundary
    (correct, but pickling records costs about what decoding them does)."""
    return batch


def split(applier: Applier) -> SplitApplier:
    if isinstance(applier, SplitApplier):
        return applier
    from avadata.indexer.appliers import known_split

    return known_split(applier) or SplitApplier(whole_batch, applier)


class StoreSink:
    def __init__(self, engine: Engine, appliers: Sequence[Applier] = ()) -> None:
        self.engine = engine
        self.appliers = [split(a) for a in appliers]

    @property
    def dialect_name(self) -> str:
        return str(self.engine.dialect.name)

    @property
    def prepares(self) -> tuple[Callable[[EvmBatch], Any], ...]:
        return tuple(a.prepare for a in self.appliers)

    def last_indexed(self, chain_id: int) -> tuple[int, str] | None:
        return cursors.get_cursor(self.engine, chain_id, CURSOR_SOURCE)

    def known_tokens(self, chain_id: int) -> set[str]:
        t = schema.tokens
        with self.engine.connect() as conn:
            return {r[0] for r in conn.execute(select(t.c.address).where(t.c.chain_id == chain_id))}

    def write(self, batches: Sequence[PreparedBatch]) -> None:
        """Consecutive batches of one chain, in one transaction."""
        writer.write_prepared(self.engine, batches, after=self._steps)

    def _steps(self, batch: PreparedBatch) -> list[Callable[[Connection], None]]:
        return [
            writer.bound(a.apply, v)
            for a, v in zip(self.appliers, batch.applier_inputs, strict=True)
        ]

    def mark_chain(self, chain_id: int, rpc_url: str, has_traces: bool | None) -> None:
        writer.mark_chain(self.engine, chain_id=chain_id, rpc_url=rpc_url, has_traces=has_traces)
