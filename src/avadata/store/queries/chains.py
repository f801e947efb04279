"""The chains table: lookup by EVM chain ID or blockchain ID, and the listing; the network
whose primary network the store holds.

Stage: store.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, select

from avadata.store.queries.keyset import AnyRow, fetch
from avadata.store.schema import chains, networks


@dataclass(frozen=True, slots=True)
class ChainRow:
    chain_id: int
    name: str | None
    blockchain_id: str | None
    subnet_id: str | None
    network: str | None
    rpc_url: str | None
    has_traces: bool
    network_id: int | None = None
    vm_name: str | None = None
    token_name: str | None = None
    token_symbol: str | None = None
    token_decimals: int | None = None
    token_logo: str | None = None
    explorer_url: str | None = None


def chain_row(r: AnyRow) -> ChainRow:
    return ChainRow(
        chain_id=int(r.chain_id),
        name=r.name,
        blockchain_id=r.blockchain_id,
        subnet_id=r.subnet_id,
        network=r.network,
        rpc_url=r.rpc_url,
        has_traces=bool(r.has_traces),
        network_id=None if r.network_id is None else int(r.network_id),
        vm_name=r.vm_name,
        token_name=r.token_name,
        token_symbol=r.token_symbol,
        token_decimals=None if r.token_decimals is None else int(r.token_decimals),
        token_logo=r.token_logo,
        explorer_url=r.explorer_url,
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
    return None if row is None else chain_row(row)


# Built once: the all-chains lists read it at every request.
_ALL = select(chains).order_by(chains.c.chain_id)


def list_chains(conn: Connection) -> list[ChainRow]:
    """Every chain, by chain ID (the API filters by network: networks.matches)."""
    return [chain_row(r) for r in fetch(conn, _ALL, {})]


def primary_network(conn: Connection) -> int | None:
    """The network whose primary network (P, X, C) the primary tables hold, if recorded."""
    n = networks.c
    found = conn.execute(select(n.network_id).where(n.has_primary.is_(True))).scalar()
    return None if found is None else int(found)
