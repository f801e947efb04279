"""Write one decoded EvmBatch: rows, derived data, appliers and the cursor, in ONE transaction.

Stage: store. Receives records (records.py), never fetches or decodes anything.

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
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from sqlalchemy import Connection, Engine, Table, and_, func, select, tuple_

from avadata.records import (
    CREATE_OPS,
    Block,
    EvmBatch,
    InternalCall,
    TokenStandard,
    TokenTransfer,
)
from avadata.store import cursors as cursor_mod
from avadata.store import dialect
from avadata.store.cursors import EVM_SOURCE
from avadata.store.schema import (
    chains,
    contracts,
    erc20_balances,
    erc721_owners,
    erc1155_balances,
    evm_blocks,
    evm_logs,
    evm_txs,
    internal_call_participants,
    internal_calls,
    native_balances,
    nft_tokens,
    token_transfers,
    tokens,
    transfer_participants,
)

ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"

# An extra step run inside the batch's transaction, after the rows are written and before the
# cursor moves (so `get_cursor(conn, ...)` still shows the previous position: an applier can
# tell a replayed range from a new one). Raising aborts the whole batch.
Applier = Callable[[Connection, EvmBatch], None]

# Keys per prior-balance lookup: well under SQLite's 32,766 bound parameters.
_LOOKUP_CHUNK = 500
_CALL_OPS = frozenset({"CALL", "CALLCODE"})


class BlockGapError(RuntimeError):
    """The batch would leave a hole in a chain's stored blocks; derived data would be wrong."""


def is_listed_call(call: InternalCall) -> bool:
    """The Data API's internal-transaction rule: non-zero-value CALL/CALLCODE, or any CREATE."""
    op = call.call_type.upper()
    return (op in _CALL_OPS and call.value != 0) or op in CREATE_OPS


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
    last = _check_batch(batch)
    _ensure_chain(conn, batch.chain_id, batch.has_traces)
    base_txs = _check_order_and_base(conn, batch)

    _insert(conn, evm_blocks, _block_rows(batch.blocks, base_txs))
    _insert(conn, evm_txs, [_tx_row(t) for t in batch.transactions])
    _insert(conn, evm_logs, [_log_row(lg) for lg in batch.logs])
    _write_transfers(conn, batch)
    _write_internal_calls(conn, batch)
    _insert(conn, contracts, [_contract_row(c) for c in batch.contracts])
    _write_tokens(conn, batch)
    _insert(conn, native_balances, [_native_row(n) for n in batch.native_balances])

    for apply in appliers:
        apply(conn, batch)
    cursor_mod.advance_cursor(conn, batch.chain_id, source, last.number, last.hash)


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


def _check_batch(batch: EvmBatch) -> Block:
    if batch.last_block < batch.first_block:
        raise ValueError(f"empty range {batch.first_block}..{batch.last_block}")
    last: Block | None = None
    for b in batch.blocks:
        if b.chain_id != batch.chain_id or not batch.first_block <= b.number <= batch.last_block:
            raise ValueError(f"block {b.chain_id}/{b.number} outside the batch")
        if b.number == batch.last_block:
            last = b
    if last is None:
        raise ValueError(f"batch lacks its last block {batch.last_block}")
    return last


def _ensure_chain(conn: Connection, chain_id: int, has_traces: bool) -> None:
    conn.execute(
        dialect.insert_or_ignore(conn, chains), {"chain_id": chain_id, "has_traces": has_traces}
    )
    if not has_traces:
        conn.execute(
            chains.update()
            .where(chains.c.chain_id == chain_id, chains.c.has_traces.is_(True))
            .values(has_traces=False)
        )


def _check_order_and_base(conn: Connection, batch: EvmBatch) -> int:
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


# -- plain rows -------------------------------------------------------------------------------


def _insert(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    if rows:
        conn.execute(dialect.insert_or_ignore(conn, table), rows)


def _block_rows(blocks: list[Block], base_txs: int) -> list[dict[str, Any]]:
    rows = []
    running = base_txs
    for blk in sorted(blocks, key=lambda x: x.number):
        running += blk.tx_count
        rows.append(
            {
                "chain_id": blk.chain_id,
                "number": blk.number,
                "hash": blk.hash,
                "parent_hash": blk.parent_hash,
                "timestamp": blk.timestamp,
                "gas_used": blk.gas_used,
                "gas_limit": blk.gas_limit,
                "base_fee": blk.base_fee,
                "tx_count": blk.tx_count,
                "miner": blk.miner,
                "fees_spent": blk.fees_spent,
                "cumulative_txs": running,
            }
        )
    return rows


def _tx_row(t: Any) -> dict[str, Any]:
    return {
        "chain_id": t.chain_id,
        "block_number": t.block_number,
        "tx_index": t.tx_index,
        "block_hash": t.block_hash,
        "block_timestamp": t.block_timestamp,
        "hash": t.hash,
        "from_address": t.from_address,
        "to_address": t.to_address,
        "value": t.value,
        "gas_limit": t.gas_limit,
        "gas_price": t.gas_price,
        "gas_used": t.gas_used,
        "nonce": t.nonce,
        "tx_type": t.tx_type,
        "success": t.success,
        "call_type": str(t.call_type),
        "method_hash": t.method_hash,
        "method_name": t.method_name,
        "contract_address": t.contract_address,
    }


def _log_row(lg: Any) -> dict[str, Any]:
    topics = lg.topics
    n = len(topics)
    return {
        "chain_id": lg.chain_id,
        "block_number": lg.block_number,
        "log_index": lg.log_index,
        "tx_index": lg.tx_index,
        "tx_hash": lg.tx_hash,
        "address": lg.address,
        "topic0": topics[0] if n > 0 else None,
        "topic1": topics[1] if n > 1 else None,
        "topic2": topics[2] if n > 2 else None,
        "topic3": topics[3] if n > 3 else None,
        "data": lg.data,
    }


def _contract_row(c: Any) -> dict[str, Any]:
    return {
        "chain_id": c.chain_id,
        "address": c.address,
        "block_number": c.block_number,
        "block_timestamp": c.block_timestamp,
        "tx_index": c.tx_index,
        "trace_index": c.trace_index,
        "tx_hash": c.tx_hash,
        "deployer": c.deployer,
        "deployer_contract": c.deployer_contract,
        "creation_type": c.creation_type,
    }


def _native_row(n: Any) -> dict[str, Any]:
    return {
        "chain_id": n.chain_id,
        "address": n.address,
        "block_number": n.block_number,
        "balance": n.balance,
    }


def _write_tokens(conn: Connection, batch: EvmBatch) -> None:
    if not batch.tokens:
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
        for i in batch.tokens
    }
    conn.execute(stmt, list(rows.values()))


def _write_internal_calls(conn: Connection, batch: EvmBatch) -> None:
    rows = []
    links = []
    for c in batch.internal_calls:
        rows.append(
            {
                "chain_id": c.chain_id,
                "block_number": c.block_number,
                "tx_index": c.tx_index,
                "trace_index": c.trace_index,
                "block_hash": c.block_hash,
                "block_timestamp": c.block_timestamp,
                "tx_hash": c.tx_hash,
                "parent_index": c.parent_index,
                "depth": c.depth,
                "call_type": c.call_type,
                "from_address": c.from_address,
                "to_address": c.to_address,
                "value": c.value,
                "gas": c.gas,
                "gas_used": c.gas_used,
                "reverted": c.reverted,
                "error": c.error,
            }
        )
        if is_listed_call(c):
            for addr in {c.from_address, c.to_address}:
                if addr is not None:
                    links.append(
                        {
                            "chain_id": c.chain_id,
                            "address": addr,
                            "block_number": c.block_number,
                            "tx_index": c.tx_index,
                            "trace_index": c.trace_index,
                        }
                    )
    _insert(conn, internal_calls, rows)
    _insert(conn, internal_call_participants, links)


# -- transfers and what they derive ------------------------------------------------------------


def _write_transfers(conn: Connection, batch: EvmBatch) -> None:
    if not batch.transfers:
        return
    ordered = sorted(batch.transfers, key=lambda t: (t.block_number, t.log_index, t.batch_index))
    rows = []
    links = []
    for t in ordered:
        std = str(t.standard)
        rows.append(
            {
                "chain_id": t.chain_id,
                "block_number": t.block_number,
                "log_index": t.log_index,
                "batch_index": t.batch_index,
                "tx_index": t.tx_index,
                "tx_hash": t.tx_hash,
                "block_hash": t.block_hash,
                "block_timestamp": t.block_timestamp,
                "token": t.token,
                "standard": std,
                "from_address": t.from_address,
                "to_address": t.to_address,
                "token_id": t.token_id,
                "value": t.value,
                "operator": t.operator,
            }
        )
        for addr in {t.from_address, t.to_address}:
            links.append(
                {
                    "chain_id": t.chain_id,
                    "address": addr,
                    "standard": std,
                    "block_number": t.block_number,
                    "log_index": t.log_index,
                    "batch_index": t.batch_index,
                }
            )
    _insert(conn, token_transfers, rows)
    _insert(conn, transfer_participants, links)

    by_std: dict[str, list[TokenTransfer]] = defaultdict(list)
    for t in ordered:
        by_std[str(t.standard)].append(t)
    chain_id = batch.chain_id
    first = batch.first_block
    erc20 = by_std.get(TokenStandard.ERC20.value, [])
    erc1155 = by_std.get(TokenStandard.ERC1155.value, [])
    erc721 = by_std.get(TokenStandard.ERC721.value, [])
    if erc20:
        hist = _balance_history(
            erc20,
            lambda t, holder: (t.token, holder),
            lambda keys: _prior_balances(
                conn, erc20_balances, ("token", "holder"), chain_id, first, keys
            ),
        )
        _insert(
            conn,
            erc20_balances,
            [
                {
                    "chain_id": chain_id,
                    "token": k[0],
                    "holder": k[1],
                    "block_number": n,
                    "balance": v,
                }
                for (k, n), v in hist.items()
            ],
        )
    if erc1155:
        hist = _balance_history(
            erc1155,
            lambda t, holder: (t.token, t.token_id, holder),
            lambda keys: _prior_balances(
                conn, erc1155_balances, ("token", "token_id", "holder"), chain_id, first, keys
            ),
        )
        _insert(
            conn,
            erc1155_balances,
            [
                {
                    "chain_id": chain_id,
                    "token": k[0],
                    "token_id": k[1],
                    "holder": k[2],
                    "block_number": n,
                    "balance": v,
                }
                for (k, n), v in hist.items()
            ],
        )
    if erc721:
        _write_erc721_owners(conn, chain_id, erc721)
    nfts = {
        (t.token, t.token_id): str(t.standard)
        for t in (*erc721, *erc1155)
        if t.token_id is not None
    }
    _insert(
        conn,
        nft_tokens,
        [
            {"chain_id": chain_id, "token": tok, "token_id": tid, "standard": std}
            for (tok, tid), std in nfts.items()
        ],
    )


def _balance_history(
    transfers: list[TokenTransfer],
    key_of: Callable[[TokenTransfer, str], Hashable],
    prior: Callable[[list[Any]], dict[Any, int]],
) -> dict[tuple[Any, int], int]:
    """Balance after each block in which it changed, per key, from the prior stored balance.

    `transfers` are in position order. The zero address (mint source, burn sink) is no holder.
    """
    deltas: list[tuple[int, Any, int]] = []
    for t in transfers:
        if t.from_address != ZERO_ADDRESS:
            deltas.append((t.block_number, key_of(t, t.from_address), -t.value))
        if t.to_address != ZERO_ADDRESS:
            deltas.append((t.block_number, key_of(t, t.to_address), t.value))
    keys = list(dict.fromkeys(k for _, k, _ in deltas))
    running = prior(keys)
    out: dict[tuple[Any, int], int] = {}
    for block, key, delta in deltas:
        bal = running.get(key, 0) + delta
        running[key] = bal
        out[(key, block)] = bal  # the last write per (key, block) is the end-of-block balance
    return out


def _prior_balances(
    conn: Connection,
    table: Table,
    key_cols: tuple[str, ...],
    chain_id: int,
    first_block: int,
    keys: Iterable[tuple[Any, ...]],
) -> dict[tuple[Any, ...], int]:
    """Latest stored balance strictly before `first_block` for each key (absent: never held)."""
    c = table.c
    key_tuple = tuple_(*(c[k] for k in key_cols))
    inner = table.alias("earlier")
    ic = inner.c
    latest = (
        select(func.max(ic.block_number))
        .where(
            ic.chain_id == c.chain_id,
            and_(*(ic[k] == c[k] for k in key_cols)),
            ic.block_number < first_block,
        )
        .scalar_subquery()
    )
    out: dict[tuple[Any, ...], int] = {}
    key_list = list(keys)
    for i in range(0, len(key_list), _LOOKUP_CHUNK):
        chunk = key_list[i : i + _LOOKUP_CHUNK]
        stmt = select(*(c[k] for k in key_cols), c.balance).where(
            c.chain_id == chain_id, key_tuple.in_(chunk), c.block_number == latest
        )
        for row in conn.execute(stmt):
            out[tuple(row[: len(key_cols)])] = int(row[-1])
    return out


def _write_erc721_owners(conn: Connection, chain_id: int, transfers: list[TokenTransfer]) -> None:
    latest: dict[tuple[str, int], TokenTransfer] = {}
    for t in transfers:  # position order: the last one per token wins
        if t.token_id is not None:
            latest[(t.token, t.token_id)] = t
    if not latest:
        return
    o = erc721_owners.c
    stored_pos = tuple_(o.block_number, o.log_index, o.batch_index)
    stmt = dialect.upsert(
        conn,
        erc721_owners,
        keys=("chain_id", "token", "token_id"),
        set_=lambda ex: {
            "owner": ex.owner,
            "block_number": ex.block_number,
            "log_index": ex.log_index,
            "batch_index": ex.batch_index,
        },
        # The replay guard: only a strictly later transfer may change the owner.
        where=lambda ex: tuple_(ex.block_number, ex.log_index, ex.batch_index) > stored_pos,
    )
    conn.execute(
        stmt,
        [
            {
                "chain_id": chain_id,
                "token": tok,
                "token_id": tid,
                "owner": t.to_address,
                "block_number": t.block_number,
                "log_index": t.log_index,
                "batch_index": t.batch_index,
            }
            for (tok, tid), t in latest.items()
        ],
    )
