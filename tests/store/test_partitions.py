"""PostgreSQL's partitions of the large chain tables (store/partitions.py): the writer makes
each batch's leaves before its rows need them, aligned on the chain's width and around leaves
made by hand, in the batch's transaction; a rolled-back batch leaves no rows."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, text

from avadata.errors import ConfigError
from avadata.store import partitions, write_evm_batch
from tests.store import builders as B

CHAIN = 43113


def test_missing_ranges_are_aligned_and_cut_around_existing_ones():
    # A second computation of the same rule: every block in exactly one range, new ranges on
    # multiples of the width unless an existing range cuts them.
    assert partitions.missing([], 5, 13, 4) == [(4, 8), (8, 12), (12, 16)]
    assert partitions.missing([(4, 8)], 5, 9, 4) == [(8, 12)]
    assert partitions.missing([(10, 13)], 6, 16, 4) == [(4, 8), (8, 10), (13, 16), (16, 20)]
    assert partitions.missing([(0, 100)], 3, 99, 4) == []
    have = [(2, 3), (7, 9)]
    new = partitions.missing(have, 0, 20, 5)
    covered = sorted(have + new)
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:], strict=False))
    assert covered[0][0] <= 0 and covered[-1][1] > 20


@pytest.mark.parametrize("raw", ["0", "-5", "1e6", "many"])
def test_a_bad_width_is_a_config_error(monkeypatch, raw):
    monkeypatch.setenv(partitions.WIDTH_ENV, raw)
    with pytest.raises(ConfigError, match=partitions.WIDTH_ENV):
        partitions.configured_width()
    monkeypatch.setenv(partitions.WIDTH_ENV, " 2500 ")
    assert partitions.configured_width() == 2500


def _leaves(engine: Engine, table: str, chain_id: int) -> list[tuple[int, int]]:
    with engine.connect() as conn:
        found = partitions._leaves(conn, chain_id, (table,))
    return sorted(found.get(table, []))


def _count(engine: Engine, table: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


pg_only = pytest.mark.parametrize("db_url", ["postgres"], indirect=True)


@pytest.mark.postgres
@pg_only
def test_the_writer_makes_each_batchs_leaves(engine, monkeypatch):
    monkeypatch.setenv(partitions.WIDTH_ENV, "4")
    for first in range(0, 12, 3):
        write_evm_batch(engine, B.rich_batch(CHAIN, first, first + 2))
    for table in partitions.PARTITIONED:
        assert _leaves(engine, table, CHAIN) == [(0, 4), (4, 8), (8, 12)], table
    counts = {t: _count(engine, t) for t in partitions.PARTITIONED}
    assert all(counts.values()), counts
    # A leaf made by hand (blocks 12-13) stays; the writer's next leaves fit around it, and
    # keep the chain's width of 4 though the setting now says 1000.
    with engine.begin() as conn:
        partitions.add_filled_leaf(conn, "evm_txs", CHAIN, 12, 14, lambda _name: None)
    assert _leaves(engine, "evm_txs", CHAIN)[-1] == (12, 14)
    monkeypatch.setenv(partitions.WIDTH_ENV, "1000")
    write_evm_batch(engine, B.rich_batch(CHAIN, 12, 17))
    assert _leaves(engine, "evm_txs", CHAIN)[3:] == [(12, 14), (14, 16), (16, 20)]
    assert _leaves(engine, "evm_logs", CHAIN)[3:] == [(12, 16), (16, 20)]
    # A replay writes no row twice; a second chain gets its own leaves, at the new width.
    write_evm_batch(engine, B.rich_batch(CHAIN, 12, 17))
    write_evm_batch(engine, B.rich_batch(7, 0, 2))
    assert _leaves(engine, "evm_txs", 7) == [(0, 1000)]
    with engine.connect() as conn:
        per_chain = conn.execute(
            text("SELECT tableoid::regclass::text, count(*) FROM evm_txs GROUP BY 1 ORDER BY 1")
        ).all()
    assert [name for name, _ in per_chain] == [
        "evm_txs_c43113_b0",
        "evm_txs_c43113_b12",
        "evm_txs_c43113_b14",
        "evm_txs_c43113_b16",
        "evm_txs_c43113_b4",
        "evm_txs_c43113_b8",
        "evm_txs_c7_b0",
    ]


@pytest.mark.postgres
@pg_only
def test_a_failed_batch_leaves_neither_rows_nor_leaves(engine, monkeypatch):
    monkeypatch.setenv(partitions.WIDTH_ENV, "4")
    write_evm_batch(engine, B.rich_batch(CHAIN, 0, 2))

    def boom(_conn, _batch):
        raise RuntimeError("crash inside the batch")

    with pytest.raises(RuntimeError):
        write_evm_batch(engine, B.rich_batch(CHAIN, 3, 9), appliers=[boom])
    assert _leaves(engine, "evm_txs", CHAIN) == [(0, 4)]
    with engine.connect() as conn:
        top = conn.execute(text("SELECT max(block_number) FROM token_transfers")).scalar_one()
    assert top == 2
    write_evm_batch(engine, B.rich_batch(CHAIN, 3, 9))
    assert _leaves(engine, "evm_txs", CHAIN) == [(0, 4), (4, 8), (8, 12)]


@pytest.mark.postgres
@pg_only
def test_batches_inside_known_leaves_skip_the_catalog_until_a_rollback(engine, monkeypatch):
    from sqlalchemy import event

    monkeypatch.setenv(partitions.WIDTH_ENV, "10")
    asked = []

    @event.listens_for(engine, "before_cursor_execute")
    def _count(_conn, _cursor, statement, *_args):
        if "pg_inherits" in statement:
            asked.append(statement)

    write_evm_batch(engine, B.rich_batch(CHAIN, 0, 2))
    assert len(asked) == 1
    write_evm_batch(engine, B.rich_batch(CHAIN, 3, 9))  # the same leaf: known, committed
    assert len(asked) == 1
    write_evm_batch(engine, B.rich_batch(CHAIN, 10, 12))  # a new leaf: asked
    assert len(asked) == 2

    def boom(_conn, _batch):
        raise RuntimeError("crash inside the batch")

    with pytest.raises(RuntimeError):  # makes the leaf of 20-29, then rolls it back
        write_evm_batch(engine, B.rich_batch(CHAIN, 13, 22), appliers=[boom])
    assert len(asked) == 3
    write_evm_batch(engine, B.rich_batch(CHAIN, 13, 22))  # asked again: the leaf is made
    assert len(asked) == 4
    assert _leaves(engine, "evm_txs", CHAIN) == [(0, 10), (10, 20), (20, 30)]
