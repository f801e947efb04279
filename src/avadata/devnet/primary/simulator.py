"""The primary-network simulator: what the devnet's P-, X- and C-chain atomic history holds.

Stage: devnet. Drives pchain_sim, xchain_sim and cchain_atomic from one seeded plan on a
simulated clock, so days of history take seconds. Deterministic: the same PrimaryConfig and
the same C-chain block times give the same containers, byte for byte.

History: P and X block times come from `schedule.plan` (busy and quiet hours, empty days),
C-chain atomic txs ride on chosen C-chain blocks (their times are anvil's). A script makes
sure every feature appears at a fixed fraction of the span (subnets and chains with EVM
genesis, long-lived validators and legacy subnet validators, conversion of the first L1's
subnet, L1 validator registration, weight change, balance increase, disable and removal,
subnet ownership transfer, X assets and NFTs, exports and imports between every pair of
P, X and C); random traffic fills the rest (transfers, validators and delegators that end and
get rewarded, more atomic transfers). After the history, `live` adds blocks at wall-clock
times.

The records (`records`, `p.state`, `p.utxos`, `x.utxos`, `c.balances`) are the independent
truth tests check the Index API against.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from avadata.decode.codec.atomic import AtomicTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE as _P
from avadata.devnet.primary import uptime
from avadata.devnet.primary.cchain_atomic import CChainAtomic
from avadata.devnet.primary.containers import Container, TxRecord
from avadata.devnet.primary.keys import Keyring, Node, SecpKey
from avadata.devnet.primary.l1_config import EvmChainConfig, devnet_l1_configs
from avadata.devnet.primary.network_ids import (
    AVAX,
    AVAX_ASSET_ID,
    C_CHAIN_ID,
    P_CHAIN_ID,
    PRIMARY_SUBNET_ID,
    X_CHAIN_ID,
)
from avadata.devnet.primary.pchain_sim import PChainSim
from avadata.devnet.primary.utxo_book import SharedMemory
from avadata.devnet.primary.utxo_chain import Skip
from avadata.devnet.primary.xchain_sim import XChainSim
from avadata.devnet.schedule import DAY, plan

MANAGER_ADDRESS = bytes.fromhex("0feedc0de0000000000000000000000000000000")
GENESIS_SUPPLY = 400_000_000 * AVAX
P_ALLOCATION = 1_000_000 * AVAX
X_ALLOCATION = 200_000 * AVAX
Clock = Callable[[int], int]  # block time (s) -> acceptance time (ns)


@dataclass(frozen=True)
class L1Spec:
    name: str
    chain_id: int


@dataclass(frozen=True)
class PrimaryConfig:
    seed: int = 1
    start: int = 1_735_689_600  # 2025-01-01, the traffic generator's default too
    days: int = 45
    p_blocks: int = 150
    x_blocks: int = 150
    vertices: int = 5  # DAG-era X vertices before the stop vertex
    l1s: tuple[L1Spec, ...] = (L1Spec("alpha", 99901), L1Spec("beta", 99902))
    history_blocks: int = 300  # EVM history blocks per chain (places the fee changes)
    users: int = 24


class PrimarySim:
    def __init__(self, config: PrimaryConfig) -> None:
        self.config = config
        self.rng = random.Random(f"avadata-primary/{config.seed}")
        self.records: list[TxRecord] = []
        self.keys = Keyring(config.seed, users=config.users, nodes=32)
        self.shared = SharedMemory()
        self.p = PChainSim(config.seed, self.keys, self.shared, self.records)
        self.x = XChainSim(config.seed, self.keys, self.shared, self.records)
        self.c = CChainAtomic(self.shared, self.records)
        self.c_atomic: dict[int, list[AtomicTx]] = {}  # C block number -> its atomic txs
        users = self.keys.users
        self.evm: list[EvmChainConfig] = devnet_l1_configs(
            [(s.name, s.chain_id) for s in config.l1s],
            config.start,
            config.days,
            config.history_blocks,
            users[0].eth_address,
        )
        self.subnet_of: dict[str, bytes] = {}
        self.chain_of: dict[str, bytes] = {}
        healthy = [n for n in self.keys.nodes if not uptime.is_flaky(n.node_id)]
        flaky = [n for n in self.keys.nodes if uptime.is_flaky(n.node_id)]
        self.long_nodes: list[Node] = healthy[:4]
        # The third L1 validator is flaky: the validators API shows it disconnected at times.
        self.l1_nodes: list[Node] = [healthy[4], healthy[5], *flaky[:1], healthy[6], healthy[7]]
        self.pool: list[Node] = [*healthy[8:], *flaky[1:]]
        self.p.genesis(config.start, [(u.address, P_ALLOCATION) for u in users], GENESIS_SUPPLY)
        self.x.genesis(config.start, [(u.address, X_ALLOCATION) for u in users])
        self._p_script = self._plan_p_script()
        self._x_script = self._plan_x_script()
        self.history_done = False

    def __getstate__(self) -> dict[str, Any]:
        # The scripts are closures (not picklable) and only drive the history; a node saving
        # its state after the history (node.py) keeps everything else.
        state = dict(self.__dict__)
        if self.history_done:
            state["_p_script"] = []
            state["_x_script"] = []
        return state

    # -- clocks ---------------------------------------------------------------------------------

    def _history_clock(self, block_time: int) -> int:
        # A node following the network accepts a block a fraction of a second after its time.
        return block_time * 1_000_000_000 + self.rng.randrange(50_000_000, 1_500_000_000)

    # -- history --------------------------------------------------------------------------------

    def history(self, c_blocks: Sequence[tuple[int, int]] = ()) -> list[Container]:
        """Every P and X container of the history, in acceptance order per index. `c_blocks`:
        (number, timestamp) of the C-chain's history blocks; some get atomic txs
        (`c_atomic`)."""
        cfg = self.config
        p_times = plan(self.rng, cfg.p_blocks, cfg.days, cfg.start).timestamps
        x_times = plan(self.rng, cfg.x_blocks + cfg.vertices + 1, cfg.days, cfg.start).timestamps
        events: list[tuple[int, int, int]] = [(t, 0, 0) for t in p_times]
        events += [(t, 1, 0) for t in x_times]
        usable = [b for b in c_blocks if b[1] > cfg.start]
        if usable:
            count = min(40, max(4, len(usable) // 8))
            first = len(usable) // 10
            step = max(1, (len(usable) - first) // count)
            events += [(t, 2, n) for n, t in usable[first::step][:count]]
        events.sort()
        out: list[Container] = []
        for t, chain, number in events:
            out += self.p.advance_to(t, self._history_clock)
            if chain == 0:
                txs = self._p_txs(t, scripted=True)
                if txs:
                    out.append(self.p.standard_block(t, txs, self._history_clock(t)))
            elif chain == 1:
                out += self._x_step(t, self._history_clock, scripted=True)
            else:
                self._c_step(t, number)
        if not self.x.linear:
            t = max(self.x.time, self.p.state.time) + 1
            out.append(self.x.stop_dag(t, self._history_clock(t)))
        self.history_done = True
        return out

    def live(self, now: int, clock: Clock) -> list[Container]:
        """One live round at `now` (unix seconds): a P block and an X block of random traffic,
        after any reward blocks due by then."""
        t = max(now, self.p.state.time, self.x.time)
        out = self.p.advance_to(t, clock)
        txs = self._p_txs(t, scripted=False, most=2)
        if txs:
            out.append(self.p.standard_block(t, txs, clock(t)))
        out += self._x_step(t, clock, scripted=False)
        return out

    # -- P-chain --------------------------------------------------------------------------------

    def _span_time(self, fraction: float) -> int:
        return self.config.start + int(self.config.days * DAY * fraction)

    def _plan_p_script(self) -> list[tuple[int, Callable[[], list[Any]]]]:
        users = self.keys.users
        step = [
            (0.0, self._create_subnets),
            (0.0, self._create_chains),
            (0.004, self._long_validators),
            (0.008, self._legacy_subnet_validators),
            (0.012, lambda: [self.p.export(users[6], X_CHAIN_ID, users[6].address, 5_000 * AVAX)]),
            (0.016, lambda: [self.p.export(users[7], C_CHAIN_ID, users[7].address, 2_000 * AVAX)]),
            (0.10, self._convert),
            (0.20, lambda: [self._register(self.l1_nodes[3], 50, 1 * AVAX)]),
            (0.28, lambda: [self._register(self.l1_nodes[4], 30, 1 * AVAX, self._keeper())]),
            (0.30, self._transfer_ownership),
            (0.40, lambda: [self._set_weight(self.l1_nodes[1], 80)]),
            (0.50, lambda: [self._increase(self.l1_nodes[2], 5 * AVAX)]),
            (0.55, self._remove_legacy),
            (0.60, lambda: [self._disable(self.l1_nodes[4])]),
            (0.70, lambda: [self._set_weight(self.l1_nodes[3], 0)]),
        ]
        return [(self._span_time(f), fn) for f, fn in step]

    def _p_txs(self, t: int, scripted: bool, most: int = 3) -> list[Any]:
        txs: list[Any] = []
        if scripted:
            while self._p_script and self._p_script[0][0] <= t:
                _, fn = self._p_script.pop(0)
                try:
                    txs += fn()
                except Skip:
                    pass  # its precondition never came true (tiny histories): leave it out
                if len(txs) >= 4:
                    return txs
            if txs:
                return txs
        wanted = self.rng.randint(1, most)
        for _ in range(wanted * 4):
            if len(txs) >= wanted:
                break
            try:
                txs.append(self._random_p(t))
            except Skip:
                continue
        return txs

    def _create_subnets(self) -> list[Any]:
        owner = self.keys.users[0]
        txs = []
        for spec in self.config.l1s:
            tx = self.p.create_subnet(owner)
            self.subnet_of[spec.name] = tx.id_bytes(_P)
            txs.append(tx)
        return txs

    def _create_chains(self) -> list[Any]:
        txs = []
        for spec, evm in zip(self.config.l1s, self.evm, strict=True):
            tx = self.p.create_chain(self.subnet_of[spec.name], evm)
            self.chain_of[spec.name] = tx.id_bytes(_P)
            txs.append(tx)
        return txs

    def _long_validators(self) -> list[Any]:
        users = self.keys.users
        end = self.config.start + 300 * DAY
        return [
            self.p.add_validator(node, users[1 + i], 50_000 * AVAX, end, shares=30_000)
            for i, node in enumerate(self.long_nodes)
        ]

    def _legacy_subnet_validators(self) -> list[Any]:
        end = self.config.start + 250 * DAY
        txs = []
        for i, spec in enumerate(self.config.l1s):
            nodes = self.long_nodes[:1] if i == 0 else self.long_nodes[:3]
            txs += [
                self.p.add_subnet_validator(self.subnet_of[spec.name], n, 100, end) for n in nodes
            ]
        return txs

    def _first_l1(self) -> str:
        if not self.config.l1s:
            raise Skip("no L1s configured")
        return self.config.l1s[0].name

    def _convert(self) -> list[Any]:
        name = self._first_l1()
        owner = self.keys.users[10]
        # The first validator alone holds > 67% of the weight, so each warp message needs one
        # (slow, pure-Python) BLS signature. The third's 0.05 AVAX lasts ~1.1 days: it goes
        # inactive until the balance increase at 50% of the span.
        weights = [(500, 5 * AVAX), (60, 2 * AVAX), (40, AVAX // 20)]
        validators = [(n, w, b, owner) for n, (w, b) in zip(self.l1_nodes, weights, strict=False)]
        subnet = self.subnet_of[name]
        return [self.p.convert_subnet(subnet, self.chain_of[name], MANAGER_ADDRESS, validators)]

    def _validation_id(self, node: Node) -> bytes:
        for vid, v in self.p.state.l1_validators.items():
            if v.node_id == node.node_id:
                return vid
        raise Skip("node is not an L1 validator")

    def _register(
        self, node: Node, weight: int, balance: int, refund_to: SecpKey | None = None
    ) -> Any:
        subnet = self.subnet_of[self._first_l1()]
        users = self.keys.users
        return self.p.register_l1_validator(
            subnet, node, weight, balance, users[11], users[12], refund_to
        )

    def _keeper(self) -> SecpKey:
        # A balance owner outside `users`, whom no random traffic picks: its refund stays
        # unspent, so an indexer finds it in the node's UTXOs (users' refunds are spent before
        # any index runs, and get rebuilt from the spending input instead).
        return self.keys.add(SecpKey.derived(self.config.seed, "refund-keeper"))

    def _set_weight(self, node: Node, weight: int) -> Any:
        return self.p.set_l1_weight(self._validation_id(node), weight, self.keys.users[12])

    def _increase(self, node: Node, amount: int) -> Any:
        return self.p.increase_l1_balance(self._validation_id(node), amount, self.keys.users[13])

    def _disable(self, node: Node) -> Any:
        return self.p.disable_l1_validator(self._validation_id(node))

    def _transfer_ownership(self) -> list[Any]:
        if len(self.config.l1s) < 2:
            raise Skip("no second subnet")
        subnet = self.subnet_of[self.config.l1s[1].name]
        return [self.p.transfer_subnet_ownership(subnet, self.keys.users[5])]

    def _remove_legacy(self) -> list[Any]:
        if len(self.config.l1s) < 2:
            raise Skip("no second subnet")
        subnet = self.subnet_of[self.config.l1s[1].name]
        return [self.p.remove_subnet_validator(subnet, self.long_nodes[2].node_id)]

    def _random_p(self, t: int) -> Any:
        rng, users, p = self.rng, self.keys.users, self.p
        user = rng.choice(users)
        roll = rng.random()
        if roll < 0.30:
            other = rng.choice(users)
            return p.transfer(user, other.address, rng.randrange(1, 1_000) * AVAX)
        if roll < 0.42:
            free = [
                n for n in self.pool if p.state.validator_of(n.node_id, PRIMARY_SUBNET_ID) is None
            ]
            if not free:
                raise Skip("every pool node validates")
            longest = max(DAY, min(14 * DAY, self.config.days * DAY // 3))
            end = t + rng.randrange(DAY, longest + 1)
            weight = rng.randrange(20, 101) * 100 * AVAX
            return p.add_validator(
                rng.choice(free), user, weight, end, rng.randrange(20, 101) * 1000
            )
        if roll < 0.60:
            validators = [
                s
                for s in p.state.current_stakers("validator", PRIMARY_SUBNET_ID)
                if s.end - t > DAY + 60
            ]
            if not validators:
                raise Skip("no validator to delegate to")
            v = rng.choice(validators)
            end = t + rng.randrange(DAY, v.end - t)
            return p.add_delegator(v, user, rng.randrange(25, 2_001) * AVAX, end)
        if roll < 0.70:
            return p.export(user, X_CHAIN_ID, user.address, rng.randrange(10, 501) * AVAX)
        if roll < 0.78:
            return p.export(user, C_CHAIN_ID, user.address, rng.randrange(10, 301) * AVAX)
        if roll < 0.96:
            source = X_CHAIN_ID if roll < 0.87 else C_CHAIN_ID
            for candidate in rng.sample(users, len(users)):
                try:
                    return p.import_(candidate, source)
                except Skip:
                    continue
            raise Skip("nothing to import")
        enabled = [vid for vid, v in p.state.l1_validators.items() if not v.disabled]
        if not enabled:
            raise Skip("no L1 validator")
        return p.increase_l1_balance(rng.choice(enabled), rng.randrange(1, 11) * AVAX // 10, user)

    # -- X-chain --------------------------------------------------------------------------------

    def _plan_x_script(self) -> list[tuple[int, Callable[[], list[Any]]]]:
        users = self.keys.users
        x = self.x
        step = [
            (0.03, lambda: [x.export(users[8], P_CHAIN_ID, users[8].address, 1_000 * AVAX)]),
            (0.035, lambda: [x.export(users[9], C_CHAIN_ID, users[9].address, 800 * AVAX)]),
            (0.06, lambda: [self._mint_nft([users[4].address, users[5].address])]),
            (0.08, lambda: [self._mint_silver(users[6].address)]),
            (0.12, lambda: [self._mint_nft([users[7].address])]),
            (0.20, lambda: [self._mint_nft([users[8].address, users[9].address])]),
        ]
        return [(self._span_time(f), fn) for f, fn in step]

    def _asset(self, symbol: str) -> bytes:
        for asset_id, a in self.x.assets.items():
            if a.symbol == symbol:
                return asset_id
        raise Skip(f"no {symbol} yet")

    def _mint_nft(self, recipients: list[bytes]) -> Any:
        return self.x.mint_nft(self._asset("ART"), recipients, b"ipfs://devnet-art")

    def _mint_silver(self, recipient: bytes) -> Any:
        return self.x.mint(self._asset("SLVR"), recipient, self.rng.randrange(1, 100) * 10**6)

    def _dag_txs(self, vertex: int) -> list[Any]:
        users, x = self.keys.users, self.x
        if vertex == 0:
            holders = [(u.address, 100_000_000) for u in users[:8]]
            return [
                x.create_asset(users[0], "Devnet Gold", "GOLD", 2, holders),
                x.create_asset(
                    users[2], "Devnet Art", "ART", 0, minter=users[2].address, nft_groups=3
                ),
            ]
        if vertex == 1:
            return [
                x.create_asset(
                    users[3],
                    "Devnet Silver",
                    "SLVR",
                    6,
                    [(users[3].address, 10**9)],
                    users[3].address,
                )
            ]
        return self._fill_x(self.rng.randint(1, 3))

    def _x_step(self, t: int, clock: Clock, scripted: bool) -> list[Container]:
        x = self.x
        if not x.linear:
            vertices = 0 if x.last_vertex is None else x.height + 1
            if scripted and vertices < self.config.vertices:
                x.time = t
                dag_txs = self._dag_txs(vertices)
                return x.vertex(t, dag_txs, clock(t)) if dag_txs else []
            return [x.stop_dag(t, clock(t))]
        x.time = max(x.time, t)
        txs: list[Any] = []
        if scripted:
            while self._x_script and self._x_script[0][0] <= t:
                _, fn = self._x_script.pop(0)
                try:
                    txs += fn()
                except Skip:
                    pass
        if not txs:
            txs = self._fill_x(self.rng.randint(1, 3))
        if not txs:
            return []
        return [x.standard_block(t, txs, clock(t), self.p.state.height)]

    def _fill_x(self, wanted: int) -> list[Any]:
        txs: list[Any] = []
        for _ in range(wanted * 4):
            if len(txs) >= wanted:
                break
            try:
                txs.append(self._random_x())
            except Skip:
                continue
        return txs

    def _random_x(self) -> Any:
        rng, users, x = self.rng, self.keys.users, self.x
        user, other = rng.choice(users), rng.choice(users)
        roll = rng.random()
        if roll < 0.35:
            return x.transfer(user, other.address, AVAX_ASSET_ID, rng.randrange(1, 500) * AVAX)
        if roll < 0.55:
            return x.transfer(user, other.address, self._asset("GOLD"), rng.randrange(1, 10_000))
        if roll < 0.62:
            return x.transfer(user, other.address, self._asset("SLVR"), rng.randrange(1, 1_000))
        if roll < 0.66:
            return self._mint_silver(other.address)
        if roll < 0.76:
            holders = [u for u in users if x.owns_nft(u.address)]
            if not holders:
                raise Skip("no NFT yet")
            return x.transfer_nft(rng.choice(holders), other.address)
        if roll < 0.84:
            return x.export(user, P_CHAIN_ID, user.address, rng.randrange(10, 301) * AVAX)
        if roll < 0.90:
            return x.export(user, C_CHAIN_ID, user.address, rng.randrange(10, 201) * AVAX)
        source = P_CHAIN_ID if roll < 0.96 else C_CHAIN_ID
        for candidate in rng.sample(users, len(users)):
            try:
                return x.import_(candidate, source)
            except Skip:
                continue
        raise Skip("nothing to import")

    # -- C-chain atomic -------------------------------------------------------------------------

    def _c_step(self, t: int, number: int) -> None:
        rng, users = self.rng, self.keys.users
        txs: list[AtomicTx] = []
        for user in rng.sample(users, len(users)):
            for source in (P_CHAIN_ID, X_CHAIN_ID):
                try:
                    txs.append(self.c.import_(user, source, t))
                except Skip:
                    pass
            if len(txs) >= 2:
                break
        rich = [u for u in users if self.c.balances.get(u.eth_address, 0) > 20 * AVAX]
        if rich and rng.random() < 0.6:
            user = rng.choice(rich)
            destination = rng.choice((P_CHAIN_ID, X_CHAIN_ID))
            amount = self.c.balances[user.eth_address] // 2
            try:
                txs.append(self.c.export(user, destination, amount, t))
            except Skip:
                pass
        for tx in txs:
            self.c.record(tx, number, t)
        if txs:
            self.c_atomic.setdefault(number, []).extend(txs)

    # -- views ----------------------------------------------------------------------------------

    def blockchain_ids(self) -> dict[str, bytes]:
        """L1 name -> its blockchain ID (the CreateChainTx ID)."""
        return dict(self.chain_of)

    def evm_config(self, name: str) -> EvmChainConfig | None:
        return next((c for c in self.evm if c.name == name), None)
