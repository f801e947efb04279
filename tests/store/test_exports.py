"""The exports' store functions on both engines: operations scoped by owner and moved only
while running; the keyset batches (a chain's, several addresses' merged, a primary chain's)
walking every transaction once; the date-to-block search; the worker writing CSV and Parquet
that equal the synthetic chain's own records, also after a crash between a write and its
mark."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from sqlalchemy import Engine, select

from avadata.decode.codec.ids import bech32_address
from avadata.exports.plan import Part, Plan, Position
from avadata.exports.worker import ExportWorker
from avadata.indexer.primary.chain import index_chain
from avadata.settings import Settings
from avadata.store.exports import jobs, reads
from avadata.store.schema import evm_blocks
from avadata.store.writer import mark_chain, write_evm_batch
from tests.api.synthetic import ALICE, BOB, CAROL, CHAIN_ID, ERC20, N_BLOCKS, Chain, build
from tests.exports import truth
from tests.primary.test_index_api import _source
from tests.primary.test_ingest import A, _chain


def _filled(engine: Engine) -> Chain:
    chain, batches = build()
    for b in batches:
        write_evm_batch(engine, b)
    mark_chain(engine, CHAIN_ID, name="Synthetic")
    return chain


def test_operations_are_their_owners_and_move_only_while_running(engine: Engine) -> None:
    made = jobs.create(engine, "k1", "op-1", "TRANSACTION_EXPORT_EVM", "{}", '{"part":0}')
    assert made.status == jobs.RUNNING and made.rows_written == 0 and made.file_mark == 0
    assert jobs.get(engine, "k2", "op-1") is None
    assert jobs.get(engine, None, "op-1") == jobs.get(engine, "k1", "op-1")
    jobs.create(engine, "k2", "op-2", "TRANSACTION_EXPORT_EVM", "{}", '{"part":0}')
    assert jobs.running(engine) == ["op-1", "op-2"]  # oldest first, then by id
    assert jobs.advance(engine, "op-1", '{"part":1}', 10, 123)
    got = jobs.get(engine, "k1", "op-1")
    assert got is not None and (got.position, got.rows_written, got.file_mark) == (
        '{"part":1}',
        10,
        123,
    )
    assert jobs.finish(engine, "op-1", jobs.FAILED, code="ErrInternal", message="disk")
    assert not jobs.advance(engine, "op-1", '{"part":2}', 11, 124)
    assert not jobs.finish(engine, "op-1", jobs.COMPLETED)
    done = jobs.get(engine, "k1", "op-1")
    assert done is not None and (done.status, done.code, done.rows_written) == (
        "FAILED",
        "ErrInternal",
        10,
    )
    assert jobs.running(engine) == ["op-2"]


def _walk(step: Any) -> list[tuple[int, int]]:
    keys: list[tuple[int, int]] = []
    after = None
    for _ in range(10_000):
        batch = step(after)
        keys += [(int(r.block_number), int(r.tx_index)) for r in batch.rows]
        after = batch.after
        if batch.done:
            return keys
    raise AssertionError("never done")


@pytest.mark.parametrize("limit", [1, 4, 1000])
def test_a_chain_walks_every_transaction_once(engine: Engine, limit: int) -> None:
    chain = _filled(engine)
    with engine.connect() as conn:
        got = _walk(lambda after: reads.evm_chain_batch(conn, CHAIN_ID, 5, 22, after, limit))
    want = [(t.block_number, t.tx_index) for t in truth.selected(chain.txs, (), 5, 22)]
    assert got == want and len(want) > 10


@pytest.mark.parametrize("limit", [1, 2, 3, 1000])
@pytest.mark.parametrize("addresses", [[ALICE, ERC20], [BOB], [CAROL], [ALICE, BOB, ERC20]])
def test_addresses_merge_every_transaction_once(
    engine: Engine, limit: int, addresses: list[str]
) -> None:
    chain = _filled(engine)
    with engine.connect() as conn:
        got = _walk(
            lambda after: reads.evm_address_batch(
                conn, CHAIN_ID, addresses, (0, N_BLOCKS - 1), after, limit
            )
        )
    want = [(t.block_number, t.tx_index) for t in truth.selected(chain.txs, addresses)]
    assert got == want


def test_a_time_finds_the_first_block_at_or_after_it(engine: Engine) -> None:
    _filled(engine)
    with engine.connect() as conn:
        times = conn.execute(select(evm_blocks.c.number, evm_blocks.c.timestamp)).all()
        for ts in (0, 1_700_000_000, 1_700_000_001, 1_700_000_030, 1_700_000_058, 2**40):
            want = min((n for n, t in times if t >= ts), default=N_BLOCKS)
            assert reads.first_block_from(conn, CHAIN_ID, ts, 0, N_BLOCKS - 1) == want


class _Crashing(ExportWorker):
    """Marks after every second batch and raises in the read of batch `crash_at`: the rows of
    the batch before it are written but unmarked, as a kill between a write and its mark
    leaves them."""

    def __init__(self, *args: Any, crash_at: int | None = None) -> None:
        super().__init__(*args)
        self.crash_at = crash_at
        self.batches = 0

    def _due(self, plan: Plan, sink: Any, marked: float) -> bool:
        return self.batches % 2 == 0

    def _batch(self, plan: Plan, part: Part, after: tuple[int, ...] | None) -> Any:
        self.batches += 1
        if self.batches == self.crash_at:
            raise RuntimeError("killed")
        return super()._batch(plan, part, after)


def _plan(fmt: str, addresses: tuple[str, ...] = ()) -> Plan:
    part = Part(str(CHAIN_ID), str(CHAIN_ID), addresses, 2, 27, (2, 27))
    return Plan("evm", fmt, "evm", (part,))  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_worker_resumes_a_crashed_export_exactly(
    engine: Engine, tmp_path: Path, fmt: str
) -> None:
    chain = _filled(engine)
    url = engine.url.render_as_string(hide_password=False)
    settings = Settings(db_url=url, data_dir=tmp_path, export_batch_rows=3)
    plan = _plan(fmt, (ALICE, ERC20))
    jobs.create(
        engine,
        "k",
        "0" * 8 + "-0000-4000-8000-" + "0" * 12,
        "TRANSACTION_EXPORT_EVM",
        plan.to_json(),
        Position().to_json(),
    )
    op_id = jobs.running(engine)[0]
    crashing = _Crashing(engine, engine, settings, crash_at=6)
    with pytest.raises(RuntimeError):
        crashing.run(op_id)
    stopped = jobs.get(engine, None, op_id)
    assert stopped is not None and stopped.status == "RUNNING" and 0 < stopped.rows_written
    ExportWorker(engine, engine, settings).run(op_id)
    done = jobs.get(engine, None, op_id)
    assert done is not None and done.status == "COMPLETED"
    want = [truth.evm_row(t) for t in truth.selected(chain.txs, (ALICE, ERC20), 2, 27)]
    assert done.rows_written == len(want) > 10
    path = tmp_path / "exports" / f"{op_id}.{fmt}"
    if fmt == "csv":
        rows = truth.csv_rows(path.read_text())
        assert rows == [truth.HEADER, *truth.as_csv(want)]
    else:
        table = pq.read_table(path)
        assert table.column_names == truth.HEADER
        assert table.to_pylist() == truth.as_parquet(want)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


@pytest.mark.parametrize("limit", [1, 4, 100])
def test_a_primary_chain_walks_every_transaction_once(engine: Engine, limit: int) -> None:
    blocks, ids = _chain(12)  # block i at 1_700_000_000 + i, one tx each; A in every one
    asyncio.run(index_chain(engine, _source(blocks, []), "P", "P"))

    def walk(addresses: tuple[str, ...], times: Any, types: tuple[str, ...] = ()) -> list[str]:
        out: list[str] = []
        after = None
        with engine.connect() as conn:
            while True:
                batch = reads.primary_batch(conn, "P", addresses, times, types, after, limit)
                out += [r.tx_hash for r in batch.rows]
                after = batch.after
                if batch.done:
                    return out

    a = bech32_address(A, "fuji")
    assert walk((), (None, None)) == ids
    assert walk((a,), (None, None)) == ids
    assert walk((), (1_700_000_003, 1_700_000_007)) == ids[3:8]
    assert walk((), (None, None), ("AddValidatorTx",)) == []
    with engine.connect() as conn:
        assert reads.primary_span(conn, "P") == (1_700_000_000, 1_700_000_011)
        assert reads.primary_span(conn, "X") is None
