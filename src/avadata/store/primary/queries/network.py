"""The P-chain txs that define subnets and blockchains (creation, ownership transfers, L1
conversions), oldest first: what the subnet and blockchain listings fold.

A scan of the P-chain's txs filtered by type (no index holds tx types): the listings are small
and rarely asked; `avadata bench primary` should time them on a long P-chain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select

from avadata.store.schema import primary_txs

DEFINING = (
    "CreateSubnetTx",
    "CreateChainTx",
    "TransferSubnetOwnershipTx",
    "ConvertSubnetToL1Tx",
)


def defining_txs(conn: Connection) -> Sequence[Any]:
    t = primary_txs.c
    stmt = (
        select(t.tx_hash, t.tx_type, t.block_number, t.block_timestamp, t.body)
        .where(t.blockchain_id == "P", t.tx_type.in_(DEFINING))
        .order_by(t.block_timestamp, t.block_number, t.tx_index)
    )
    return conn.execute(stmt).all()
