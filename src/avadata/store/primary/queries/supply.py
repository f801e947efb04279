"""The reads behind getAvaxSupply: the node's supply anchor, what txs burned per chain, what
L1 validator balances took in, hold and gave back, the C-chain's EVM fees, and the UTXOs
still under a locktime.

Stage: store. Sums of U256 columns are added in Python (SQLite has no wide integers); the
rows they come from are few (L1 validators, refunds, monthly metric buckets, locked UTXOs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, func, literal_column, select

from avadata.records.primary import PRIMARY_SUBNET
from avadata.store.primary.queries.addresses import unspent
from avadata.store.schema import (
    metric_sums,
    primary_burn_totals,
    primary_l1_refunds,
    primary_l1_validator_live,
    primary_supply,
    primary_tx_burns,
    primary_utxos,
)


def anchor(conn: Connection) -> Any:
    """The node's last supply (supply, height) and the replay's start supply, or None."""
    s = primary_supply.c
    return conn.execute(
        select(s.supply, s.height, s.start_supply).where(s.subnet_id == PRIMARY_SUBNET)
    ).first()


def fee_asset(conn: Connection) -> str | None:
    """AVAX's asset ID as the store knows it: the P-chain burns nothing else."""
    b = primary_tx_burns.c
    return conn.execute(
        select(b.asset_id).where(b.blockchain_id == "P").limit(1)
    ).scalar_one_or_none()


def burns(conn: Connection, asset_id: str) -> dict[str, tuple[int, int]]:
    """Chain -> (burned, put into L1 validator balances) of one asset, summed over every tx:
    the recomputation the tests hold the writer's kept totals to (store/primary/kept.py);
    getAvaxSupply reads those."""
    b = primary_tx_burns.c
    stmt = (
        select(b.blockchain_id, func.sum(b.burned), func.sum(b.l1_deposit))
        .where(b.asset_id == asset_id)
        .group_by(b.blockchain_id)
    )
    return {str(k): (int(burned or 0), int(dep or 0)) for k, burned, dep in conn.execute(stmt)}


def burn_totals(conn: Connection, asset_id: str) -> dict[str, tuple[int, int]]:
    """`burns`, as the primary writer keeps it (store/primary/kept.py): a row per chain."""
    t = primary_burn_totals.c
    stmt = select(t.blockchain_id, t.burned, t.l1_deposit).where(t.asset_id == asset_id)
    return {str(c): (int(b), int(d)) for c, b, d in conn.execute(stmt)}


def l1_balances_left(conn: Connection) -> int:
    """nAVAX the L1 validators hold for their continuous fee (the node's last answers)."""
    live = primary_l1_validator_live.c
    return sum(int(b) for (b,) in conn.execute(select(live.balance).where(~live.removed)))


def l1_refunded(conn: Connection) -> int:
    """nAVAX given back out of L1 validator balances (disables, removals) whose refund UTXO
    the store holds."""
    f, u = primary_l1_refunds.c, primary_utxos.c
    # An IN over the refunds (few): each is one primary-key search of primary_utxos.
    stmt = select(u.amount).where(u.utxo_id.in_(select(f.utxo_id)))
    return sum(int(a) for (a,) in conn.execute(stmt))


def evm_fees(conn: Connection, chain_id: int) -> int:
    """Wei an EVM chain's txs paid in fees (all burned on the C-chain), from the metrics'
    monthly sums: 0 when the chain is not indexed here."""
    m = metric_sums.c
    stmt = select(m.fees).where(m.chain_id == chain_id, m.interval == "m")
    return sum(int(fee) for (fee,) in conn.execute(stmt))


def locked_utxos(conn: Connection, now: int) -> Sequence[Any]:
    """Unspent UTXOs (P and X) under a platform or a stakeable locktime after `now`, each once;
    each condition as its partial index states it, so each read is that index's range."""
    u = primary_utxos.c
    found: dict[str, Any] = {}
    for column in (u.platform_locktime, u.stakeable_locktime):
        stmt = select(u.utxo_id, u.tx_hash, u.asset_id, u.amount, u.staked, u.created_on).where(
            # The literal 0 lets SQLite prove the partial index applies (a bound one does not).
            column > literal_column("0"),
            column > now,
            unspent(),
        )
        for r in conn.execute(stmt):
            found.setdefault(str(r.utxo_id), r)
    return list(found.values())
