"""What the traffic generator sent: an independent record to check an indexer against.

Stage: devnet. Written by traffic.py as it sends, never read back from the node, so a test
that compares the node (or our indexed tables) with the ledger compares two independent
accounts of the same history.

Invariant: `sum(counts.values()) == len(txs)`; every hash in `txs` was accepted into the pool
and mined in `txs[i].block`; `expect_revert` is True exactly for the kinds in REVERTING_KINDS.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# Every kind of transaction the generator sends, with what it exercises downstream.
KINDS = {
    "fund": "setup: a Splitter payment funding up to 50 generated addresses (internal value)",
    "deploy_setup": "setup: direct deployment of one of the fixed contracts",
    "airdrop": "setup: Token.airdrop minting to many holders (many Transfer logs in one tx)",
    "native": "EOA to EOA native transfer",
    "erc20_transfer": "Token.transfer",
    "erc20_approve": "Token.approve",
    "erc20_transfer_from": "Token.transferFrom by an approved spender",
    "erc20_mint": "Token.mint (Transfer from the zero address)",
    "old_token_mint": "OldToken.mint (bytes32 name/symbol token)",
    "old_token_transfer": "OldToken.transfer",
    "nft_mint": "Collectible.mint",
    "nft_transfer": "Collectible.transferFrom",
    "nft_safe_transfer": "Collectible.safeTransferFrom(address,address,uint256)",
    "erc1155_mint": "MultiToken.mint (TransferSingle from zero)",
    "erc1155_mint_batch": "MultiToken.mintBatch (TransferBatch from zero)",
    "erc1155_single": "MultiToken.safeTransferFrom",
    "erc1155_batch": "MultiToken.safeBatchTransferFrom",
    "split": "Splitter.split: value to 2-5 recipients through internal CALLs",
    "relay": "Splitter.relay: value through a second splitter (depth-2 internal CALLs)",
    "factory_create": "Factory.create: CREATE of a Child, sometimes with value",
    "factory_create2": "Factory.create2: CREATE2 of a Child",
    "factory_nested": "Factory.createNested: CREATE of a Child that CREATEs a Leaf",
    "factory_token": "Factory.createToken: CREATE of a new ERC-20",
    "deploy_child": "EOA deployment of a Child",
    "deploy_token": "EOA deployment of a new ERC-20",
    "child_ping": "Child.ping: a call to a factory-created contract, emits Pinged",
    "revert_split": "Splitter.failAfterSplit: internal value calls, then revert (status 0)",
    "revert_erc20": "Token.transfer of more than the balance (status 0)",
    "revert_nft": "Collectible.transferFrom by a non-owner (status 0)",
    "revert_create2": "Factory.create2 with a used salt: CREATE2 collision (status 0)",
}
REVERTING_KINDS = frozenset(k for k in KINDS if k.startswith("revert_"))


@dataclass(frozen=True)
class SentTx:
    hash: str
    kind: str
    block: int
    sender: str
    to: str | None  # None for a deployment
    value: int = 0  # wei sent with the transaction (what a split forwards internally)

    @property
    def expect_revert(self) -> bool:
        return self.kind in REVERTING_KINDS


@dataclass(frozen=True)
class ContractRecord:
    """A contract the generator created; `factory` is the creating contract, if not an EOA.

    `deployer` is the EOA that sent the creating transaction (for factory creations too).
    """

    address: str
    name: str  # Solidity contract name: Token, Child, Leaf, ...
    deployer: str
    factory: str | None
    create2: bool
    tx_hash: str
    block: int


@dataclass
class Ledger:
    chain_id: int
    seed: int
    start_timestamp: int
    days: int
    # Fixed contracts by role: token, token6, old_token, collectible, multi, factory, splitter...
    roles: dict[str, str] = field(default_factory=dict)
    addresses: list[str] = field(default_factory=list)  # generated EOAs (all funded)
    funders: list[str] = field(default_factory=list)  # anvil dev accounts used as treasuries
    contracts: list[ContractRecord] = field(default_factory=list)
    txs: list[SentTx] = field(default_factory=list)
    block_timestamps: dict[int, int] = field(default_factory=dict)  # block number -> time
    empty_days: list[int] = field(default_factory=list)  # planned days with no block

    @property
    def counts(self) -> Counter[str]:
        return Counter(t.kind for t in self.txs)

    @property
    def reverted(self) -> list[SentTx]:
        return [t for t in self.txs if t.expect_revert]

    @property
    def first_block(self) -> int:
        return min(self.block_timestamps)

    @property
    def last_block(self) -> int:
        return max(self.block_timestamps)

    def txs_in_block(self, number: int) -> list[SentTx]:
        return [t for t in self.txs if t.block == number]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["block_timestamps"] = {str(k): v for k, v in self.block_timestamps.items()}
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Ledger:
        return cls(
            chain_id=data["chain_id"],
            seed=data["seed"],
            start_timestamp=data["start_timestamp"],
            days=data["days"],
            roles=dict(data["roles"]),
            addresses=list(data["addresses"]),
            funders=list(data["funders"]),
            contracts=[ContractRecord(**c) for c in data["contracts"]],
            txs=[SentTx(**t) for t in data["txs"]],
            block_timestamps={int(k): v for k, v in data["block_timestamps"].items()},
            empty_days=list(data["empty_days"]),
        )

    def save(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json()))
        tmp.replace(path)  # atomic: a crash leaves the old ledger or the new one

    @classmethod
    def load(cls, path: Path) -> Ledger:
        return cls.from_json(json.loads(path.read_text()))
