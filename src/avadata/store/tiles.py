"""Copies of a synthetic chain's first blocks further up the chain, made by the server:
how `avadata bench api` builds a 10M-transaction PostgreSQL store in minutes.

Stage: store (SQL of the benchmarks' synthetic store, `bench/api_store.py`). PostgreSQL only:
`available(conn)` says whether it runs.

The writer builds a first segment of S blocks (blocks 0 to S-1, one leaf per partitioned
table: `partitions.ensure(..., width=S)` before the first batch). Copy k (1, 2, ...) is that
segment moved k*S blocks up: each partitioned table's copy is loaded into a new leaf with one
INSERT ... SELECT from the segment's leaf and then attached (its indexes built once, by the
attach); the other tables (blocks, balance histories, NFT owners and queue, contracts) get
their copies with one INSERT ... SELECT each, in key order. Each copy is two transactions,
the leaves' and the other tables', run two at a time (one server process each).

What moves with a copy, so that every key stays unique and every list stays ordered: block
numbers and timestamps; hashes (the synthetic chain writes the block number into hex digits
23-38 of every block and transaction hash, `api_store._hash`); cumulative tx counts and
nonces (by the segment's transactions); ERC-721 token ids (by the segment's largest) and the
created contracts' addresses (their counter, in the last 16 hex digits, by the segment's
count). Balances are copied as they are: the benchmark measures serving, not accounting.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sqlalchemy import Connection, Engine

from avadata.store import dialect, partitions
from avadata.store.schema import metadata

# An expression shifting the number in a hex string's digits `at`..`at`+15 (1-based, "0x"
# included) by `by`.
_SHIFT = (
    "overlay({col} placing lpad(to_hex(('x' || substr({col}, {at}, 16))::bit(64)::bigint"
    " + {by}), 16, '0') from {at} for 16)"
)
_BLOCKS = "g.k * %(blocks)s"


def _hash(col: str, by: str = _BLOCKS) -> str:
    return _SHIFT.format(col=col, at=23, by=by)


# Per column name, its value in copy k (`g.k`); columns not named are copied as they are.
_MOVED: dict[str, str] = {
    "number": f"number + {_BLOCKS}",
    "block_number": f"block_number + {_BLOCKS}",
    "timestamp": "timestamp + g.k * %(seconds)s",
    "block_timestamp": "block_timestamp + g.k * %(seconds)s",
    "hash": _hash("hash"),
    "block_hash": _hash("block_hash"),
    "tx_hash": _hash("tx_hash"),
    # The parent of block n + d is block n + d - 1: the block's own hash moved one less.
    "parent_hash": _hash("hash", f"{_BLOCKS} - 1"),
    "cumulative_txs": "cumulative_txs + g.k * %(txs)s",
    "nonce": "nonce + g.k * %(txs)s",
}
# Per table, columns moved otherwise, and which of the segment's rows are copied.
_OWN: dict[str, dict[str, str]] = {
    "token_transfers": {
        "token_id": "CASE WHEN standard = 'ERC-721' THEN token_id + g.k * %(nfts)s "
        "ELSE token_id END"
    },
    "erc721_owners": {"token_id": "token_id + g.k * %(nfts)s"},
    "nft_tokens": {"token_id": "token_id + g.k * %(nfts)s"},
    "contracts": {"address": _SHIFT.format(col="address", at=27, by="g.k * %(contracts)s")},
}
_WHERE: dict[str, str] = {
    "evm_blocks": "number < %(blocks)s",
    "nft_tokens": "standard = 'ERC-721' AND token_id <= %(nfts)s",
}
_WHOLE = (
    "evm_blocks",
    "erc20_balances",
    "erc1155_balances",
    "erc721_owners",
    "nft_tokens",
    "contracts",
    "native_balances",
)


@dataclass(frozen=True, slots=True)
class Segment:
    """The first S blocks of the chain, as the copies move them."""

    chain_id: int
    blocks: int
    seconds_per_block: int
    txs: int = 0
    nfts: int = 0
    contracts: int = 0

    def params(self, k: int) -> dict[str, int]:
        return {
            "chain": self.chain_id,
            "k": k,
            "blocks": self.blocks,
            "seconds": self.blocks * self.seconds_per_block,
            "txs": self.txs,
            "nfts": self.nfts,
            "contracts": self.contracts,
        }


def available(engine: Engine) -> bool:
    """True when copies can be made on this store (PostgreSQL, partitioned)."""
    with engine.connect() as conn:
        return dialect.has_partitions(conn)


def copy_segment(engine: Engine, chain_id: int, blocks: int, copies: int, seconds: int) -> None:
    """Add `copies` copies of blocks 0..`blocks`-1 of `chain_id` above them, one transaction
    each, then move the chain's cursor to the last block."""
    with engine.connect() as conn:
        seg = _measure(conn, Segment(chain_id, blocks, seconds))

    def run(step: Callable[[Connection, Segment, int], None], k: int) -> None:
        with engine.begin() as conn:
            # The attach builds each leaf's indexes: give the sorts room.
            conn.exec_driver_sql("SET LOCAL maintenance_work_mem = '512MB'")
            conn.exec_driver_sql("SET LOCAL synchronous_commit = off")
            step(conn, seg, k)

    # Two server processes at work: each INSERT ... SELECT runs on one core.
    with ThreadPoolExecutor(2) as pool:
        steps = [(step, k) for k in range(1, copies + 1) for step in (_copy_leaves, _copy_whole)]
        for done in [pool.submit(run, step, k) for step, k in steps]:
            done.result()
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE cursors SET (block_number, block_hash) = (SELECT number, hash FROM "
            "evm_blocks WHERE chain_id = %(c)s ORDER BY number DESC LIMIT 1) "
            "WHERE chain_id = %(c)s",
            {"c": chain_id},
        )


def _measure(conn: Connection, seg: Segment) -> Segment:
    one = {"c": seg.chain_id, "b": seg.blocks}

    def scalar(sql: str) -> int:
        return int(conn.exec_driver_sql(sql, one).scalar() or 0)

    return Segment(
        seg.chain_id,
        seg.blocks,
        seg.seconds_per_block,
        txs=scalar("SELECT count(*) FROM evm_txs WHERE chain_id = %(c)s AND block_number < %(b)s"),
        nfts=scalar("SELECT max(token_id) FROM erc721_owners WHERE chain_id = %(c)s"),
        contracts=scalar("SELECT count(*) FROM contracts WHERE chain_id = %(c)s"),
    )


def _select(conn: Connection, table: str, source: str) -> str:
    """SELECT of copy `g.k` of `source`'s rows (the segment's) in `table`'s column order."""
    cols = (
        conn.exec_driver_sql(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass "
            "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            (f'"{table}"',),
        )
        .scalars()
        .all()
    )
    own = _OWN.get(table, {})
    values = ", ".join(own.get(c, _MOVED.get(c, c)) for c in cols)
    where = "chain_id = %(chain)s"
    order = ""
    if table not in partitions.PARTITIONED:
        where += " AND " + _WHERE.get(table, "block_number < %(blocks)s")
        # In key order: each row lands beside the last in the key's index instead of anywhere
        # in it (random inserts into the balance histories' key were most of a copy's time).
        key = [cols.index(c.name) + 1 for c in metadata.tables[table].primary_key.columns]
        order = " ORDER BY " + ", ".join(map(str, key))
    select = f'SELECT {values} FROM "{source}" CROSS JOIN (SELECT %(k)s::bigint AS k) g'
    return f"{select} WHERE {where}{order}"


def _copy_leaves(conn: Connection, seg: Segment, k: int) -> None:
    """Copy k of the partitioned tables: a new leaf each, filled, then attached."""
    params = seg.params(k)
    lo, hi = k * seg.blocks, (k + 1) * seg.blocks
    for table in partitions.PARTITIONED:
        source = partitions.leaf_name(table, seg.chain_id, 0)
        sql = _select(conn, table, source)

        def fill(leaf: str, sql: str = sql) -> None:
            conn.exec_driver_sql(f'INSERT INTO "{leaf}" {sql}', params)

        partitions.add_filled_leaf(conn, table, seg.chain_id, lo, hi, fill)


def _copy_whole(conn: Connection, seg: Segment, k: int) -> None:
    """Copy k of the other tables' rows."""
    params = seg.params(k)
    for table in _WHOLE:
        conn.exec_driver_sql(f'INSERT INTO "{table}" {_select(conn, table, table)}', params)
