"""Reads and the prior-balance lookup are index seeks on both engines, never table scans."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event

from avadata.store import dialect, reads, write_evm_batch
from avadata.store.queries import tx_detail
from avadata.store.queries.evm_txs import list_latest
from avadata.store.schema import erc20_balances, erc1155_balances, metadata
from tests.store import builders as B

CHAIN = 43113
TABLES = set(metadata.tables)


def _explain_all(conn, run):
    """Run `run(conn)`, then EXPLAIN every SELECT it sent, with the same parameters."""
    sent = []

    def capture(_conn, _cursor, statement, parameters, _context, _many):
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):
            sent.append((statement, parameters))

    event.listen(conn, "before_cursor_execute", capture)
    try:
        run(conn)
    finally:
        event.remove(conn, "before_cursor_execute", capture)
    assert sent
    plans = []
    sqlite = conn.dialect.name == "sqlite"
    if not sqlite:
        # Tiny test tables make a sequential scan cheapest; ask what the planner can do instead.
        conn.exec_driver_sql("SET enable_seqscan = off")
    for statement, params in sent:
        prefix = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
        rows = conn.exec_driver_sql(prefix + statement, params).all()
        plans.append("\n".join(str(r[-1]) for r in rows))
    return plans


def _scans(plan: str) -> list[str]:
    """Full scans of a stored table. SQLite names tables by their alias, so any SCAN counts
    except the VALUES list `k` of latest_before, the one-row CTE `found` of a transaction's
    details (its position, found by an index: the plan shows that SEARCH too) and SQLite's
    constant-row co-routines."""
    bad = []
    for line in plan.splitlines():
        line = line.strip()
        pg = re.search(r"Seq Scan on (\w+)", line)
        lite = re.match(r"SCAN (\w+)(.*)", line)
        if pg and pg.group(1) in TABLES:
            bad.append(line)
        elif lite and lite.group(1) not in ("k", "found") and "CONSTANT ROW" not in line:
            bad.append(line)
    return bad


def test_scan_detection():
    assert _scans("SCAN t") == ["SCAN t"]
    assert _scans("->  Seq Scan on erc20_balances t  (cost=0..1)") != []
    assert _scans("SEARCH t USING PRIMARY KEY (chain_id=?)\nSCAN k\nSCAN 2 CONSTANT ROWS") == []


@pytest.fixture
def filled(engine):
    t20, t1155, t721 = B.addr(0xA20), B.addr(0x1155), B.addr(0x721)
    transfers = [
        B.transfer(CHAIN, 0, 0, t20, B.ZERO, B.addr(1), 5),
        B.transfer(CHAIN, 0, 1, t1155, B.ZERO, B.addr(1), 5, standard="ERC-1155", token_id=3),
        B.transfer(CHAIN, 0, 2, t721, B.ZERO, B.addr(1), 1, standard="ERC-721", token_id=3),
    ]
    write_evm_batch(engine, B.batch(CHAIN, 0, 3, transfers=transfers))
    return engine


@pytest.mark.parametrize(
    "name,call",
    [
        ("erc20_balance", lambda c: reads.erc20_balance(c, CHAIN, B.addr(0xA20), B.addr(1), 2)),
        (
            "erc1155_balance",
            lambda c: reads.erc1155_balance(c, CHAIN, B.addr(0x1155), 3, B.addr(1), 2),
        ),
        ("native_balance", lambda c: reads.native_balance(c, CHAIN, B.addr(1), 2)),
        ("erc721_owner", lambda c: reads.erc721_owner(c, CHAIN, B.addr(0x721), 3)),
        ("block_by_number", lambda c: reads.block_by_number(c, CHAIN, 2)),
        ("block_by_hash", lambda c: reads.block_by_hash(c, CHAIN, B.h("block", CHAIN, 2))),
        ("latest_block", lambda c: reads.latest_block(c, CHAIN)),
        (
            "tx_by_hash",
            lambda c: tx_detail.with_details(c, CHAIN, tx_hash=B.h("tx", CHAIN, 1, 0)),
        ),
        ("latest txs", lambda c: list_latest(c, CHAIN, None, None, 10)),
        ("latest successful txs", lambda c: list_latest(c, CHAIN, True, (2, 0), 10)),
        ("latest failed txs", lambda c: list_latest(c, CHAIN, False, None, 10)),
        (
            "latest_before erc20",
            lambda c: dialect.latest_before(
                c,
                erc20_balances,
                ("token", "holder"),
                "balance",
                CHAIN,
                2,
                [(B.addr(0xA20), B.addr(1)), (B.addr(0xA20), B.addr(2))],
            ),
        ),
        (
            "latest_before erc1155",
            lambda c: dialect.latest_before(
                c,
                erc1155_balances,
                ("token", "token_id", "holder"),
                "balance",
                CHAIN,
                2,
                [(B.addr(0x1155), 3, B.addr(1))],
            ),
        ),
    ],
)
def test_no_table_scans(filled, name, call):
    with filled.connect() as conn:
        for plan in _explain_all(conn, call):
            assert _scans(plan) == [], f"{name}:\n{plan}"


def test_failed_transactions_list_through_their_partial_index(filled):
    # Without it, the failed ones would be found by walking every transaction backwards.
    with filled.connect() as conn:
        for paged in (None, (2, 0)):
            (plan,) = _explain_all(conn, lambda c, p=paged: list_latest(c, CHAIN, False, p, 10))
            assert "ix_evm_txs_failed" in plan or _leaf_of_failed(conn, plan), plan


def _leaf_of_failed(conn, plan: str) -> bool:
    """True when every index the PostgreSQL plan reads is a leaf's copy of ix_evm_txs_failed
    (the partitioned evm_txs: each leaf has its own, named after the leaf)."""
    return _leaves_of(conn, plan, "ix_evm_txs_failed")


def _leaves_of(conn, plan: str, index: str) -> bool:
    """True when every index the PostgreSQL plan reads is a leaf's copy of `index` (`plan`:
    EXPLAIN's text, or index names one a line)."""
    used = re.findall(r"Index (?:Only )?Scan(?: Backward)? using (\w+)", plan)
    used = used or re.findall(r"^(\w+)$", plan, re.M)
    ancestors = "SELECT relid::regclass::text FROM pg_partition_ancestors(CAST(%s AS regclass))"
    return bool(used) and all(
        index in conn.exec_driver_sql(ancestors, (name,)).scalars().all() for name in used
    )


def test_a_transaction_is_found_by_its_hash_through_an_index(engine):
    # PostgreSQL: the hash index on the hash alone (revision 0026), the chain a filter on the
    # rows it finds; SQLite: the B-tree on (chain_id, hash). Two chains' transactions stored.
    for chain in (CHAIN, 7):
        write_evm_batch(engine, B.batch(chain, 0, 2, txs_per_block=2))
    with engine.connect() as conn:
        tx = B.h("tx", CHAIN, 1, 0)
        (plan,) = _explain_all(conn, lambda c: tx_detail.with_details(c, CHAIN, tx_hash=tx))
        if conn.dialect.name == "sqlite":
            index = "USING INDEX ix_evm_txs_chain_id_hash (chain_id=? AND hash=?)"
            assert f"SEARCH evm_txs {index}" in plan, plan
        else:
            # The CTE that finds the position by the hash (the arms then read by that key).
            found_by = plan.split("CTE found", 1)[1].split("\n  ->", 1)[0]
            on_txs = re.findall(r"Index Scan using (\w+) on evm_txs_c\d+_b\d+\b", found_by)
            on_txs += re.findall(r"Bitmap Index Scan on (evm_txs_\w+)", found_by)
            assert on_txs and _leaves_of(conn, "\n".join(on_txs), "ix_evm_txs_hash"), plan
            assert re.search(r"Index Cond: \(\(hash\)::text = ", found_by), plan
        found = tx_detail.with_details(conn, CHAIN, tx_hash=tx)
        assert found is not None and (found[0].chain_id, found[0].hash) == (CHAIN, tx)
