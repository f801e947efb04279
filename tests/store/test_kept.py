"""What the primary writer keeps beside the rows (store/primary/kept.py), on both engines: the
running burn totals equal the sum over every tx's burn row (getAvaxSupply's per-request
computation before them), the reward keys are each reward UTXO keyed by its period's node and
reward addresses, and a replayed history changes neither. The history is the bench's small
staking set (the devnet's P-chain simulator: validators, delegators, rewards, an L1 whose
balances are topped up and disabled), indexed through the real indexer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import Engine, delete, select, text

from avadata.bench.primary import _MemoryIndex
from avadata.bench.staking_history import SimPlatform, StakingShape, history
from avadata.indexer.primary.chain import index_chain
from avadata.records.primary import PRIMARY_SUBNET
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate, upgrade_through_history
from avadata.store.primary.queries import stakers
from avadata.store.primary.queries import supply as queries
from avadata.store.schema import (
    primary_burn_totals,
    primary_cursors,
    primary_reward_keys,
    primary_tx_burns,
    primary_utxos,
    primary_validations,
)

SHAPE = StakingShape(validators=6, delegations_per_day=8, days=15, l1_validators=4)
T0 = 1_767_225_600


@pytest.fixture(scope="module")
def chain() -> tuple[list[bytes], Any]:
    return history(1, T0, SHAPE)


def _index(engine: Engine, chain: tuple[list[bytes], Any]) -> None:
    blocks, sim = chain
    source = _MemoryIndex(blocks)
    asyncio.run(index_chain(engine, source, "P", "P", batch=64, platform=SimPlatform(sim)))


def _totals(engine: Engine) -> dict[tuple[str, str], tuple[int, int]]:
    t = primary_burn_totals.c
    with engine.connect() as conn:
        rows = conn.execute(select(t.asset_id, t.blockchain_id, t.burned, t.l1_deposit))
        return {(str(a), str(c)): (int(b), int(d)) for a, c, b, d in rows}


def _summed(engine: Engine) -> dict[tuple[str, str], tuple[int, int]]:
    """The per-request computation: every burn row, summed per asset and chain."""
    with engine.connect() as conn:
        assets = {str(a) for a in conn.execute(select(primary_tx_burns.c.asset_id)).scalars()}
        return {
            (asset, chain): sums
            for asset in assets
            for chain, sums in queries.burns(conn, asset).items()
        }


def _keys(engine: Engine) -> set[tuple[str, int, str]]:
    k = primary_reward_keys.c
    with engine.connect() as conn:
        rows = conn.execute(select(k.owner, k.rewarded_at, k.utxo_id)).all()
    return {(str(o), int(t), str(u)) for o, t, u in rows}


def _expected_keys(engine: Engine) -> set[tuple[str, int, str]]:
    """Each reward UTXO under its period's node ID and each of its reward addresses."""
    u, v = primary_utxos.c, primary_validations.c
    with engine.connect() as conn:
        rows = conn.execute(
            select(u.utxo_id, u.block_timestamp, v.node_id, v.reward_addresses)
            .join(primary_validations, v.tx_hash == u.tx_hash)
            .where(u.reward_type.is_not(None))
        ).all()
    out = set()
    for utxo, at, node, addresses in rows:
        for owner in [node, *orjson.loads(addresses)]:
            out.add((str(owner), int(at), str(utxo)))
    return out


def test_kept_reads_equal_their_recomputation_and_survive_a_replay(
    engine: Engine, chain: tuple[list[bytes], Any]
) -> None:
    _index(engine, chain)
    totals, keys = _totals(engine), _keys(engine)
    assert totals == _summed(engine)
    assert totals[next(iter(totals))][0] > 0
    assert any(d > 0 for _, d in totals.values())  # the L1's balances
    assert keys == _expected_keys(engine)
    assert {o for o, _, _ in keys if o.startswith("NodeID-")}
    assert {o for o, _, _ in keys if o.startswith("P-")}
    # A replay of the whole history (the cursor gone, as after a crash before its commit
    # in a store that had committed the rows) adds nothing.
    with engine.begin() as conn:
        conn.execute(delete(primary_cursors))
    _index(engine, chain)
    assert _totals(engine) == totals and _keys(engine) == keys
    _pages_walk_each_key_in_order(engine)


def _pages_walk_each_key_in_order(engine: Engine) -> None:
    """Pages of 3 by node IDs, by reward addresses and by both (each condition holding)
    give, in order, what a filter over every reward UTXO gives."""
    u, v = primary_utxos.c, primary_validations.c
    with engine.connect() as conn:
        every = conn.execute(
            select(u.utxo_id, u.block_timestamp, v.node_id, v.reward_addresses)
            .join(primary_validations, v.tx_hash == u.tx_hash)
            .where(u.reward_type.is_not(None), v.subnet_id == PRIMARY_SUBNET)
        ).all()
    nodes = sorted({str(r.node_id) for r in every})[:3]
    # the owners of the first node's periods, and one other
    owners = sorted({a for r in every for a in orjson.loads(r.reward_addresses)})[:1]
    owners += [a for r in every if r.node_id == nodes[0] for a in orjson.loads(r.reward_addresses)]
    for f in (
        stakers.PeriodFilter(kinds=("validator", "delegator"), node_ids=tuple(nodes)),
        stakers.PeriodFilter(
            kinds=("validator", "delegator"), reward_addresses=tuple(sorted(set(owners)))
        ),
        stakers.PeriodFilter(
            kinds=("validator", "delegator"),
            node_ids=tuple(nodes[:1]),
            reward_addresses=tuple(sorted(set(owners))),
        ),
    ):
        for desc in (True, False):
            want = sorted(
                (
                    (int(r.block_timestamp), str(r.utxo_id))
                    for r in every
                    if (not f.node_ids or r.node_id in f.node_ids)
                    and (
                        not f.reward_addresses
                        or set(orjson.loads(r.reward_addresses)) & set(f.reward_addresses)
                    )
                ),
                reverse=desc,
            )
            got: list[tuple[int, str]] = []
            after = None
            with engine.connect() as conn:
                while True:
                    page = stakers.reward_utxos(conn, f, after, 3, desc=desc)
                    got += [(int(r.rewarded_at), str(r.utxo_id)) for r in page]
                    if len(page) < 3:
                        break
                    after = got[-1]
            assert got == want and want, (f, desc)


def test_the_revision_fills_both_from_the_stored_rows(tmp_path: Path) -> None:
    """A store at revision 0021 with burn and reward rows gets its totals and keys."""
    eng = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with eng.begin() as conn:
        upgrade_through_history(conn, "20261125_0021")
        conn.execute(
            text("INSERT INTO primary_tx_burns VALUES (:a, :c, :t, :b, :d)"),
            [
                {"a": "avax", "c": "P", "t": "t1", "b": 2**62, "d": 5},
                {"a": "avax", "c": "P", "t": "t2", "b": 2**62, "d": 0},
                {"a": "avax", "c": "X", "t": "t3", "b": 7, "d": 0},
            ],
        )
        conn.execute(
            text(
                "INSERT INTO primary_validations (tx_hash, kind, node_id, subnet_id,"
                " amount_staked, start_ts, end_ts, reward_addresses, block_timestamp)"
                " VALUES ('s1', 'validator', 'NodeID-a', 'p', 1, 0, 9, :addr, 0)"
            ),
            {"addr": '["P-fuji1x", "P-fuji1y"]'},
        )
        conn.execute(
            text(
                "INSERT INTO primary_utxos (utxo_id, created_on, tx_hash, output_index,"
                " asset_id, amount, addresses, threshold, platform_locktime, staked,"
                " reward_type, utxo_bytes, block_number, block_timestamp) VALUES"
                " ('u1', 'P', 's1', 3, 'avax', 1, '[]', 1, 0, 0, 'VALIDATOR', '', 4, 40),"
                " ('u2', 'P', 's1', 0, 'avax', 1, '[]', 1, 0, 0, NULL, '', 1, 10)"
            )
        )
    migrate(eng)
    assert _totals(eng) == {("avax", "P"): (2**63, 5), ("avax", "X"): (7, 0)}
    assert _keys(eng) == {("NodeID-a", 40, "u1"), ("P-fuji1x", 40, "u1"), ("P-fuji1y", 40, "u1")}
    eng.dispose()
