"""The store behind the indexer's EvmSink seam."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy import Connection, Engine, select

from avadata.records import EvmBatch
from avadata.store import cursors, schema, writer

CURSOR_SOURCE = "evm"

Applier = Callable[[Connection, EvmBatch], None]


class StoreSink:
    def __init__(self, engine: Engine, appliers: Sequence[Applier] = ()) -> None:
        self.engine = engine
        self.appliers = list(appliers)

    def last_indexed(self, chain_id: int) -> tuple[int, str] | None:
        return cursors.get_cursor(self.engine, chain_id, CURSOR_SOURCE)

    def known_tokens(self, chain_id: int) -> set[str]:
        t = schema.tokens
        with self.engine.connect() as conn:
            return {r[0] for r in conn.execute(select(t.c.address).where(t.c.chain_id == chain_id))}

    def write(self, batch: EvmBatch) -> None:
        writer.write_evm_batch(self.engine, batch, appliers=self.appliers)

    def mark_chain(self, chain_id: int, rpc_url: str, has_traces: bool | None) -> None:
        writer.mark_chain(self.engine, chain_id=chain_id, rpc_url=rpc_url, has_traces=has_traces)
