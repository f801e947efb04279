"""The indexer's StoreSink: writes held in one open transaction, committed every few batches,
at flush, or when older than its limit; on both engines.

Truths: what a second, read-only connection sees (only commits), and the rows of the same
batches written one transaction each by `write_evm_batch`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, select

from avadata.indexer.sink import StoreSink
from avadata.records import TokenStandard
from avadata.store import BlockGapError, get_cursor, make_engine, write_evm_batch
from avadata.store.balances import ZERO_ADDRESS
from avadata.store.prepared import prepare
from avadata.store.schema import chains
from tests.store import builders as B
from tests.store.tables import dump

CHAIN = 43113
BATCHES = [(0, 1), (2, 3), (4, 5), (6, 7)]


@pytest.fixture
def reader(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url, read_only=True)
    try:
        yield eng
    finally:
        eng.dispose()


def _prepared(engine: Engine, first: int, last: int):
    return prepare(B.rich_batch(CHAIN, first, last))


def _committed(reader: Engine) -> int | None:
    cur = get_cursor(reader, CHAIN)
    return None if cur is None else cur.block_number


def test_commits_every_few_batches_and_at_flush(engine, reader) -> None:
    sink = StoreSink(engine, commit_batches=3, commit_seconds=3600)
    seen = []
    for first, last in BATCHES:
        sink.write([_prepared(engine, first, last)])
        seen.append(_committed(reader))
    assert seen == [None, None, 5, 5]  # the third write committed; the fourth is held
    assert sink.last_indexed(CHAIN)[0] == 7  # the sink itself reads what it wrote
    sink.flush()
    assert _committed(reader) == 7
    assert sink.commits == 2

    # Nothing missing: writing the same batches again, one transaction each, adds no row.
    held = dump(engine)
    for first, last in BATCHES:
        write_evm_batch(engine, B.rich_batch(CHAIN, first, last))
    assert dump(engine) == held


def test_a_failed_write_rolls_back_to_the_last_commit(engine, reader) -> None:
    sink = StoreSink(engine, commit_batches=2, commit_seconds=3600)
    sink.write([_prepared(engine, 0, 1)])
    sink.write([_prepared(engine, 2, 3)])  # committed
    sink.write([_prepared(engine, 4, 5)])  # held
    with pytest.raises(BlockGapError):
        sink.write([_prepared(engine, 9, 9)])  # leaves a hole: refused, the held batch lost
    assert _committed(reader) == 3
    assert sink.last_indexed(CHAIN)[0] == 3
    sink.write([_prepared(engine, 4, 5)])
    sink.flush()
    assert _committed(reader) == 5


def test_an_old_transaction_is_committed_by_the_timer_and_a_new_one_is_not(engine, reader) -> None:
    sink = StoreSink(engine, commit_batches=100, commit_seconds=3600)
    sink.write([_prepared(engine, 0, 1)])
    sink.flush_if_older(3600)
    assert _committed(reader) is None
    sink.flush_if_older(0)
    assert _committed(reader) == 1


def test_chain_marks_join_the_open_transaction(engine, reader) -> None:
    # A second writer connection would wait for the sink's lock on SQLite (BEGIN IMMEDIATE).
    sink = StoreSink(engine, commit_batches=100, commit_seconds=3600)
    sink.write([_prepared(engine, 0, 1)])
    sink.mark_chain(CHAIN, "http://127.0.0.1:1/rpc", has_traces=True)
    with reader.connect() as conn:  # not visible before the commit
        assert conn.execute(select(chains.c.rpc_url)).scalars().all() == []
    sink.flush()
    assert _committed(reader) == 1
    with reader.connect() as conn:
        assert conn.execute(select(chains.c.rpc_url)).scalars().all() == ["http://127.0.0.1:1/rpc"]


def _expected_balances(batches: list[tuple[int, int]]) -> dict[str, list[tuple]]:
    """The balance history rows of `batches` (in order), summed here from their transfers: the
    running balance per key after each block it changed in."""
    running: dict[tuple, int] = {}
    rows: dict[str, dict[tuple, int]] = {"erc20": {}, "erc1155": {}}
    for first, last in batches:
        for t in B.rich_batch(CHAIN, first, last).transfers:
            if t.standard is TokenStandard.ERC721:
                continue
            kind = "erc20" if t.standard is TokenStandard.ERC20 else "erc1155"
            token = (t.token,) if kind == "erc20" else (t.token, t.token_id)
            for holder, delta in ((t.from_address, -t.value), (t.to_address, t.value)):
                if holder == ZERO_ADDRESS:
                    continue
                key = (kind, *token, holder)
                running[key] = running.get(key, 0) + delta
                rows[kind][(CHAIN, *key[1:], t.block_number)] = running[key]
    return {k: sorted((*key, v) for key, v in r.items()) for k, r in rows.items()}


def test_balances_carried_between_batches_survive_a_rollback_and_a_replay(engine) -> None:
    """The sink keeps the balances each batch leaves for the next one's priors
    (store/batch_cache.py): after a rolled-back transaction and a replayed range, the
    history rows are still the running sums of the transfers."""
    failing = {"on": True}

    def fail_at_6(conn, batch) -> None:
        if failing["on"] and batch.first_block == 6:
            raise RuntimeError("applier failed")

    sink = StoreSink(engine, [fail_at_6], commit_batches=2, commit_seconds=3600)

    def write(first: int, last: int) -> None:
        batch = B.rich_batch(CHAIN, first, last)
        sink.write([prepare(batch, [p(batch) for p in sink.prepares])])

    write(0, 1)
    write(2, 3)  # committed
    write(4, 5)  # held, then lost with the failure below
    with pytest.raises(RuntimeError):
        write(6, 7)
    failing["on"] = False
    for first, last in [(4, 5), (6, 7), (2, 3), (4, 5), (8, 9)]:  # then a replay from 2
        write(first, last)
    sink.flush()

    got = dump(engine)
    expected = _expected_balances([(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)])
    assert sorted(got["erc20_balances"]) == expected["erc20"]
    assert sorted(got["erc1155_balances"]) == expected["erc1155"]
