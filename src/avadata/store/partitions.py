"""The large chain tables' partitions on PostgreSQL: by chain (LIST), then by block range (RANGE).

Stage: store. On SQLite nothing here runs (`dialect.has_partitions`): its tables stay whole.

The layout (docs/store.md, docs/deploy.md): each table of `PARTITIONED` is a parent
partitioned by LIST (chain_id); a chain's partition `<table>_c<chain>` is partitioned by RANGE
(block_number); its leaves `<table>_c<chain>_b<first block>` hold the rows. Every partitioned
table keys by block, so one block range is the same leaf range in each: an operator acts on
"chain C, blocks from B" across all of them at once.

How partitions come to exist: the writer calls `ensure` for each batch's block range inside
the batch's transaction, before its COPY or INSERT, so a leaf exists exactly when the rows
needing it commit (a crash rolls both back; an empty leaf left by a rollback is harmless).
Each is a plain table attached with ATTACH PARTITION, which locks the parent in SHARE UPDATE
EXCLUSIVE mode: API readers and other chains' writers are not blocked, where CREATE TABLE ...
PARTITION OF would lock the parent exclusively until the writer commits.

A new leaf is `width` blocks, aligned on a multiple of it; a chain's width is that of its
widest leaf, so a store keeps what it started with (`AVADATA_PARTITION_BLOCKS`, read when a
chain gets its first leaf, else `DEFAULT_BLOCKS`). Leaves an operator made by hand (any
bounds) are respected: a new leaf is cut short so as not to overlap them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence

from sqlalchemy import Connection, event

from avadata.errors import ConfigError
from avadata.store import dialect

# The tables partitioned by chain and block range: the ones that grow with transactions (rows
# per transaction or more). evm_blocks (one row per block, referenced by a foreign key), the
# balance histories (read as "the latest row at or before B per key", which a block range
# would split into a probe per partition) and the keyed-by-address tables stay whole.
PARTITIONED: tuple[str, ...] = (
    "evm_txs",
    "evm_tx_inputs",
    "evm_logs",
    "token_transfers",
    "transfer_participants",
    "internal_calls",
    "internal_call_participants",
)

# Blocks per leaf when nothing else says: the C-chain's ~10-20 transactions a block make a leaf
# of evm_txs 10-20M rows, and its ~80M blocks some 80 leaves per table.
DEFAULT_BLOCKS = 1_000_000
WIDTH_ENV = "AVADATA_PARTITION_BLOCKS"

_BOUND = re.compile(r"FOR VALUES FROM \('?(-?\d+|MINVALUE)'?\) TO \('?(-?\d+|MAXVALUE)'?\)")
_LOW, _HIGH = -(2**63), 2**63 - 1


def chain_partition(table: str, chain_id: int) -> str:
    """The name of `table`'s partition for `chain_id` (itself partitioned by block range)."""
    return f"{table}_c{chain_id}"


def leaf_name(table: str, chain_id: int, first: int) -> str:
    """The name of the leaf of `table` for `chain_id` whose range starts at block `first`."""
    return f"{chain_partition(table, chain_id)}_b{first}"


_NAMES = re.compile(rf"^(?:{'|'.join(PARTITIONED)})_c\d+(?:_b\d+)?$")


def is_partition_name(name: str) -> bool:
    """True for a chain partition's or a leaf's name (`chain_partition`, `leaf_name`): the
    tables schema.py does not declare, which Alembic's autogenerate must leave alone."""
    return _NAMES.match(name) is not None


def configured_width() -> int:
    """Blocks per leaf for a chain without leaves: `AVADATA_PARTITION_BLOCKS` or the default."""
    raw = os.environ.get(WIDTH_ENV, "").strip()
    if not raw:
        return DEFAULT_BLOCKS
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"{WIDTH_ENV} must be a positive number of blocks, not {raw!r}")
    return int(raw)


def ensure(
    conn: Connection,
    chain_id: int,
    first_block: int,
    last_block: int,
    *,
    tables: Sequence[str] = PARTITIONED,
    width: int | None = None,
) -> None:
    """Make sure every table of `tables` has a leaf for each block of `chain_id` from
    `first_block` to `last_block`, in the caller's transaction. Nothing on an engine without
    partitions. `width`: blocks per new leaf for a chain that has none yet (otherwise
    `configured_width()`)."""
    if not dialect.has_partitions(conn):
        return
    key = (chain_id, tuple(tables))
    if _known(conn, key, first_block, last_block):
        return
    have = _leaves(conn, chain_id, tables)
    spans = []
    for table in tables:  # one fixed order: two writers wait for each other, never deadlock
        ranges = have.get(table)
        if ranges is None:
            _add_chain(conn, table, chain_id)
            ranges = []
        step = max((hi - lo for lo, hi in ranges if hi < _HIGH and lo > _LOW), default=0)
        step = step or width or configured_width()
        for lo, hi in missing(ranges, first_block, last_block, step):
            _add_leaf(conn, table, chain_id, lo, hi)
            ranges.append((lo, hi))
        spans.append(_run(ranges, first_block))
    _remember(conn, key, (max(a for a, _ in spans), min(b for _, b in spans)))


# What a writer connection knows to be covered, so that the batches that follow one another
# inside a leaf skip the catalog query: per (chain, tables), the blocks (from, to exclusive)
# that every table has leaves for. "pending" is what this transaction saw (its own new leaves
# included); it joins "seen" when the transaction commits and is dropped when it rolls back
# (a new leaf goes with it). A leaf detached by hand makes the next write fail, which rolls
# back and forgets everything: the retry asks the catalog again.
_SEEN = "avadata.partitions.seen"
_PENDING = "avadata.partitions.pending"
_Key = tuple[int, tuple[str, ...]]


def _known(conn: Connection, key: _Key, first: int, last: int) -> bool:
    for name in (_PENDING, _SEEN):
        span = conn.info.get(name, {}).get(key)
        if span is not None and span[0] <= first and last < span[1]:
            return True
    return False


def _remember(conn: Connection, key: _Key, span: tuple[int, int]) -> None:
    engine = conn.engine
    if not event.contains(engine, "commit", _on_commit):
        event.listen(engine, "begin", _drop_pending)
        event.listen(engine, "rollback_savepoint", _drop_pending)
        event.listen(engine, "commit", _on_commit)
        event.listen(engine, "rollback", _on_rollback)
    conn.info.setdefault(_PENDING, {})[key] = span


def _on_commit(conn: Connection) -> None:
    conn.info.setdefault(_SEEN, {}).update(conn.info.pop(_PENDING, {}))


def _drop_pending(conn: Connection, *_args: object) -> None:
    conn.info.pop(_PENDING, None)


def _on_rollback(conn: Connection) -> None:
    # All of it: the failure may have been a leaf that is no longer there.
    conn.info.pop(_PENDING, None)
    conn.info.pop(_SEEN, None)


def _run(ranges: Sequence[tuple[int, int]], block: int) -> tuple[int, int]:
    """The blocks (from, to exclusive) of the unbroken run of `ranges` that holds `block`."""
    have = sorted(ranges)
    lo, hi = next((a, b) for a, b in have if a <= block < b)
    for a, b in have:
        if a == hi:
            hi = b
    for a, b in reversed(have):
        if b == lo:
            lo = a
    return lo, hi


def missing(
    ranges: Iterable[tuple[int, int]], first: int, last: int, width: int
) -> list[tuple[int, int]]:
    """The leaves (from, to exclusive) to add so that blocks `first`..`last` are all in one:
    aligned on `width`, cut short where an existing range (from, to exclusive) begins or ends."""
    have = sorted(ranges)
    out: list[tuple[int, int]] = []
    block = first
    while block <= last:
        inside = next((hi for lo, hi in have if lo <= block < hi), None)
        if inside is not None:
            block = inside
            continue
        lo = block // width * width
        hi = lo + width
        for a, b in have:
            if b <= block:
                lo = max(lo, b)
            elif a > block:
                hi = min(hi, a)
        out.append((lo, hi))
        have.append((lo, hi))
        have.sort()
        block = hi
    return out


def _leaves(
    conn: Connection, chain_id: int, tables: Sequence[str]
) -> dict[str, list[tuple[int, int]]]:
    """{table: its chain partition's leaf ranges} for the tables whose chain partition exists."""
    names = {chain_partition(t, chain_id): t for t in tables}
    rows = conn.exec_driver_sql(
        "SELECT p.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_class p "
        "LEFT JOIN pg_inherits i ON i.inhparent = p.oid "
        "LEFT JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE p.relname = ANY(%s) AND p.relnamespace = current_schema()::regnamespace",
        (list(names),),
    ).all()
    out: dict[str, list[tuple[int, int]]] = {}
    for parent, bound in rows:
        ranges = out.setdefault(names[parent], [])
        m = _BOUND.search(bound or "")
        if m is not None:
            ranges.append((_edge(m.group(1), _LOW), _edge(m.group(2), _HIGH)))
    return out


def add_filled_leaf(
    conn: Connection, table: str, chain_id: int, lo: int, hi: int, fill: Callable[[str], None]
) -> None:
    """Add the leaf of `table` for blocks `lo` to `hi` (exclusive) of `chain_id`, whose chain
    partition exists, with the rows `fill(leaf name)` writes into it first (a bulk load)."""
    _add_leaf(conn, table, chain_id, lo, hi, fill)


def _edge(text: str, infinite: int) -> int:
    return infinite if text.endswith("VALUE") else int(text)


def _add_chain(conn: Connection, table: str, chain_id: int) -> None:
    name = chain_partition(table, chain_id)
    conn.exec_driver_sql(
        f'CREATE TABLE "{name}" (LIKE "{table}" INCLUDING DEFAULTS) '
        "PARTITION BY RANGE (block_number)"
    )
    conn.exec_driver_sql(
        f'ALTER TABLE "{table}" ATTACH PARTITION "{name}" FOR VALUES IN ({int(chain_id)})'
    )


def _add_leaf(
    conn: Connection,
    table: str,
    chain_id: int,
    lo: int,
    hi: int,
    fill: Callable[[str], None] | None = None,
) -> None:
    """A leaf of blocks `lo` to `hi` (exclusive); `fill(name)` writes its rows before it is
    attached (its indexes are then built once, by the attach, instead of row by row)."""
    name = leaf_name(table, chain_id, lo)
    parent = chain_partition(table, chain_id)
    conn.exec_driver_sql(f'CREATE TABLE "{name}" (LIKE "{table}" INCLUDING DEFAULTS)')
    if fill is not None:
        fill(name)
    conn.exec_driver_sql(
        f'ALTER TABLE "{parent}" ATTACH PARTITION "{name}" '
        f"FOR VALUES FROM ({int(lo)}) TO ({int(hi)})"
    )


# -- converting a store (revision 20261125_0024) ----------------------------------------------


def convert(conn: Connection, *, partitioned: bool, tables: Sequence[str] = PARTITIONED) -> None:
    """Rebuild `tables` partitioned (with a leaf for every block range holding rows) or whole,
    rows, primary key and indexes kept as the store had them (read from the catalog, so the
    revision does not depend on what schema.py declares later). Nothing on SQLite."""
    if not dialect.has_partitions(conn):
        return
    for table in tables:
        _rebuild(conn, table, partitioned)


def _rebuild(conn: Connection, table: str, partitioned: bool) -> None:
    old = f"_{table}_old"
    conn.exec_driver_sql(f'ALTER TABLE "{table}" RENAME TO "{old}"')
    key = conn.exec_driver_sql(
        "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conrelid = %s::regclass AND contype = 'p'",
        (old,),
    ).one()
    indexes = conn.exec_driver_sql(
        "SELECT indexname, indexdef FROM pg_indexes "
        "WHERE schemaname = current_schema() AND tablename = %s AND indexname <> %s",
        (old, key[0]),
    ).all()
    split = " PARTITION BY LIST (chain_id)" if partitioned else ""
    conn.exec_driver_sql(f'CREATE TABLE "{table}" (LIKE "{old}" INCLUDING DEFAULTS){split}')
    if partitioned:
        spans = conn.exec_driver_sql(
            f'SELECT chain_id, min(block_number), max(block_number) FROM "{old}" GROUP BY chain_id'
        ).all()
        for chain_id, first, last in spans:
            ensure(conn, chain_id, first, last, tables=(table,))
    conn.exec_driver_sql(f'INSERT INTO "{table}" SELECT * FROM "{old}"')
    conn.exec_driver_sql(f'DROP TABLE "{old}" CASCADE')
    # The key and indexes after the rows: built once over each leaf instead of row by row.
    conn.exec_driver_sql(f'ALTER TABLE "{table}" ADD CONSTRAINT "{key[0]}" {key[1]}')
    on_old = re.compile(rf' ON (?:ONLY )?(?:\w+\.)?"?{re.escape(old)}"? ')
    for _, definition in indexes:
        conn.exec_driver_sql(on_old.sub(f' ON "{table}" ', definition, count=1))
