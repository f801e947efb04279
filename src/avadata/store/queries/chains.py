"""The chains table: lookup by EVM chain ID or blockchain ID, and the listing.

Stage: store.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, select

from avadata.store.queries.keyset import AnyRow
from avadata.store.schema import chains


@dataclass(frozen=True, slots=True)
class ChainRow:
    chain_id: int
    name: str | None
    blockchain_id: str | None
    subnet_id: str | None
    network: str | None
    rpc_url: str | None
    has_traces: bool


def _row(r: AnyRow) -> ChainRow:
    return ChainRow(
        chain_id=int(r.chain_id),
        name=r.name,
        blockchain_id=r.blockchain_id,
        subnet_id=r.subnet_id,
        network=r.network,
        rpc_url=r.rpc_url,
        has_traces=bool(r.has_traces),
    )


def find_chain(conn: Connection, key: str) -> ChainRow | None:
    """`key` is a decimal EVM chain ID or a blockchain ID (cb58), as the path carries it."""
    c = chains.c
    # isascii: str.isdigit() also holds for digits int() refuses ("²").
    if key.isascii() and key.isdigit() and len(key) <= 18:
        stmt = select(chains).where(c.chain_id == int(key))
    else:
        stmt = select(chains).where(c.blockchain_id == key)
    row = conn.execute(stmt).first()
    return None if row is None else _row(row)


def list_chains(conn: Connection, network: str | None = None) -> list[ChainRow]:
    """Every chain, by chain ID; `network` ("mainnet" or "testnet") filters."""
    stmt = select(chains).order_by(chains.c.chain_id)
    if network is not None:
        stmt = stmt.where(chains.c.network == network)
    return [_row(r) for r in conn.execute(stmt)]
