"""The simulators' UTXO sets: one book per chain, and shared memory between chains.

Stage: devnet (P/X simulators). Pure bookkeeping, no I/O. A `Coin` is exactly the avax.UTXO
the chain holds (tx ID, output index, asset, typed output); the book indexes coins by each
owner address so a simulator can pick what a user can spend.

Invariant: a coin is in at most one place: a chain's book, or one destination's shared
memory; `spend` of a coin that is not there is a bug in the simulator and raises KeyError.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from avadata.decode.codec.components import UTXO, LockOut
from avadata.decode.codec.ids import utxo_id


@dataclass(frozen=True, slots=True)
class Coin:
    tx_id: bytes
    index: int
    asset: bytes
    output: Any  # a codec FxState: TransferOutput, LockOut, MintOutput, NftMintOutput, ...

    @property
    def utxo_id(self) -> bytes:
        return utxo_id(self.tx_id, self.index)

    @property
    def amount(self) -> int:
        out = self.output.output if isinstance(self.output, LockOut) else self.output
        return int(getattr(out, "amount", 0))

    @property
    def owners(self) -> tuple[bytes, ...]:
        out = self.output.output if isinstance(self.output, LockOut) else self.output
        addresses: tuple[bytes, ...] = getattr(out, "addresses", ())
        return addresses

    def as_utxo(self) -> UTXO:
        return UTXO(self.tx_id, self.index, self.asset, self.output)


class UtxoBook:
    """The unspent coins of one chain (or of one destination's shared memory)."""

    def __init__(self) -> None:
        self._coins: dict[bytes, Coin] = {}
        self._by_owner: dict[bytes, dict[bytes, Coin]] = {}

    def add(self, coin: Coin) -> None:
        key = coin.utxo_id
        if key in self._coins:
            raise KeyError(f"UTXO {key.hex()} created twice")
        self._coins[key] = coin
        for owner in coin.owners:
            self._by_owner.setdefault(owner, {})[key] = coin

    def spend(self, tx_id: bytes, index: int) -> Coin:
        coin = self._coins.pop(utxo_id(tx_id, index))
        for owner in coin.owners:
            del self._by_owner[owner][coin.utxo_id]
        return coin

    def get(self, tx_id: bytes, index: int) -> Coin | None:
        return self._coins.get(utxo_id(tx_id, index))

    def owned(
        self, owner: bytes, asset: bytes | None = None, kind: type | None = None
    ) -> list[Coin]:
        """`owner`'s coins (oldest first), optionally of one asset and one output class."""
        coins = self._by_owner.get(owner, {}).values()
        return [
            c
            for c in coins
            if (asset is None or c.asset == asset) and (kind is None or type(c.output) is kind)
        ]

    def balance(self, owner: bytes, asset: bytes, kind: type | None = None) -> int:
        return sum(c.amount for c in self.owned(owner, asset, kind))

    def __iter__(self) -> Iterator[Coin]:
        return iter(list(self._coins.values()))

    def __len__(self) -> int:
        return len(self._coins)

    def __contains__(self, key: bytes) -> bool:
        return key in self._coins


class SharedMemory:
    """Atomic UTXOs exported to a chain and not yet imported there, with the simulated time
    from which they can be imported (the time the exporting block was accepted)."""

    def __init__(self) -> None:
        self.books: dict[bytes, UtxoBook] = {}
        self.available_at: dict[bytes, int] = {}
        self.source: dict[bytes, bytes] = {}  # UTXO ID -> the exporting chain

    def book(self, destination: bytes) -> UtxoBook:
        return self.books.setdefault(destination, UtxoBook())

    def put(self, destination: bytes, source: bytes, coin: Coin, available_at: int) -> None:
        self.book(destination).add(coin)
        self.available_at[coin.utxo_id] = available_at
        self.source[coin.utxo_id] = source

    def importable(
        self, destination: bytes, owner: bytes, now: int, source: bytes | None = None
    ) -> list[Coin]:
        """`owner`'s coins waiting on `destination` (from `source`), oldest first. A coin is
        importable strictly after the block that exported it was accepted."""
        return [
            c
            for c in self.book(destination).owned(owner)
            if self.available_at.get(c.utxo_id, 0) < now
            and (source is None or self.source.get(c.utxo_id) == source)
        ]

    def take(self, destination: bytes, coin: Coin) -> Coin:
        self.available_at.pop(coin.utxo_id, None)
        self.source.pop(coin.utxo_id, None)
        return self.book(destination).spend(coin.tx_id, coin.index)
