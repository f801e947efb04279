"""Write one decoded EvmBatch: rows, derived data, appliers and the cursor, in ONE transaction.

Stage: store. Receives records (records.py) or batches already turned into rows
(`prepared.py`, which the indexer does in its fetch process), never fetches or decodes anything.

Invariants:
- every insert is insert-or-ignore on the natural key, so writing a batch twice leaves the same
  rows, and a crash before the commit leaves nothing of the batch (the cursor included);
- derived rows depend only on the batch and on rows *before* its first block (balances,
  cumulative tx counts), so a replay recomputes exactly what is stored;
- amounts are Python ints end to end; nothing sums a U256 column in SQL.

Ordering: derived data needs the chain's blocks to be written in order, without holes. A batch
that would leave a hole behind already-stored blocks (or fill one under later blocks) raises
`BlockGapError` before writing anything. The first batch of a chain may start at any block;
balances and cumulative_txs then count from there.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, func, select

from avadata.records import EvmBatch, TokenInfo, TokenStandard, TokenTransfer
from avadata.store import balances, dialect, partitions
from avadata.store import cursors as cursor_mod
from avadata.store import rows as R
from avadata.store.balances import ZERO_ADDRESS as ZERO_ADDRESS  # re-exported
from avadata.store.batch_cache import Carried
from avadata.store.cursors import EVM_SOURCE
from avadata.store.metrics import rows_written
from avadata.store.prepared import PreparedBatch, prepare
from avadata.store.schema import chains, evm_blocks, metadata, tokens

# An extra step run inside the batch's transaction, after the rows are written and before the
# cursor moves (so `get_cursor(conn, ...)` still shows the previous position: an applier can
# tell a replayed range from a new one). Raising aborts the whole batch.
Applier = Callable[[Connection, EvmBatch], None]


class BlockGapError(RuntimeError):
    """The batch would leave a hole in a chain's stored blocks; derived data would be wrong."""


def write_evm_batch(
    engine: Engine,
    batch: EvmBatch,
    *,
    source: str = EVM_SOURCE,
    appliers: Sequence[Applier] = (),
) -> None:
    """Write `batch` and move the (chain, source) cursor to its last block, in one transaction.

    `appliers` run in the same transaction after the rows (the metrics rollup plugs in here).
    Raises BlockGapError (nothing written) when the batch is out of order, ValueError when the
    batch lacks its last block or mixes chains.
    """
    with engine.begin() as conn:
        write_evm_batch_in(conn, batch, source=source, appliers=appliers)


def write_evm_batch_in(
    conn: Connection,
    batch: EvmBatch,
    *,
    source: str = EVM_SOURCE,
    appliers: Sequence[Applier] = (),
) -> None:
    """`write_evm_batch` inside a transaction the caller owns (it commits or rolls back)."""
    prepared = prepare(batch)
    write_prepared_in(conn, prepared, source=source, after=[bound(a, batch) for a in appliers])


def bound(step: Callable[[Connection, Any], None], value: Any) -> Callable[[Connection], None]:
    """`step` with its second argument fixed: an `after` step of `write_prepared_in`."""
    return lambda conn: step(conn, value)


def write_prepared_in(
    conn: Connection,
    batch: PreparedBatch,
    *,
    source: str = EVM_SOURCE,
    after: Sequence[Callable[[Connection], None]] = (),
    carried: Carried | None = None,
) -> None:
    """Write one prepared batch inside the caller's transaction: checks, rows, balances, the
    `after` steps (appliers), then the cursor. `carried`: what the caller's previous batches
    left (see its doc; the caller clears it when it rolls back, and hands it to the appliers
    that use it)."""
    _ensure_chain(conn, batch.chain_id, batch.has_traces)
    base_txs = _check_order_and_base(conn, batch)
    if carried is not None:
        carried.begin(batch.chain_id, batch.first_block, batch.last_block)

    # The leaves the rows go to exist before the COPY needs them, in this transaction.
    partitions.ensure(conn, batch.chain_id, batch.first_block, batch.last_block)
    # The balance histories are keyed by block too: they take the new rows' path with the
    # rest (computed first, as their priors move `carried` on).
    by_std = _by_standard(batch)
    histories = _balance_histories(conn, batch, by_std, carried)

    def write() -> None:
        _write_rows(conn, batch, base_txs)
        for spec, rows in histories:
            dialect.bulk_insert_ignore(conn, spec.table, spec.columns, rows)

    dialect.write_new_rows(conn, lambda: _above_stored(conn, batch), write)
    _write_tokens(conn, batch.chain_id, batch.tokens)
    erc721 = by_std.get(TokenStandard.ERC721.value)
    if erc721:
        balances.write_erc721_owners(conn, batch.chain_id, erc721)

    for step in after:
        step(conn)
    cursor_mod.advance_cursor(conn, batch.chain_id, source, batch.last_block, batch.last_hash)


def mark_chain(
    engine: Engine | Connection,
    chain_id: int,
    *,
    has_traces: bool | None = None,
    name: str | None = None,
    blockchain_id: str | None = None,
    subnet_id: str | None = None,
    network: str | None = None,
    rpc_url: str | None = None,
) -> None:
    """Create or update the `chains` row; a None argument keeps the stored value.

    `has_traces` given here is set as is (an operator's fix); the writer, by contrast, only
    ever turns it off (a batch without traces makes the chain's traces incomplete).
    """
    given = {
        "has_traces": has_traces,
        "name": name,
        "blockchain_id": blockchain_id,
        "subnet_id": subnet_id,
        "network": network,
        "rpc_url": rpc_url,
    }
    if network is not None and network not in ("mainnet", "testnet"):
        raise ValueError(f"network must be 'mainnet' or 'testnet', not {network!r}")
    values = {k: v for k, v in given.items() if v is not None}
    row = {"chain_id": chain_id, **values}
    if has_traces is None:
        row["has_traces"] = True  # a new chain is presumed traced until a batch says otherwise

    def run(conn: Connection) -> None:
        if values:
            stmt = dialect.upsert(
                conn,
                chains,
                keys=("chain_id",),
                set_=lambda ex: {k: getattr(ex, k) for k in values},
            )
        else:
            stmt = dialect.insert_or_ignore(conn, chains)
        conn.execute(stmt, row)

    if isinstance(engine, Connection):
        run(engine)
    else:
        with engine.begin() as conn:
            run(conn)


# -- checks ---------------------------------------------------------------------------------


def _ensure_chain(conn: Connection, chain_id: int, has_traces: bool) -> None:
    conn.execute(_new_chain(conn), {"chain_id": chain_id, "has_traces": has_traces})
    if not has_traces:
        conn.execute(
            chains.update()
            .where(chains.c.chain_id == chain_id, chains.c.has_traces.is_(True))
            .values(has_traces=False)
        )


_new_chain = dialect.insert_or_ignore_once(chains)  # `_ensure_chain`'s, one per write


def _check_order_and_base(conn: Connection, batch: PreparedBatch) -> int:
    """Refuse out-of-order batches; return cumulative_txs of the block before the batch."""
    b = evm_blocks.c
    chain = b.chain_id == batch.chain_id
    prev = conn.execute(
        select(b.cumulative_txs).where(chain, b.number == batch.first_block - 1)
    ).scalar_one_or_none()
    if prev is not None:
        below_ok = True
    else:
        below = conn.execute(
            select(func.max(b.number)).where(chain, b.number < batch.first_block)
        ).scalar_one_or_none()
        below_ok = below is None
    if not below_ok:
        raise BlockGapError(
            f"chain {batch.chain_id}: block {batch.first_block - 1} is not stored but earlier "
            "blocks are; write batches in order"
        )
    stored_last = conn.execute(
        select(b.number).where(chain, b.number == batch.last_block)
    ).scalar_one_or_none()
    if stored_last is None:
        above = conn.execute(
            select(func.min(b.number)).where(chain, b.number > batch.last_block)
        ).scalar_one_or_none()
        if above is not None:
            raise BlockGapError(
                f"chain {batch.chain_id}: blocks from {above} are stored but "
                f"{batch.first_block}..{batch.last_block} is new; write batches in order"
            )
    return int(prev) if prev is not None else 0


def _above_stored(conn: Connection, batch: PreparedBatch) -> bool:
    """True when the chain has no stored block at or above the batch's first: no stored row
    of a table keyed by block can share a key with the batch's (a backfill's and a
    follower's batches; a replay's are not)."""
    b = evm_blocks.c
    found = conn.execute(
        select(b.number).where(b.chain_id == batch.chain_id, b.number >= batch.first_block).limit(1)
    ).first()
    return found is None


# -- rows -------------------------------------------------------------------------------------


def _write_rows(conn: Connection, batch: PreparedBatch, base_txs: int) -> None:
    bulk = dialect.bulk_insert_ignore
    blocks = []
    running = base_txs
    for row, tx_count in zip(batch.block_rows, batch.tx_counts, strict=True):
        running += tx_count
        blocks.append((*row[:-1], running))
    bulk(conn, evm_blocks, R.BLOCK_COLUMNS, blocks)
    for name, columns, rows in batch.tables:
        bulk(conn, metadata.tables[name], columns, rows)
    # The link tables, from the rows they index (rows.py): they never cross from the fetch
    # process.
    by_name = {name: rows for name, _, rows in batch.tables}
    call_links = R.call_links(by_name.get("internal_calls", ()))
    bulk(conn, metadata.tables["internal_call_participants"], R.CALL_LINK_COLUMNS, call_links)
    links = R.transfer_links(batch.transfers)
    bulk(conn, metadata.tables["transfer_participants"], R.TRANSFER_LINK_COLUMNS, links)
    written = {name: len(rows) for name, _, rows in batch.tables}
    written |= {"evm_blocks": len(blocks), "internal_call_participants": len(call_links)}
    rows_written.count(conn, str(batch.chain_id), written | {"transfer_participants": len(links)})


def _write_tokens(conn: Connection, chain_id: int, infos: Sequence[TokenInfo]) -> None:
    if not infos:
        return
    t = tokens.c
    # A later read that succeeded fills what an earlier failed call left None; never the reverse.
    stmt = dialect.upsert(
        conn,
        tokens,
        keys=("chain_id", "address"),
        set_=lambda ex: {
            "name": func.coalesce(ex.name, t.name),
            "symbol": func.coalesce(ex.symbol, t.symbol),
            "decimals": func.coalesce(ex.decimals, t.decimals),
        },
    )
    rows = {
        (i.chain_id, i.address): {
            "chain_id": i.chain_id,
            "address": i.address,
            "standard": str(i.standard),
            "name": i.name,
            "symbol": i.symbol,
            "decimals": i.decimals,
        }
        for i in infos
    }
    conn.execute(stmt, list(rows.values()))


def _by_standard(batch: PreparedBatch) -> dict[str, list[TokenTransfer]]:
    """The batch's transfers by token standard ("ERC-20", ...), in position order."""
    out: dict[str, list[TokenTransfer]] = defaultdict(list)
    for t in batch.transfer_records() if batch.transfers else ():
        out[str(t.standard)].append(t)
    return out


_HISTORIES = (
    (balances.ERC20_HISTORY, TokenStandard.ERC20.value),
    (balances.ERC1155_HISTORY, TokenStandard.ERC1155.value),
)


def _balance_histories(
    conn: Connection,
    batch: PreparedBatch,
    by_std: dict[str, list[TokenTransfer]],
    carried: Carried | None,
) -> list[tuple[balances.HistoryTable, list[tuple[Any, ...]]]]:
    """The ERC-20 and ERC-1155 balance histories' rows from the batch's transfers."""
    out = []
    for spec, standard in _HISTORIES:
        if by_std.get(standard):
            rows = balances.history_rows(
                conn, spec, batch.chain_id, batch.first_block, by_std[standard], carried
            )
            out.append((spec, rows))
    return out
