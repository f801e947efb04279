"""Whether an address appears on a chain at all (listAddressChains), and each chain's indexing
progress (the health check).

Stage: store. Presence is a handful of index probes, each stopping at the first row: the
address as a sender or receiver, a transfer party, an internal-call party, a native balance
holder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Exists, Table, and_, bindparam, exists, or_, select

from avadata.store.cursors import EVM_SOURCE
from avadata.store.queries.keyset import AnyRow, fetch, fetch_scalar
from avadata.store.schema import (
    cursors,
    evm_blocks,
    evm_txs,
    internal_call_participants,
    native_balances,
    transfer_participants,
)

_CHAIN: Any = bindparam("chain")
_ADDRESS: Any = bindparam("address")


def _probe(table: Table, column: str) -> Exists:
    return exists().where(table.c.chain_id == _CHAIN, table.c[column] == _ADDRESS)


_SEEN = select(
    or_(
        _probe(evm_txs, "from_address"),
        _probe(evm_txs, "to_address"),
        _probe(transfer_participants, "address"),
        _probe(internal_call_participants, "address"),
        _probe(native_balances, "address"),
    )
)


def seen_on(conn: Connection, chain_id: int, address: str) -> bool:
    """True when the store holds anything of `address` (lower-case) on the chain."""
    return bool(fetch_scalar(conn, _SEEN, {"chain": chain_id, "address": address}))


_CU = cursors.c
_B = evm_blocks.c
_PROGRESS = (
    select(_CU.chain_id, _CU.block_number, _B.timestamp)
    .select_from(
        cursors.outerjoin(
            evm_blocks, and_(_B.chain_id == _CU.chain_id, _B.number == _CU.block_number)
        )
    )
    .where(_CU.source == bindparam("source"))
    .order_by(_CU.chain_id)
)


def progress(conn: Connection) -> Sequence[AnyRow]:
    """(chain_id, block_number, timestamp) of each EVM chain's cursor: the last block whose
    rows are all committed, and its time (None when its block row is absent)."""
    return fetch(conn, _PROGRESS, {"source": EVM_SOURCE})
