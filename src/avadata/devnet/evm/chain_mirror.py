"""The traffic generator's mirror of the chain state it needs to send valid transactions.

Stage: devnet. Pure bookkeeping, no I/O.

Invariant: a transaction is only built from *committed* state (as of the last mined block)
minus what earlier transactions of the block being built already spend; credits land when the
block is mined. So no transaction depends on another one in the same block, and a block stays
valid whatever order the node puts its transactions in.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from avadata.devnet.evm.ledger import ContractRecord


@dataclass
class PendingTx:
    """One eth_sendTransaction parameter object plus what the ledger must learn when mined."""

    params: dict[str, Any]
    kind: str
    gas: int
    # Contracts this transaction creates (hash and block filled in when mined).
    creates: list[ContractRecord] = field(default_factory=list)
    on_mined: list[Callable[[], None]] = field(default_factory=list)


class Balances:
    """Fungible balances per (asset, holder): committed values and this block's debits."""

    def __init__(self) -> None:
        self.committed: dict[tuple[str, str], int] = defaultdict(int)
        self.debits: dict[tuple[str, str], int] = defaultdict(int)
        self.holders: dict[str, list[str]] = defaultdict(list)  # asset -> holders ever credited
        self._holder_set: set[tuple[str, str]] = set()

    def available(self, asset: str, holder: str) -> int:
        return self.committed[asset, holder] - self.debits[asset, holder]

    def debit(self, asset: str, holder: str, amount: int) -> None:
        assert self.available(asset, holder) >= amount
        self.debits[asset, holder] += amount

    def credit_later(self, pending: PendingTx, asset: str, holder: str, amount: int) -> None:
        pending.on_mined.append(lambda: self.credit_now(asset, holder, amount))

    def credit_now(self, asset: str, holder: str, amount: int) -> None:
        """Credit committed state directly (for state read back from the node)."""
        self.committed[asset, holder] += amount
        if (asset, holder) not in self._holder_set:
            self._holder_set.add((asset, holder))
            self.holders[asset].append(holder)

    def commit(self) -> None:
        for key, amount in self.debits.items():
            self.committed[key] -= amount
        self.debits.clear()

    def pick_holder(self, rng: random.Random, asset: str, tries: int = 8) -> str | None:
        """A random holder of `asset` with something available, or None."""
        holders = self.holders.get(asset)
        if not holders:
            return None
        for _ in range(tries):
            holder = rng.choice(holders)
            if self.available(asset, holder) > 0:
                return holder
        return None


@dataclass
class World:
    users: list[str]
    balances: Balances = field(default_factory=Balances)
    nonces: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    nft_owner: dict[int, str] = field(default_factory=dict)  # committed owners
    nft_ids: list[int] = field(default_factory=list)
    nft_next: int = 1  # Collectible ids start at 1
    nft_locked: set[int] = field(default_factory=set)  # moved in the block being built
    allowances: dict[tuple[str, str, str], int] = field(default_factory=dict)
    allowance_keys: list[tuple[str, str, str]] = field(default_factory=list)
    allowance_locked: set[tuple[str, str, str]] = field(default_factory=set)
    factory_nonce: int = 1  # EIP-161: a contract's nonce starts at 1
    used_salts: list[bytes] = field(default_factory=list)
    children: list[str] = field(default_factory=list)  # committed factory Childs
    native_cursor: int = 0  # next index into native_order
    native_order: list[str] = field(default_factory=list)

    def next_nonce(self, sender: str) -> int:
        nonce = self.nonces[sender]
        self.nonces[sender] = nonce + 1
        return nonce

    def next_native_recipient(self, rng: random.Random) -> str:
        """Every user in turn (shuffled), so native transfers reach all of them, then again."""
        if self.native_cursor >= len(self.native_order):
            self.native_order = list(self.users)
            rng.shuffle(self.native_order)
            self.native_cursor = 0
        user = self.native_order[self.native_cursor]
        self.native_cursor += 1
        return user

    def set_allowance_later(
        self, pending: PendingTx, key: tuple[str, str, str], amount: int
    ) -> None:
        self.allowance_locked.add(key)

        def apply() -> None:
            if key not in self.allowances:
                self.allowance_keys.append(key)
            self.allowances[key] = amount

        pending.on_mined.append(apply)

    def move_nft_later(self, pending: PendingTx, token_id: int, to: str) -> None:
        self.nft_locked.add(token_id)

        def apply() -> None:
            if token_id not in self.nft_owner:
                self.nft_ids.append(token_id)
            self.nft_owner[token_id] = to

        pending.on_mined.append(apply)

    def end_block(self) -> None:
        """After a block is mined and its on_mined callbacks ran: debits become final."""
        self.balances.commit()
        self.nft_locked.clear()
        self.allowance_locked.clear()
