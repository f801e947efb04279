"""Point reads the tests, the API and the indexer share: balances at a block, NFT owners, blocks,
the tokens a chain has metadata for.

Stage: store. Each function takes a Connection (the caller chooses the transaction) and returns
records or Python ints; list endpoints live in `store/queries/` as keyset queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, select

from avadata.records import Block
from avadata.store.balances import ZERO_ADDRESS
from avadata.store.schema import (
    erc20_balances,
    erc721_owners,
    erc1155_balances,
    evm_blocks,
    native_balances,
    tokens,
)


@dataclass(frozen=True, slots=True)
class StoredBlock:
    block: Block
    # Transactions in this block and every earlier indexed block of the chain.
    cumulative_txs: int


def _latest_at(conn: Connection, table: Table, where: list[Any], block: int | None) -> int | None:
    c = table.c
    stmt = select(c.balance).where(*where)
    if block is not None:
        stmt = stmt.where(c.block_number <= block)
    row = conn.execute(stmt.order_by(c.block_number.desc()).limit(1)).first()
    return None if row is None else int(row[0])


def erc20_balance(
    conn: Connection, chain_id: int, token: str, holder: str, block: int | None = None
) -> int:
    """`holder`'s balance of `token` after `block` (None: the latest); 0 when never held."""
    c = erc20_balances.c
    where = [c.chain_id == chain_id, c.token == token, c.holder == holder]
    return _latest_at(conn, erc20_balances, where, block) or 0


def erc1155_balance(
    conn: Connection,
    chain_id: int,
    token: str,
    token_id: int,
    holder: str,
    block: int | None = None,
) -> int:
    """`holder`'s balance of `token` id `token_id` after `block` (None: the latest); 0 if none."""
    c = erc1155_balances.c
    where = [c.chain_id == chain_id, c.token == token, c.token_id == token_id, c.holder == holder]
    return _latest_at(conn, erc1155_balances, where, block) or 0


def native_balance(
    conn: Connection, chain_id: int, address: str, block: int | None = None
) -> int | None:
    """Native balance after the latest recorded block <= `block`; None when none is recorded.

    Native balances are snapshots (eth_getBalance), not derived: absence means unknown.
    """
    c = native_balances.c
    where = [c.chain_id == chain_id, c.address == address]
    return _latest_at(conn, native_balances, where, block)


def erc721_owner(conn: Connection, chain_id: int, token: str, token_id: int) -> str | None:
    """The current owner, or None when the token was burnt or never seen."""
    c = erc721_owners.c
    owner = conn.execute(
        select(c.owner).where(c.chain_id == chain_id, c.token == token, c.token_id == token_id)
    ).scalar_one_or_none()
    return None if owner is None or owner == ZERO_ADDRESS else str(owner)


def _stored_block(row: Any) -> StoredBlock:
    return StoredBlock(
        block=Block(
            chain_id=int(row.chain_id),
            number=int(row.number),
            hash=row.hash,
            parent_hash=row.parent_hash,
            timestamp=int(row.timestamp),
            gas_used=int(row.gas_used),
            gas_limit=int(row.gas_limit),
            base_fee=row.base_fee,
            tx_count=int(row.tx_count),
            miner=row.miner,
            fees_spent=row.fees_spent,
        ),
        cumulative_txs=int(row.cumulative_txs),
    )


def block_by_number(conn: Connection, chain_id: int, number: int) -> StoredBlock | None:
    c = evm_blocks.c
    row = conn.execute(select(evm_blocks).where(c.chain_id == chain_id, c.number == number)).first()
    return None if row is None else _stored_block(row)


def block_by_hash(conn: Connection, chain_id: int, block_hash: str) -> StoredBlock | None:
    """Lookup by hash; `block_hash` must be lower-case like every stored hash."""
    c = evm_blocks.c
    row = conn.execute(
        select(evm_blocks).where(c.chain_id == chain_id, c.hash == block_hash)
    ).first()
    return None if row is None else _stored_block(row)


def latest_block(conn: Connection, chain_id: int) -> StoredBlock | None:
    c = evm_blocks.c
    row = conn.execute(
        select(evm_blocks).where(c.chain_id == chain_id).order_by(c.number.desc()).limit(1)
    ).first()
    return None if row is None else _stored_block(row)


def known_tokens(conn: Connection, chain_id: int) -> set[str]:
    """The addresses of `chain_id`'s tokens whose metadata is stored (the indexer asks the node
    for the others')."""
    t = tokens.c
    return {r[0] for r in conn.execute(select(t.address).where(t.chain_id == chain_id))}
