"""The chains' identity and the networks the store holds: conflicts, writes, the listing.

Stage: store. `avadata index` checks the identities it gathered against the store
(`conflicts`) before writing anything, then writes them (`write_identities`) in one
transaction; the primary indexer records its network (`record_primary_network`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, Engine, func, select

from avadata import networks as nets
from avadata.records.identity import ChainIdentity
from avadata.store import dialect
from avadata.store.queries.chains import primary_network
from avadata.store.schema import chains, cursors, evm_blocks, networks

__all__ = [
    "ChainStatus",
    "chain_statuses",
    "conflicts",
    "primary_network",
    "record_network",
    "record_primary_network",
    "write_identities",
    "write_identity",
]


def conflicts(conn: Connection, identities: list[ChainIdentity]) -> list[str]:
    """What the identities contradict in the store (a chain ID bound to another blockchain ID,
    a blockchain ID bound to another chain ID, another network), one sentence each."""
    c = chains.c
    rows = conn.execute(select(c.chain_id, c.blockchain_id, c.network_id)).all()
    by_chain = {int(r.chain_id): r for r in rows}
    by_blockchain = {r.blockchain_id: int(r.chain_id) for r in rows if r.blockchain_id}
    out: list[str] = []
    for ident in identities:
        stored = by_chain.get(ident.chain_id)
        bid = ident.blockchain_id
        if stored is not None and bid and stored.blockchain_id and stored.blockchain_id != bid:
            out.append(
                f"chain {ident.chain_id} is blockchain {stored.blockchain_id} in the store, "
                f"not {bid}"
            )
        other = by_blockchain.get(bid) if bid else None
        if other is not None and other != ident.chain_id:
            out.append(f"blockchain {bid} is chain {other} in the store, not {ident.chain_id}")
        net = ident.network_id
        if stored is not None and net is not None and stored.network_id not in (None, net):
            out.append(
                f"chain {ident.chain_id} is on network {stored.network_id} in the store, not {net}"
            )
    return out


def _values(ident: ChainIdentity) -> dict[str, object]:
    """The chains row's columns `ident` says something about."""
    t = ident.token
    given: dict[str, object | None] = {
        "network_id": ident.network_id,
        "blockchain_id": ident.blockchain_id,
        "subnet_id": ident.subnet_id,
        "name": ident.name,
        "vm_name": ident.vm_name,
        "token_name": t.name,
        "token_symbol": t.symbol,
        "token_decimals": t.decimals,
        "token_logo": t.logo,
        "explorer_url": ident.explorer_url,
        "rpc_url": ident.rpc_url,
    }
    if ident.network_id is not None:
        given["network"] = "mainnet" if ident.network_id == nets.MAINNET_ID else "testnet"
    return {k: v for k, v in given.items() if v is not None}


def write_identity(conn: Connection, ident: ChainIdentity) -> None:
    """Create or re-label the chain's row: what `ident` says replaces what was stored; what
    it leaves None stays. Rows of blocks are untouched (a re-label, not a re-index)."""
    values = _values(ident)
    row = {"chain_id": ident.chain_id, "has_traces": True, **values}
    if values:
        stmt = dialect.upsert(
            conn, chains, keys=("chain_id",), set_=lambda ex: {k: getattr(ex, k) for k in values}
        )
    else:
        stmt = dialect.insert_or_ignore(conn, chains)
    conn.execute(stmt, row)
    if ident.network_id is not None:
        record_network(conn, ident.network_id)


def write_identities(engine: Engine, identities: list[ChainIdentity]) -> None:
    with engine.begin() as conn:
        for ident in identities:
            write_identity(conn, ident)


def record_network(conn: Connection, network_id: int, *, primary: bool = False) -> None:
    """Note that the store holds data of `network_id`; `primary`: its primary network."""
    n = nets.by_id(network_id)
    row = {"network_id": n.network_id, "name": n.name, "hrp": n.hrp, "has_primary": primary}
    if primary:
        conn.execute(networks.update().values(has_primary=False))
        stmt = dialect.upsert(
            conn, networks, keys=("network_id",), set_=lambda ex: {"has_primary": ex.has_primary}
        )
    else:
        stmt = dialect.insert_or_ignore(conn, networks)
    conn.execute(stmt, row)


def record_primary_network(engine: Engine, network_id: int) -> None:
    with engine.begin() as conn:
        record_network(conn, network_id, primary=True)


@dataclass(frozen=True, slots=True)
class ChainStatus:
    """A chain as `avadata chains` lists it: the row, its indexed head and its cursor."""

    chain_id: int
    network_id: int | None
    blockchain_id: str | None
    subnet_id: str | None
    name: str | None
    token_symbol: str | None
    rpc_url: str | None
    head: int | None  # the highest indexed block


def chain_statuses(conn: Connection) -> list[ChainStatus]:
    c, b = chains.c, evm_blocks.c
    head = select(func.max(b.number)).where(b.chain_id == c.chain_id).scalar_subquery()
    cursor = (
        select(func.max(cursors.c.block_number))
        .where(cursors.c.chain_id == c.chain_id)
        .scalar_subquery()
    )
    stmt = select(
        c.chain_id,
        c.network_id,
        c.blockchain_id,
        c.subnet_id,
        c.name,
        c.token_symbol,
        c.rpc_url,
        func.coalesce(cursor, head).label("head"),
    ).order_by(c.chain_id)
    return [
        ChainStatus(
            int(r.chain_id),
            None if r.network_id is None else int(r.network_id),
            r.blockchain_id,
            r.subnet_id,
            r.name,
            r.token_symbol,
            r.rpc_url,
            None if r.head is None else int(r.head),
        )
        for r in conn.execute(stmt)
    ]
