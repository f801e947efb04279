"""The P-chain part of `avadata bench metrics`: a synthetic staking and L1 validator history
rolled up by the real P-chain rollup writer (timed), and the staking, L1 fee and runway series
requests the latency cases add.

Stage: bench. The history spans the same days as the EVM chain: every day some primary
validators and delegators start periods (validators for a year, delegators for two weeks), and
an L1 of `l1` validations is converted on the first day, topped up weekly and partly disabled.
Only the rollup's inputs are written (the L1 validator rows its accounts are labelled from);
the P-chain's own rows are not needed to serve the series.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass

from avadata.decode.codec.ids import cb58_encode, node_id_str
from avadata.metrics.buckets import DAY
from avadata.metrics.l1_fees import FEE_PER_SECOND, Event
from avadata.metrics.pchain_rollup import PBlockChanges, Period
from avadata.records.primary import PRIMARY_SUBNET
from avadata.store.metrics.pchain_writer import apply_changes
from avadata.store.schema import primary_l1_validators
from avadata.store.types import Engine


def _id(*parts: object) -> bytes:
    return hashlib.sha256(repr(parts).encode()).digest()


@dataclass(frozen=True, slots=True)
class PChainShape:
    subnet_id: str
    validation_ids: list[str]
    node_ids: list[str]


def _history(t0: int, days: int, l1: int, seed: int = 7) -> tuple[PChainShape, list[PBlockChanges]]:
    rng = random.Random(seed)
    subnet = cb58_encode(_id("subnet"))
    vids = [cb58_encode(_id("validation", i)) for i in range(l1)]
    nodes = [node_id_str(_id("node", i)[:20]) for i in range(l1)]
    out = []
    for day in range(days):
        t = t0 + day * DAY + 3600
        ch = PBlockChanges(day + 1, t + 7200)
        for k in range(rng.randint(2, 6)):
            kind, length = ("validator", 365 * DAY) if k < 2 else ("delegator", 14 * DAY)
            w = rng.randint(2_000, 100_000) * 10**9
            h = _id("period", day, k).hex()
            ch.opened.append(Period(h, kind, PRIMARY_SUBNET, t + k, t + k + length, w))
        for i, vid in enumerate(vids):
            if day == 0:
                ch.l1.append((vid, Event(t, rng.randint(3, 20) * DAY * FEE_PER_SECOND, False)))
            elif day % 7 == i % 7:
                ch.l1.append((vid, Event(t + 60, 7 * DAY * FEE_PER_SECOND, False)))
            elif day == days // 2 and i % 10 == 0:
                ch.l1.append((vid, Event(t + 120, 0, True)))
        out.append(ch)
    return PChainShape(subnet, vids, nodes), out


def write(engine: Engine, t0: int, days: int, l1: int) -> tuple[PChainShape, float]:
    """Roll the synthetic history up one day per transaction; returns its shape and the time
    the rollup took."""
    shape, history = _history(t0, days, l1)
    rows = [
        {"validation_id": v, "subnet_id": shape.subnet_id, "node_id": n, "created_tx_hash": v}
        for v, n in zip(shape.validation_ids, shape.node_ids, strict=True)
    ]
    with engine.begin() as conn:
        if rows:
            conn.execute(primary_l1_validators.insert(), rows)
    spent = 0.0
    for ch in history:
        with engine.begin() as conn:
            t = time.perf_counter()
            apply_changes(conn, [ch])
            spent += time.perf_counter() - t
    return shape, spent


def cases(shape: PChainShape) -> dict[str, tuple[str, dict[str, str | int]]]:
    """The staking, L1 fee and runway requests timed beside the chain series."""
    vid, node = shape.validation_ids[0], shape.node_ids[0]
    out: dict[str, tuple[str, dict[str, str | int]]] = {
        "staking validatorCount x100": ("/v2/networks/mainnet/metrics/validatorCount", {}),
        "staking delegatorWeight x365": (
            "/v2/networks/mainnet/metrics/delegatorWeight",
            {"pageSize": 365},
        ),
        "L1 totalValidatorFeesDaily": ("/v2/validators/metrics/totalValidatorFeesDaily", {}),
        "L1 totalPayingValidatorsDaily": (
            "/v2/validators/metrics/totalPayingValidatorsDaily",
            {},
        ),
        "L1 perSubnetCumulativeFeesPaid": (
            f"/v2/subnet/{shape.subnet_id}/metrics/perSubnetCumulativeFeesPaid",
            {},
        ),
        "L1 perNodeDailyFeesPaid": (f"/v2/validator/{node}/metrics/perNodeDailyFeesPaid", {}),
        "L1 validationRunwaySeconds": (
            f"/v2/validation/{vid}/metrics/validationRunwaySeconds",
            {},
        ),
    }
    return out
