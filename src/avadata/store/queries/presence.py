"""Whether an address appears on a chain at all (listAddressChains), and each chain's indexing
progress (the health check).

Stage: store. Presence is a handful of index probes, each stopping at the first row: the
address as a sender or receiver, a transfer party, an internal-call party, a native balance
holder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, and_, bindparam, exists, or_, select

from avadata.store.cursors import EVM_SOURCE
from avadata.store.queries.chains import ChainRow, chain_row
from avadata.store.queries.keyset import AnyRow, fetch
from avadata.store.schema import (
    chains,
    cursors,
    evm_blocks,
    evm_txs,
    internal_call_participants,
    native_balances,
    transfer_participants,
)

_ADDRESS: Any = bindparam("address")


def _seen(chain: Any) -> Any:
    """True when the store holds anything of :address on `chain`: each probe stops at the
    first row of an index."""
    probes = (
        (evm_txs, "from_address"),
        (evm_txs, "to_address"),
        (transfer_participants, "address"),
        (internal_call_participants, "address"),
        (native_balances, "address"),
    )
    return or_(
        *(exists().where(t.c.chain_id == chain, t.c[column] == _ADDRESS) for t, column in probes)
    )


# listAddressChains in one statement: the chains, each kept when the address is seen on it.
_CHAINS_SEEN = select(chains).where(_seen(chains.c.chain_id)).order_by(chains.c.chain_id)


def chains_seen(conn: Connection, address: str) -> list[ChainRow]:
    """The chains (by chain ID) the store holds anything of `address` (lower-case) on."""
    return [chain_row(r) for r in fetch(conn, _CHAINS_SEEN, {"address": address})]


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
