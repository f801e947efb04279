"""The seeded traffic generator: same seed and same chain ID give the same chain contents.

Stage: devnet. Drives one anvil (started with anvil.AnvilOptions(automine=False), as
`start_with_traffic` does) through JSON-RPC only: no keys in Python. anvil's auto-impersonation
signs for any sender; each block's transactions go in as one JSON-RPC batch of
eth_sendTransaction with explicit nonce, gas and fees (no estimation round trips), then one
evm_mine with the planned timestamp.

Phases: setup (deploy the fixed contracts, fund the generated addresses through the Splitter,
airdrop tokens), then mixed traffic (actions.WEIGHTS) over the planned timestamps
(schedule.plan), then optionally `mine_live_block` for a live trickle.

Invariant: the ledger records exactly what was mined, block by block; the generator checks
after every evm_mine that the block holds every transaction it sent.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from avadata.devnet.evm.actions import ETHER, Actions
from avadata.devnet.evm.anvil import AnvilOptions, AnvilProcess, start_anvil
from avadata.devnet.evm.artifacts import calldata, create_address, deploy_data
from avadata.devnet.evm.chain_mirror import PendingTx, World
from avadata.devnet.evm.ledger import ContractRecord, Ledger, SentTx
from avadata.devnet.rpc import Rpc
from avadata.devnet.schedule import plan

DEFAULT_START = 1_735_689_600  # 2025-01-01T00:00:00Z: a fixed start keeps runs identical
BLOCK_GAS_BUDGET = 27_000_000  # under anvil's 30M limit: a full batch always fits one block
MAX_TX_GAS = 1_600_000  # the largest gas limit actions.py gives a traffic transaction
FUND_PER_USER = 1_000 * ETHER
FUND_BATCH = 50  # recipients per funding split


@dataclass(frozen=True)
class TrafficConfig:
    """What to generate. `blocks` counts every block made, setup included (about 4 + 1 per
    30 accounts); `txs_per_block` is the mean of the traffic blocks (each varies +-50%)."""

    seed: int = 1
    days: int = 45
    blocks: int = 300
    txs_per_block: int = 10
    start_timestamp: int = DEFAULT_START
    accounts: int = 1_000
    # Blocks mined in each second the plan gives (each live block too): more than 1 makes a
    # sub-second chain, whose blocks share their second (devnet --subsecond).
    burst: int = 1


SMALL = TrafficConfig()  # ~300 blocks, ~3,000 txs, 45 days: the test chain
BENCH = TrafficConfig(days=30, blocks=2_050, txs_per_block=50)  # >= 2,000 blocks, ~100k txs


class TrafficError(RuntimeError):
    """The node did not do what the generator expected (a bug on one side or the other)."""


class TrafficGenerator:
    """Builds one chain's history. Use `generate` for the common case."""

    def __init__(self, rpc: Rpc, config: TrafficConfig, resume: Ledger | None = None) -> None:
        """A generator for the chain behind `rpc`. With `resume` (the ledger of an earlier
        run whose anvil was reloaded from its state file) it continues that chain instead: the
        mirror is rebuilt from the node (see `_sync_from_node`)."""
        self.rpc = rpc
        self.config = config
        self.chain_id = int(rpc.call("eth_chainId"), 16)
        self.head = int(rpc.call("eth_blockNumber"), 16)
        latest = rpc.call("eth_getBlockByNumber", ["latest", False])
        self.last_timestamp = int(latest["timestamp"], 16)
        # A str seed goes through SHA-512 in random.seed: stable across Python runs.
        seed = f"avadata-devnet:{config.seed}:{self.chain_id}"
        if resume is not None:
            seed += f":resume@{self.head}"
        self.rng = random.Random(seed)
        if resume is not None:
            self.ledger = resume
            self.world = World(users=list(resume.addresses))
        else:
            self.ledger = Ledger(
                chain_id=self.chain_id,
                seed=config.seed,
                start_timestamp=config.start_timestamp,
                days=config.days,
            )
            users: set[str] = set()
            while len(users) < config.accounts:
                users.add("0x" + self.rng.getrandbits(160).to_bytes(20, "big").hex())
            self.world = World(users=sorted(users))
            self.rng.shuffle(self.world.users)
            self.ledger.addresses = list(self.world.users)
        self.actions = Actions(self.rng, self.world, self.ledger.roles)
        self.actions.base_fee = int(latest.get("baseFeePerGas", "0x0"), 16)
        if resume is not None:
            self._sync_from_node()

    def _sync_from_node(self) -> None:
        """Rebuild what the mirror needs from the node: nonces, the factory's nonce, the next
        NFT id and the fungible token balances. NFT owners, ERC-1155 balances and allowances
        start empty (those kinds fall back to others until new mints refill them)."""
        w, roles, users = self.world, self.ledger.roles, self.world.users
        nonces = self.rpc.batch([("eth_getTransactionCount", [u, "latest"]) for u in users])
        w.nonces.update({u: int(n, 16) for u, n in zip(users, nonces, strict=True)})
        w.factory_nonce = int(
            self.rpc.call("eth_getTransactionCount", [roles["factory"], "latest"]), 16
        )
        supply = self.rpc.call(
            "eth_call", [{"to": roles["collectible"], "data": calldata("totalSupply()")}, "latest"]
        )
        w.nft_next = int(supply, 16) + 1
        for role in ("token", "token6", "old_token"):
            token = roles[role]
            calls = [
                ("eth_call", [{"to": token, "data": calldata("balanceOf(address)", u)}, "latest"])
                for u in users
            ]
            for user, raw in zip(users, self.rpc.batch(calls), strict=True):
                if int(raw, 16):
                    w.balances.credit_now(token, user, int(raw, 16))
        w.children = [c.address for c in self.ledger.contracts if c.name == "Child"]

    # -- mining -----------------------------------------------------------------------------

    def mine(self, txs: list[PendingTx], timestamp: int, others_ok: bool = False) -> int:
        """Send `txs` as one batch, mine them into one block at `timestamp`; returns its number.

        `others_ok`: the block may also hold transactions someone else sent (live mode on a
        devnet that users also talk to); they are not in the ledger.
        """
        # A sub-second chain's blocks may share a second; others' seconds strictly increase.
        earliest = self.last_timestamp + (0 if self.config.burst > 1 else 1)
        if timestamp < earliest:
            raise TrafficError(f"timestamp {timestamp} before {earliest}")
        hashes = self.rpc.batch([("eth_sendTransaction", [t.params]) for t in txs])
        self.rpc.call("evm_mine", [timestamp])
        self.head += 1
        self.last_timestamp = timestamp
        block = self.rpc.call("eth_getBlockByNumber", [hex(self.head), False])
        count = len(block["transactions"])
        self.actions.base_fee = int(block["baseFeePerGas"], 16)
        if count != len(txs) and not (others_ok and count > len(txs)):
            raise TrafficError(f"block {self.head} holds {count} txs, {len(txs)} were sent")
        self.ledger.block_timestamps[self.head] = timestamp
        for pending, tx_hash in zip(txs, hashes, strict=True):
            params = pending.params
            self.ledger.txs.append(
                SentTx(
                    tx_hash,
                    pending.kind,
                    self.head,
                    params["from"],
                    params.get("to"),
                    int(params["value"], 16),
                )
            )
            for record in pending.creates:
                self.ledger.contracts.append(_mined(record, tx_hash, self.head))
            for callback in pending.on_mined:
                callback()
        self.world.end_block()
        return self.head

    # -- setup ------------------------------------------------------------------------------

    def setup_txs(self) -> list[PendingTx]:
        """Deploy the fixed contracts, fund every generated address, seed token holders."""
        accounts: list[str] = self.rpc.call("eth_accounts")
        deployer, funders = accounts[0], accounts[1:]
        self.ledger.funders = [deployer, *funders]
        a = self.actions
        out: list[PendingTx] = []
        fixed: list[tuple[str, str, list[str], list[object], int]] = [
            (
                "token",
                "Token",
                ["string", "string", "uint8"],
                ["Avadata Token", "AVDT", 18],
                1_500_000,
            ),
            (
                "token6",
                "Token",
                ["string", "string", "uint8"],
                ["Devnet USD", "dUSD", 6],
                1_500_000,
            ),
            (
                "old_token",
                "OldToken",
                ["bytes32", "bytes32", "uint256"],
                [b"Maker".ljust(32, b"\0"), b"MKR".ljust(32, b"\0"), 18],
                1_000_000,
            ),
            (
                "collectible",
                "Collectible",
                ["string", "string"],
                ["Devnet Punks", "DPUNK"],
                3_000_000,
            ),
            ("multi", "MultiToken", [], [], 3_000_000),
            ("factory", "Factory", [], [], 3_500_000),
            ("splitter", "Splitter", [], [], 1_000_000),
            ("splitter2", "Splitter", [], [], 1_000_000),
        ]
        for role, name, types, args, gas in fixed:
            address = create_address(deployer, self.world.nonces[deployer])
            self.ledger.roles[role] = address
            pending = a.tx(deployer, None, "deploy_setup", gas, deploy_data(name, types, args))
            pending.creates.append(
                ContractRecord(address, name, deployer, None, False, tx_hash="", block=-1)
            )
            out.append(pending)
        users = self.world.users
        for i in range(0, len(users), FUND_BATCH):
            group = users[i : i + FUND_BATCH]
            data = calldata("split(address[])", group)
            funder = funders[(i // FUND_BATCH) % len(funders)]
            gas = 60_000 + 40_000 * len(group)
            value = FUND_PER_USER * len(group)
            out.append(a.tx(funder, self.ledger.roles["splitter"], "fund", gas, data, value))
        for role, holders in (("token", 200), ("token6", 100)):
            token = self.ledger.roles[role]
            for j in range(0, holders, 100):
                group = users[j : j + 100]
                amount = 10**6 * 10 ** (18 if role == "token" else 6)
                data = calldata("airdrop(address[],uint256)", group, amount)
                pending = a.tx(deployer, token, "airdrop", 3_500_000, data)
                for holder in group:
                    self.world.balances.credit_later(pending, token, holder, amount)
                out.append(pending)
        return out

    # -- the whole history ------------------------------------------------------------------

    def run(self, progress: Callable[[int, int], None] | None = None) -> Ledger:
        """Setup, then traffic, over the planned timestamps. `progress(done, total)` per block."""
        cfg = self.config
        # Each block is one batch + one evm_mine: anvil must not mine transactions one by one.
        self.rpc.call("evm_setAutomine", [False])
        schedule = plan(self.rng, cfg.blocks, cfg.days, cfg.start_timestamp)
        self.ledger.empty_days = schedule.empty_days
        # In bursts, each block takes the second of the first block of its burst.
        burst = max(cfg.burst, 1)
        planned = schedule.timestamps
        times = iter([planned[i - i % burst] for i in range(len(planned))])
        done = 0
        for block in _pack(self.setup_txs()):
            self.mine(block, next(times))
            done += 1
        if done >= cfg.blocks:
            raise TrafficError(f"{cfg.blocks} blocks leave no room after {done} setup blocks")
        for timestamp in times:
            self.mine(self.traffic_block(), timestamp)
            done += 1
            if progress is not None:
                progress(done, cfg.blocks)
        return self.ledger

    def traffic_block(self, size: int | None = None) -> list[PendingTx]:
        """One block's worth of mixed traffic, within the gas budget."""
        mean = self.config.txs_per_block
        n = size if size is not None else self.rng.randint(max(1, mean // 2), mean + mean // 2)
        txs: list[PendingTx] = []
        gas = 0
        for _ in range(n):
            # Stop while any kind still fits: a built transaction has taken a nonce and
            # changed the mirror, so it must go into this block.
            if gas + MAX_TX_GAS > BLOCK_GAS_BUDGET:
                break
            pending = self.actions.build(self.actions.random_kind())
            txs.append(pending)
            gas += pending.gas
        return txs

    def mine_live_block(self, size: int = 5, timestamp: int | None = None) -> int:
        """One more block of traffic now (live mode): wall-clock time, or just after the last;
        a burst of `config.burst` blocks in that second on a sub-second chain. Returns the
        last block's number."""
        when = timestamp or max(int(time.time()), self.last_timestamp + 1)
        head = self.head
        for _ in range(max(self.config.burst, 1)):
            head = self.mine(self.traffic_block(size), when, others_ok=True)
        return head


def _mined(record: ContractRecord, tx_hash: str, block: int) -> ContractRecord:
    return ContractRecord(
        record.address,
        record.name,
        record.deployer,
        record.factory,
        record.create2,
        tx_hash=tx_hash,
        block=block,
    )


def _pack(txs: list[PendingTx]) -> list[list[PendingTx]]:
    """Greedy: consecutive transactions into blocks under the gas budget, order kept."""
    blocks: list[list[PendingTx]] = [[]]
    gas = 0
    for tx in txs:
        if blocks[-1] and gas + tx.gas > BLOCK_GAS_BUDGET:
            blocks.append([])
            gas = 0
        blocks[-1].append(tx)
        gas += tx.gas
    return blocks


def generate(
    rpc_url: str,
    config: TrafficConfig = SMALL,
    progress: Callable[[int, int], None] | None = None,
) -> Ledger:
    """Fill the (fresh, automine off) anvil at `rpc_url` with `config`'s history."""
    with Rpc(rpc_url) as rpc:
        return TrafficGenerator(rpc, config).run(progress)


def start_with_traffic(
    chain_id: int,
    config: TrafficConfig = SMALL,
    *,
    progress: Callable[[int, int], None] | None = None,
    **anvil_options: object,
) -> tuple[AnvilProcess, Ledger]:
    """Start an anvil for `chain_id` whose genesis is at the config's start, fill it, return
    both. `anvil_options` are AnvilOptions fields (state_file, gas_limit, extra_args...);
    `progress(done, total)` is called after each traffic block. The anvil is stopped again if
    generation fails."""
    options = AnvilOptions(
        chain_id=chain_id,
        genesis_timestamp=config.start_timestamp,
        **anvil_options,  # type: ignore[arg-type]
    )
    anvil = start_anvil(options)
    try:
        return anvil, generate(anvil.rpc_url, config, progress)
    except BaseException:
        anvil.stop()
        raise
