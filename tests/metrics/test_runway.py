"""The L1 validator runway: a prediction made from the store (the validation's P-chain txs
replayed to the indexed head) against the simulated P-chain run forward, block by block, until
the validator deactivates: the deactivating block is the first block at or after the
predicted time (within one block), and the predicted height (the chain's cadence plus the
reward blocks the store knows are scheduled) is that block's within one."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import func, select

from avadata.decode.codec.ids import cb58_encode
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.metrics import l1_fees
from avadata.store.metrics import l1_reads
from avadata.store.primary.queries.validators import p_chain_now
from avadata.store.schema import primary_txs
from tests.metrics.test_primary_metrics import CONFIG
from tests.support.primary_world import indexed, served_node

HOUR = 3600


def _predict(engine, interval: float) -> dict[str, tuple[l1_fees.Runway, int]]:
    with engine.connect() as conn:
        now = p_chain_now(conn)
        height = conn.execute(
            select(func.max(primary_txs.c.block_number)).where(primary_txs.c.blockchain_id == "P")
        ).scalar_one()
        txs = l1_reads.validation_txs(conn)
        ends = l1_reads.reward_ends(conn)
    events: dict[str, list[l1_fees.Event]] = {}
    for vid, ts, kind, body in txs:
        events.setdefault(vid, []).append(l1_fees.events_of(vid, ts, kind, json.loads(body)))
    out = {}
    for vid, ev in events.items():
        r = l1_fees.replay(ev, now)
        out[vid] = (l1_fees.runway(r, height, now, interval, ends), height)
    return out


def test_prediction_holds_when_the_p_chain_runs_forward(tmp_path: Path) -> None:
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=tmp_path, live_interval=None))
    node.start()
    with served_node(node) as url:
        engine = indexed(tmp_path / "store.db", url)
        sim = node.sim
    p = sim.p
    # The forward run makes one block every 6 hours (rewards of stakers ending on the way add
    # their own blocks), so that is the cadence the height estimate is given.
    step = 6 * HOUR
    predictions = _predict(engine, step)
    paying = {v: r for v, (r, _) in predictions.items() if r.deactivation_timestamp}
    assert paying, "no L1 validator is paying at the indexed head"
    live = {cb58_encode(k): v for k, v in p.state.l1_validators.items()}
    assert paying.keys() <= live.keys()

    user, other = sim.keys.users[0], sim.keys.users[1]
    clock = lambda t: t * 1_000_000_000  # noqa: E731
    t = p.state.time
    blocks: list[tuple[int, int]] = [(p.state.height, t)]
    seen: dict[str, tuple[int, int, int]] = {}  # vid -> (height, time, previous block's time)
    latest = max(r.deactivation_timestamp for r in paying.values())  # type: ignore[type-var]
    while len(seen) < len(paying):
        assert t <= latest + step, "a validator outlived its prediction by more than a block"
        t += step
        p.advance_to(t, clock)
        p.standard_block(t, [p.transfer(user, other.address, 1)], clock(t))
        blocks.append((p.state.height, t))
        for vid in paying.keys() - seen.keys():
            if not live[vid].active(t):
                seen[vid] = (p.state.height, t, blocks[-2][1])
    for vid, r in paying.items():
        height, at, before = seen[vid]
        predicted = r.deactivation_timestamp
        assert predicted is not None
        # The simulator charges the last part-second (it stops one second later at most).
        assert before < predicted + 1 and predicted <= at, (vid, before, predicted, at)
        assert r.deactivation_height is not None
        assert abs(r.deactivation_height - height) <= 1, (vid, r.deactivation_height, height)
