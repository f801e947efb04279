"""The stakers `avadata bench primary` adds to its API store after the hot address's history,
so the staking routes are measured on a store of mainnet-like staking beside the 100,000 txs:
primary validators rotating over a pool of nodes, delegators, their reward blocks and reward
UTXOs, and one L1 of a few hundred validations whose balances run down, are topped up and
partly disabled.

Stage: bench. The devnet's P-chain simulator (devnet/primary/pchain_sim.py) builds and signs
the txs and keeps the chain state; its platform API handlers (devnet/facade/platform_api.py)
answer the indexer in memory (reward UTXOs, refunds, the current validators, L1 balances,
the supply), so the real indexer writes the rows as it would from a node. Deterministic for
a seed: a rebuilt store holds the same rows.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from avadata.decode.codec.ids import sha256
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.devnet.facade.jsonrpc import MethodError
from avadata.devnet.facade.platform_api import platform_methods
from avadata.devnet.primary.containers import Container
from avadata.devnet.primary.keys import Keyring
from avadata.devnet.primary.pchain_sim import PChainSim
from avadata.devnet.primary.simulator import MANAGER_ADDRESS
from avadata.devnet.primary.utxo_book import SharedMemory
from avadata.devnet.primary.utxo_chain import Skip
from avadata.metrics.l1_fees import FEE_PER_SECOND
from avadata.sources.jsonrpc import Call, JsonRpcClient, RpcResult

AVAX = 10**9
HOUR, DAY = 3_600, 86_400


@dataclass(frozen=True, slots=True)
class StakingShape:
    """How much staking the history holds (the defaults: about mainnet's active set)."""

    validators: int = 1_500  # primary validators active at once, once ramped up
    delegations_per_day: int = 150
    days: int = 45
    l1_validators: int = 300
    seed: int = 1


@dataclass(slots=True)
class _View:
    """What the platform handlers read: the node's simulator (`.p`, the P-chain)."""

    p: PChainSim


class SimPlatform(JsonRpcClient):
    """platform.* answered in memory by the devnet's handlers over `sim`."""

    def __init__(self, sim: PChainSim) -> None:  # no HTTP client: nothing to open
        view = _View(sim)
        self.methods = platform_methods(
            lambda: cast(Any, view), threading.Lock(), lambda: float(sim.state.time)
        )

    async def batch(self, calls: Sequence[Call]) -> list[RpcResult]:
        out = []
        for method, params in calls:
            handler = self.methods[method.removeprefix("platform.")]
            try:
                out.append(RpcResult(method, handler(dict(cast(Any, params)))))
            except MethodError as exc:
                out.append(RpcResult(method, error={"code": -32000, "message": str(exc)}))
        return out

    async def aclose(self) -> None:
        return None


def history(first_height: int, start: int, shape: StakingShape) -> tuple[list[bytes], PChainSim]:
    """The P-chain containers of the staking history from `first_height` (1 or more: the
    proposervm header names the height before) at `start`, and the
    simulator holding the chain state after them (for SimPlatform)."""
    rng = random.Random(f"avadata bench primary stakers/{shape.seed}")
    keys = Keyring(shape.seed, users=48, nodes=shape.validators * 2 + shape.l1_validators)
    sim = PChainSim(shape.seed, keys, SharedMemory(), [])
    sim.state.height = first_height - 1
    sim.genesis(start, [(u.address, 5_000_000 * AVAX) for u in keys.users], 400_000_000 * AVAX)
    out: list[Container] = []
    pool = keys.nodes[: shape.validators * 2]
    out += _l1(sim, keys, rng, shape.l1_validators)
    for hour in range(1, shape.days * 24):
        t = start + hour * HOUR
        out += sim.advance_to(t, _clock)
        txs = _validators(sim, keys, rng, pool, shape.validators, t)
        per_day = shape.delegations_per_day  # spread evenly over the day's hours
        due = per_day * (hour + 1) // 24 - per_day * hour // 24
        txs += _delegators(sim, keys, rng, due, t)
        if hour % 24 == 0:
            txs += _l1_day(sim, keys, rng, hour // 24, shape.days)
        if txs:
            out.append(_block(sim, t, txs))
    return [c.bytes for c in out], sim


def _clock(t: int) -> int:
    return t * 1_000_000_000 + 250_000_000


def _block(sim: PChainSim, t: int, txs: list[Any]) -> Container:
    return sim.standard_block(t, txs, _clock(t))


def _l1(sim: PChainSim, keys: Keyring, rng: random.Random, count: int) -> list[Container]:
    """A subnet, then its conversion to an L1 of `count` validators, each with 2 to 30 days
    of fee: two blocks at the history's start."""
    t = sim.state.time
    created = sim.create_subnet(keys.users[0])
    first = _block(sim, t, [created])
    validators = [
        (n, rng.randint(10, 500), rng.randint(2, 30) * DAY * FEE_PER_SECOND, keys.users[1 + i % 8])
        for i, n in enumerate(keys.nodes[-count:])
    ]
    manager = sha256(b"avadata bench primary: the L1's manager chain")
    subnet = created.id_bytes(PCHAIN_TABLE)
    converted = sim.convert_subnet(subnet, manager, MANAGER_ADDRESS, validators)
    return [first, _block(sim, t, [converted])]


def _validators(
    sim: PChainSim,
    keys: Keyring,
    rng: random.Random,
    pool: Sequence[Any],
    target: int,
    t: int,
) -> list[Any]:
    """Up to 25 new validators an hour while fewer than `target` validate."""
    active = len(sim.state.current_stakers("validator"))
    txs: list[Any] = []
    for _ in range(min(25, target - active)):
        node = rng.choice(pool)
        user = rng.choice(keys.users[8:])
        weight = rng.randint(2_000, 50_000) * AVAX
        end = t + rng.randint(14 * DAY, 40 * DAY)
        try:
            txs.append(sim.add_validator(node, user, weight, end, rng.randint(2, 20) * 10_000))
        except Skip:
            continue
    return txs


def _delegators(sim: PChainSim, keys: Keyring, rng: random.Random, count: int, t: int) -> list[Any]:
    validators = sim.state.current_stakers("validator")
    txs: list[Any] = []
    for _ in range(count if validators else 0):
        v = rng.choice(validators)
        end = min(v.end, t + rng.randint(2 * DAY, 21 * DAY))
        try:
            txs.append(
                sim.add_delegator(v, rng.choice(keys.users[8:]), rng.randint(25, 5_000) * AVAX, end)
            )
        except Skip:
            continue
    return txs


def _l1_day(sim: PChainSim, keys: Keyring, rng: random.Random, day: int, days: int) -> list[Any]:
    """A day of the L1: a seventh of its validators topped up by a week of fee; halfway
    through, one in ten disabled."""
    txs: list[Any] = []
    for i, vid in enumerate(sorted(sim.state.l1_validators)):
        try:
            if day == days // 2 and i % 10 == 0:
                txs.append(sim.disable_l1_validator(vid))
            elif i % 7 == day % 7 and rng.random() < 0.8:
                amount = 7 * DAY * FEE_PER_SECOND
                txs.append(sim.increase_l1_balance(vid, amount, keys.users[9 + i % 8]))
        except Skip:
            continue
    return txs
