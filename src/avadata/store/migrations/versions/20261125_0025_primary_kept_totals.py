"""The primary writer's kept reads: the running burn totals per asset and chain
(primary_burn_totals, getAvaxSupply) and the reward UTXOs keyed by their period's reward
addresses and node ID (primary_reward_keys, listHistoricalPrimaryNetworkRewards), and a count
of the node's staker snapshots (primary_snapshot_counts: listValidators keeps its uptime
ranking per snapshot); an index of the validation periods by their end (listValidators by
timeRemaining).

Why: getAvaxSupply summed every tx's burn and the historical rewards list scanned every UTXO
per request. Both tables are filled here from the rows already stored (the writer keeps them
from then on, store/primary/kept.py).

Revision ID: 20261125_0025
Revises: 20261125_0024
"""

from __future__ import annotations

import orjson
import sqlalchemy as sa
from alembic import op

from avadata.store.coltypes import U256

revision: str = "20261125_0025"
down_revision: str | None = "20261125_0024"
branch_labels: str | None = None
depends_on: str | None = None

_burns = sa.table(
    "primary_tx_burns",
    sa.column("asset_id", sa.String),
    sa.column("blockchain_id", sa.String),
    sa.column("burned", sa.BigInteger),
    sa.column("l1_deposit", sa.BigInteger),
)
_utxos = sa.table(
    "primary_utxos",
    sa.column("utxo_id", sa.String),
    sa.column("tx_hash", sa.String),
    sa.column("reward_type", sa.String),
    sa.column("block_timestamp", sa.BigInteger),
)
_periods = sa.table(
    "primary_validations",
    sa.column("tx_hash", sa.String),
    sa.column("node_id", sa.String),
    sa.column("reward_addresses", sa.Text),
)


def upgrade() -> None:
    totals = op.create_table(
        "primary_burn_totals",
        sa.Column("asset_id", sa.String(64), nullable=False),
        sa.Column("blockchain_id", sa.String(64), nullable=False),
        sa.Column("burned", U256(), nullable=False),
        sa.Column("l1_deposit", U256(), nullable=False),
        sa.PrimaryKeyConstraint("asset_id", "blockchain_id", name=op.f("pk_primary_burn_totals")),
    )
    keys = op.create_table(
        "primary_reward_keys",
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("rewarded_at", sa.BigInteger, nullable=False),
        sa.Column("utxo_id", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint(
            "owner", "rewarded_at", "utxo_id", name=op.f("pk_primary_reward_keys")
        ),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "primary_snapshot_counts",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("taken", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_primary_snapshot_counts")),
    )
    op.create_index(
        op.f("ix_primary_validations_end_ts_tx_hash"), "primary_validations", ["end_ts", "tx_hash"]
    )
    conn = op.get_bind()
    # Summed here, not in SQL: SQLite's sum() of BIGINTs stops at 2**63.
    sums: dict[tuple[str, str], list[int]] = {}
    b = _burns.c
    for asset, chain, burned, deposit in conn.execute(
        sa.select(b.asset_id, b.blockchain_id, b.burned, b.l1_deposit)
    ):
        acc = sums.setdefault((str(asset), str(chain)), [0, 0])
        acc[0] += int(burned)
        acc[1] += int(deposit)
    if sums:
        op.bulk_insert(
            totals,
            [
                {"asset_id": a, "blockchain_id": c, "burned": s[0], "l1_deposit": s[1]}
                for (a, c), s in sorted(sums.items())
            ],
        )
    u, v = _utxos.c, _periods.c
    found = conn.execute(
        sa.select(u.utxo_id, u.block_timestamp, v.node_id, v.reward_addresses)
        .join(_periods, v.tx_hash == u.tx_hash)
        .where(u.reward_type.is_not(None))
    ).all()
    # As the writer keys them (store/primary/kept.py): the node ID, then each reward address.
    rows = [
        {"owner": owner, "rewarded_at": int(r[1]), "utxo_id": str(r[0])}
        for r in found
        for owner in dict.fromkeys([str(r[2]), *orjson.loads(r[3] or "[]")])
    ]
    if rows:
        op.bulk_insert(keys, rows)


def downgrade() -> None:
    op.drop_index(op.f("ix_primary_validations_end_ts_tx_hash"), table_name="primary_validations")
    op.drop_table("primary_snapshot_counts")
    op.drop_table("primary_reward_keys")
    op.drop_table("primary_burn_totals")
