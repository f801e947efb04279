"""`avadata bench primary` at tiny sizes: every figure of its report comes from what it
measured (counts equal the stores' rows, the deep page is the row that deep in the store's
own order), not from its parameters."""

from __future__ import annotations

import shutil
from pathlib import Path

from sqlalchemy import func, make_url, select

from avadata.bench import primary as bench
from avadata.bench.staking_history import StakingShape
from avadata.store.engine import make_engine
from avadata.store.schema import (
    primary_address_txs,
    primary_address_utxos,
    primary_cursors,
    primary_txs,
)

UTXOS, PAGE = 350, 3
# Two weeks of a small staking set: validators and delegators rewarded, an L1.
STAKERS = StakingShape(validators=12, delegations_per_day=8, days=15, l1_validators=3)


def test_report_is_computed_from_measurements() -> None:
    ingest = bench.measure_ingest(p_blocks=60, x_blocks=10, seed=2)
    folders = [Path(make_url(ingest.db).database or "").parent]
    engine = make_engine(ingest.db)
    with engine.connect() as conn:
        t = primary_txs.c
        grouped = select(t.blockchain_id, func.count()).group_by(t.blockchain_id)
        txs = {str(k): int(n) for k, n in conn.execute(grouped)}
        cur = primary_cursors.c
        cursors = {
            str(k): int(i) for k, i in conn.execute(select(cur.blockchain_id, cur.container_index))
        }
    engine.dispose()
    assert ingest.txs == txs and txs["P"] > 60
    assert ingest.containers == {k: v + 1 for k, v in cursors.items()}
    assert ingest.seconds > 0

    store = bench.build_store(UTXOS, stakers=STAKERS)
    folders.append(Path(make_url(store.db).database or "").parent)
    assert store.hot_utxos == UTXOS < store.txs
    served = bench.measure_api(
        store, PAGE, use_wrk=False, seconds=1, connections=1, rounds=5, check_walk=True
    )
    deep = (PAGE - 1) * bench.WALK_PAGE
    assert served.deep_rows_in == deep
    assert served.walked == {"transactions": True, "utxos": True}
    engine = make_engine(store.db)
    with engine.connect() as conn:
        a = primary_address_utxos.c
        want_utxo = conn.execute(
            select(a.utxo_id)
            .where(a.address == store.hot)
            .order_by(a.block_timestamp.desc(), a.utxo_id.desc())
            .offset(deep)
            .limit(1)
        ).scalar()
        x = primary_address_txs.c
        want_tx = conn.execute(
            select(x.tx_hash)
            .where(x.address == store.hot)
            .order_by(x.block_timestamp.desc(), x.block_number.desc(), x.tx_index.desc())
            .offset(deep)
            .limit(1)
        ).scalar()
    engine.dispose()
    assert served.deep_first == {"transactions": want_tx, "utxos": want_utxo}
    assert [r.name for r in served.results][1:] == [
        "transactions, page 1",
        f"transactions, {deep} rows in",
        "utxos, page 1",
        f"utxos, {deep} rows in",
        "transactions, hot + 2 other addresses, page 1",
        "utxos, hot + 2 other addresses, page 1",
        "utxos V2 (POST), page 1",
        "lastActivityTimestampByAddresses",
        "lastActivityTimestampByAddresses V2 (POST)",
        "addresses:listChainIds",
        "balances, one other address",
        "avax/supply",
    ]
    for r in served.results:
        assert r.errors == 0 and r.rps > 0 and 0 < r.p50_ms <= r.p99_ms

    load = bench.Load(use_wrk=False, seconds=1, connections=1, rounds=5)
    staking = [
        bench.measure_staking(ingest.db, load),
        bench.measure_staking(store.db, load, address=store.hot),
    ]
    for lists, extra in zip(staking, ([], ["listHistoricalPrimaryNetworkRewards"]), strict=True):
        assert [r.name.split(",")[0] for r in lists.results] == [
            *["listValidators"] * 4,
            "listDelegators",
            "listL1Validators",
            "listPendingPrimaryNetworkRewards",
            "listHistoricalPrimaryNetworkRewards",
            *extra,
        ]
        for r in lists.results:
            assert r.errors == 0 and r.rps > 0 and 0 < r.p50_ms <= r.p99_ms
    # both stores hold stakers and L1 validators (the API store the bench's staking history)
    assert f"{txs['P']:,} P-chain txs" in staking[0].store
    assert "0 validation periods, 0 L1 validations" not in staking[0].store
    assert staking[1].store.startswith(f"{store.txs:,} P-chain txs, ")
    assert "0 validation periods" not in staking[1].store
    assert staking[1].store.endswith(f", {STAKERS.l1_validators} L1 validations")

    text = bench.report(ingest, served, PAGE, "test machine", "avadata bench primary", staking)
    assert "### Staking lists" in text and "on every staking list" in text
    assert f"| P | {ingest.containers['P']:,} | {txs['P']:,} |" in text
    assert f"holds {UTXOS:,} unspent UTXOs" in text
    assert "equal the txs the simulators produced: " in text
    assert "reaches the same first row: yes" in text
    for folder in folders:
        shutil.rmtree(folder)
