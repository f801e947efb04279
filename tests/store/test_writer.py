"""write_evm_batch: idempotent, atomic with its cursor, ordered, and exact, on both engines."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from avadata.records import InternalCall, TokenInfo, TokenStandard
from avadata.store import BlockGapError, get_cursor, mark_chain, write_evm_batch
from avadata.store.reads import block_by_hash, block_by_number
from avadata.store.schema import (
    chains,
    evm_blocks,
    internal_call_participants,
    nft_tokens,
    tokens,
    transfer_participants,
)
from tests.store import builders as B
from tests.store.tables import dump

CHAIN = 43113


def _count(engine, table):
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_every_table_gets_rows(engine):
    write_evm_batch(engine, B.rich_batch(CHAIN, 0, 3))
    empty = [name for name, rows in dump(engine).items() if not rows]
    assert empty == []


def test_writing_a_batch_twice_leaves_the_same_rows(engine):
    b1, b2 = B.rich_batch(CHAIN, 0, 4), B.rich_batch(CHAIN, 5, 9)
    write_evm_batch(engine, b1)
    write_evm_batch(engine, b2)
    once = dump(engine)
    write_evm_batch(engine, b1)  # an older range, replayed
    write_evm_batch(engine, b2)
    write_evm_batch(engine, b2)
    assert dump(engine) == once


def test_replay_in_another_database_gives_identical_rows(engine, db_url):
    """Two databases fed the same batches, one with replays in between, end up equal."""
    batches = [B.rich_batch(CHAIN, n, n + 2) for n in range(0, 12, 3)]
    for b in batches:
        write_evm_batch(engine, b)
        write_evm_batch(engine, batches[0])
    replayed = dump(engine)
    with engine.begin() as conn:
        for t in reversed(list(evm_blocks.metadata.sorted_tables)):
            conn.execute(t.delete())
    for b in batches:
        write_evm_batch(engine, b)
    assert dump(engine) == replayed


def test_a_failing_applier_rolls_back_everything(engine):
    write_evm_batch(engine, B.rich_batch(CHAIN, 0, 1))
    before = dump(engine)
    seen = {}

    def applier(conn, batch):
        # Appliers see the batch's rows, and the cursor still at the previous range.
        seen["blocks"] = conn.execute(
            select(func.count()).select_from(evm_blocks).where(evm_blocks.c.chain_id == CHAIN)
        ).scalar_one()
        seen["cursor"] = get_cursor(conn, CHAIN)
        raise RuntimeError("crash inside the transaction")

    with pytest.raises(RuntimeError, match="crash"):
        write_evm_batch(engine, B.rich_batch(CHAIN, 2, 5), appliers=[applier])
    assert seen == {"blocks": 6, "cursor": (1, B.h("block", CHAIN, 1))}
    assert dump(engine) == before
    assert get_cursor(engine, CHAIN) == (1, B.h("block", CHAIN, 1))


def test_appliers_run_in_order_in_the_same_transaction(engine):
    calls = []
    write_evm_batch(
        engine,
        B.batch(CHAIN, 0, 0),
        appliers=[lambda c, b: calls.append(("a", b.first_block)), lambda c, b: calls.append("b")],
    )
    assert calls == [("a", 0), "b"]


def test_cursor_moves_forward_only(engine):
    assert get_cursor(engine, CHAIN) is None
    write_evm_batch(engine, B.batch(CHAIN, 0, 9))
    write_evm_batch(engine, B.batch(CHAIN, 10, 19))
    assert get_cursor(engine, CHAIN) == (19, B.h("block", CHAIN, 19))
    write_evm_batch(engine, B.batch(CHAIN, 0, 9))
    cur = get_cursor(engine, CHAIN)
    assert cur.block_number == 19 and cur.block_hash == B.h("block", CHAIN, 19)
    assert get_cursor(engine, CHAIN, "other-source") is None


def test_cursors_are_per_source_and_chain(engine):
    write_evm_batch(engine, B.batch(CHAIN, 0, 3), source="a")
    write_evm_batch(engine, B.batch(7, 0, 5))
    assert get_cursor(engine, CHAIN, "a").block_number == 3
    assert get_cursor(engine, CHAIN) is None
    assert get_cursor(engine, 7).block_number == 5


def test_out_of_order_batches_are_refused_before_writing(engine):
    write_evm_batch(engine, B.batch(CHAIN, 0, 9))
    before = dump(engine)
    with pytest.raises(BlockGapError):
        write_evm_batch(engine, B.batch(CHAIN, 20, 29))  # leaves 10..19 missing
    assert dump(engine) == before


def test_filling_a_hole_under_later_blocks_is_refused(engine):
    write_evm_batch(engine, B.batch(CHAIN, 100, 109))  # a chain may start anywhere
    with pytest.raises(BlockGapError):
        write_evm_batch(engine, B.batch(CHAIN, 90, 99))


def test_batch_shape_is_checked(engine):
    b = B.batch(CHAIN, 0, 3)
    b.blocks.pop()  # no last block: no hash for the cursor
    with pytest.raises(ValueError, match="last block"):
        write_evm_batch(engine, b)
    b = B.batch(CHAIN, 0, 3)
    b.blocks.append(B.block(CHAIN + 1, 2))
    with pytest.raises(ValueError, match="outside"):
        write_evm_batch(engine, b)


def test_cumulative_txs_runs_across_batches(engine):
    counts = {n: (n * 7) % 5 for n in range(30)}
    for first in range(0, 30, 10):
        b = B.batch(CHAIN, first, first + 9)
        b.blocks = [B.block(CHAIN, n, counts[n]) for n in range(first, first + 10)]
        write_evm_batch(engine, b)
    with engine.connect() as conn:
        for n in (0, 9, 10, 17, 29):
            # Independent: the running sum of the tx counts we generated.
            assert block_by_number(conn, CHAIN, n).cumulative_txs == sum(
                counts[k] for k in range(n + 1)
            )
        got = block_by_hash(conn, CHAIN, B.h("block", CHAIN, 17))
        assert got.block == B.block(CHAIN, 17, counts[17])
        assert block_by_number(conn, CHAIN, 30) is None


def test_has_traces_turns_off_and_mark_chain_sets_it(engine):
    write_evm_batch(engine, B.batch(CHAIN, 0, 1))
    b = B.batch(CHAIN, 2, 3)
    b.has_traces = False
    write_evm_batch(engine, b)
    write_evm_batch(engine, B.batch(CHAIN, 4, 5))  # a traced batch does not turn it back on

    def row():
        with engine.connect() as conn:
            return conn.execute(select(chains).where(chains.c.chain_id == CHAIN)).one()._asdict()

    assert row()["has_traces"] is False
    mark_chain(engine, CHAIN, has_traces=True, name="C-Chain", network="testnet")
    mark_chain(engine, CHAIN, rpc_url="http://127.0.0.1:9650/ext/bc/C/rpc")
    r = row()
    assert (r["has_traces"], r["name"], r["network"], r["rpc_url"]) == (
        True,
        "C-Chain",
        "testnet",
        "http://127.0.0.1:9650/ext/bc/C/rpc",
    )
    with pytest.raises(ValueError):
        mark_chain(engine, CHAIN, network="devnet")


def test_mark_chain_creates_the_row(engine):
    mark_chain(engine, 99, has_traces=False)
    mark_chain(engine, 98)
    with engine.connect() as conn:
        rows = conn.execute(select(chains.c.chain_id, chains.c.has_traces).order_by("chain_id"))
        assert [tuple(r) for r in rows] == [(98, True), (99, False)]


def test_token_metadata_fills_gaps_but_never_erases(engine):
    t = B.addr(0xAB)
    b = B.batch(CHAIN, 0, 0, tokens=[TokenInfo(CHAIN, t, TokenStandard.ERC20, None, "X", None)])
    write_evm_batch(engine, b)
    b = B.batch(CHAIN, 1, 1, tokens=[TokenInfo(CHAIN, t, TokenStandard.ERC20, "Ex", None, 6)])
    write_evm_batch(engine, b)
    with engine.connect() as conn:
        r = conn.execute(select(tokens.c.name, tokens.c.symbol, tokens.c.decimals)).one()
    assert tuple(r) == ("Ex", "X", 6)


def test_participant_links(engine):
    t = B.addr(0xE20)
    transfers = [
        B.transfer(CHAIN, 0, 0, t, B.addr(1), B.addr(2), 5),
        B.transfer(CHAIN, 0, 1, t, B.addr(3), B.addr(3), 5),  # to self: one link
    ]
    root = dict(
        block_number=0,
        block_hash=B.h("block", CHAIN, 0),
        block_timestamp=0,
        tx_index=0,
        tx_hash=B.h("tx", CHAIN, 0, 0),
        gas=1,
        gas_used=1,
        reverted=False,
        error=None,
    )
    calls = [
        InternalCall(
            CHAIN,
            trace_index=0,
            parent_index=None,
            depth=0,
            call_type="CALL",
            from_address=B.addr(10),
            to_address=B.addr(11),
            value=1,
            **root,
        ),
        InternalCall(
            CHAIN,
            trace_index=1,
            parent_index=0,
            depth=1,
            call_type="call",
            from_address=B.addr(11),
            to_address=B.addr(12),
            value=0,
            **root,
        ),
        InternalCall(
            CHAIN,
            trace_index=2,
            parent_index=0,
            depth=1,
            call_type="DELEGATECALL",
            from_address=B.addr(11),
            to_address=B.addr(13),
            value=5,
            **root,
        ),
        InternalCall(
            CHAIN,
            trace_index=3,
            parent_index=0,
            depth=1,
            call_type="CREATE",
            from_address=B.addr(11),
            to_address=B.addr(14),
            value=0,
            **root,
        ),
        InternalCall(
            CHAIN,
            trace_index=4,
            parent_index=0,
            depth=1,
            call_type="CALLCODE",
            from_address=B.addr(11),
            to_address=B.addr(11),
            value=2,
            **root,
        ),
    ]
    write_evm_batch(engine, B.batch(CHAIN, 0, 0, transfers=transfers, internal_calls=calls))
    with engine.connect() as conn:
        links = {
            tuple(r)
            for r in conn.execute(
                select(transfer_participants.c.address, transfer_participants.c.log_index)
            )
        }
        calls_linked = {
            tuple(r)
            for r in conn.execute(
                select(
                    internal_call_participants.c.address, internal_call_participants.c.trace_index
                )
            )
        }
    assert links == {(B.addr(1), 0), (B.addr(2), 0), (B.addr(3), 1)}
    # Listed: value-carrying CALL/CALLCODE and CREATE* below the root; not the root (the
    # transaction itself, though it carries value), a zero-value call or a DELEGATECALL.
    assert calls_linked == {
        (B.addr(11), 3),
        (B.addr(14), 3),
        (B.addr(11), 4),
    }
    assert _count(engine, nft_tokens) == 0


def test_nft_tokens_queue_one_row_per_token_id(engine):
    t = B.addr(0x721)
    transfers = [
        B.transfer(
            CHAIN, 0, i, t, B.ZERO, B.addr(1), 1, standard=TokenStandard.ERC721, token_id=i % 3
        )
        for i in range(6)
    ]
    write_evm_batch(engine, B.batch(CHAIN, 0, 0, transfers=transfers))
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                nft_tokens.c.token_id, nft_tokens.c.index_status, nft_tokens.c.attempts
            ).order_by(nft_tokens.c.token_id)
        ).all()
    assert [tuple(r) for r in rows] == [(0, "pending", 0), (1, "pending", 0), (2, "pending", 0)]


def _many_txs(first: int, last: int):
    # 1,200 transactions: past the size from which PostgreSQL stages rows for COPY.
    return B.batch(CHAIN, first, last, txs_per_block=1_200 // (last - first + 1))


def test_new_blocks_go_straight_into_their_tables(engine):
    from avadata.store.writer import write_evm_batch_in

    with engine.begin() as conn:
        write_evm_batch_in(conn, _many_txs(0, 3))
        if conn.dialect.name == "postgresql":
            # New blocks: COPY into evm_txs itself, no staging table in this session.
            staged = conn.exec_driver_sql("SELECT to_regclass('pg_temp._bulk_evm_txs')").scalar()
            assert staged is None
            write_evm_batch_in(conn, _many_txs(0, 3))  # a replay stages them, skipping repeats
            staged = conn.exec_driver_sql("SELECT to_regclass('pg_temp._bulk_evm_txs')").scalar()
            assert staged is not None
    assert _count(engine, evm_blocks) == 4


def test_a_new_batch_holding_a_key_twice_is_written_once(engine, db_url):
    """The direct path cannot skip a repeated key: the batch is written again the usual way,
    ending exactly as a batch without the repeat."""
    twice = _many_txs(0, 3)
    twice.transactions.append(twice.transactions[5])
    write_evm_batch(engine, twice)
    with_repeats = dump(engine)
    with engine.begin() as conn:
        for t in reversed(list(evm_blocks.metadata.sorted_tables)):
            conn.execute(t.delete())
    write_evm_batch(engine, _many_txs(0, 3))
    assert dump(engine) == with_repeats


def _many_balances(first: int, last: int, twice: bool = False):
    """1,200 ERC-20 transfers to as many holders, then back half of them: past the size from
    which PostgreSQL stages rows for COPY, in each balance history's rows."""
    token = B.addr(0xB20)
    blocks = range(first, last + 1)
    transfers = [
        B.transfer(CHAIN, n, i, token, B.ZERO, B.addr(0x1000 + i), 10 + i)
        for n in blocks
        for i in range(1_200 // len(blocks))
    ]
    transfers += [
        B.transfer(CHAIN, last, 2_000 + i, token, B.addr(0x1000 + i), B.addr(1), 3)
        for i in range(0, 1_200 // len(blocks), 2)
    ]
    batch = B.batch(CHAIN, first, last, transfers=transfers, txs_per_block=1)
    if twice:
        batch.transactions.append(batch.transactions[1])
    return batch


def test_new_blocks_balances_go_straight_into_their_tables_too(engine, db_url):
    """The balance histories are keyed by block: a new batch's rows take the direct path
    with its other rows; a batch that must be written again (a key twice) ends as one
    written once, the carried balances included (they are computed once)."""
    from avadata.store.batch_cache import Carried
    from avadata.store.prepared import prepare
    from avadata.store.writer import write_prepared_in

    carried = Carried()
    with engine.begin() as conn:
        write_prepared_in(conn, prepare(_many_balances(0, 1)), carried=carried)
        if "postgresql" in db_url:
            staged = conn.exec_driver_sql("SELECT to_regclass('pg_temp._bulk_erc20_balances')")
            assert staged.scalar() is None
        write_prepared_in(conn, prepare(_many_balances(2, 3, twice=True)), carried=carried)
    once = dump(engine)
    with engine.begin() as conn:
        for t in reversed(list(evm_blocks.metadata.sorted_tables)):
            conn.execute(t.delete())
    write_evm_batch(engine, _many_balances(0, 1))
    write_evm_batch(engine, _many_balances(2, 3))
    assert dump(engine)["erc20_balances"] == once["erc20_balances"]
    assert len(once["erc20_balances"]) > 1_200
