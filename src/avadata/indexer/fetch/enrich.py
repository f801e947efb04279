"""What a decoded batch still needs from the node: token metadata and native balances.

Indexer stage glue: asks the source, then hands the answers to pure decoders.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from avadata.decode.tokens import token_info
from avadata.indexer.fetch.protocol import NativeBalanceMode
from avadata.records import EvmBatch, NativeBalance, TokenStandard
from avadata.sources.evm import EvmSource


def new_tokens(batch: EvmBatch, known: set[str]) -> dict[str, TokenStandard]:
    found: dict[str, TokenStandard] = {}
    for t in batch.transfers:
        if t.token not in known and t.token not in found:
            found[t.token] = t.standard
    return found


def touched(batch: EvmBatch) -> set[tuple[str, int]]:
    """(address, block) pairs whose native balance may have changed in that block."""
    pairs: set[tuple[str, int]] = set()
    for b in batch.blocks:
        if b.tx_count:
            pairs.add((b.miner, b.number))
    for tx in batch.transactions:
        pairs.add((tx.from_address, tx.block_number))
        if tx.to_address:
            pairs.add((tx.to_address, tx.block_number))
        if tx.contract_address:
            pairs.add((tx.contract_address, tx.block_number))
    for c in batch.internal_calls:
        if c.value and not c.reverted and c.depth > 0:
            pairs.add((c.from_address, c.block_number))
            if c.to_address:
                pairs.add((c.to_address, c.block_number))
    return pairs


@dataclass(slots=True)
class AskedAtHead:
    """The addresses whose balance a run has already asked at `head` (HEAD mode).

    A later chunk touching one of them at the same head would ask again, get the same answer and
    add the row (address, head) that the earlier chunk already carries (the store ignores it as
    a duplicate): in a backfill the head rarely moves, so that was most of the balance calls.
    Chunks are written in order, so the earlier chunk's row is committed no later than the
    chunk that skipped it. Forgotten when the head moves, and past `limit` addresses, so it
    stays small whatever the chain length."""

    head: int = -1
    asked: set[str] = field(default_factory=set)
    limit: int = 100_000

    def new(self, head: int, addresses: list[str]) -> list[str]:
        if head != self.head or len(self.asked) > self.limit:
            self.head = head
            self.asked = set()
        fresh = [a for a in addresses if a not in self.asked]
        self.asked.update(fresh)
        return fresh


async def enrich(
    source: EvmSource,
    batch: EvmBatch,
    known_tokens: set[str],
    *,
    native_balances: NativeBalanceMode,
    asked: AskedAtHead | None = None,
) -> None:
    tokens = new_tokens(batch, known_tokens)
    if tokens:
        addresses = list(tokens)
        raw = await source.token_metadata(addresses)
        for addr, results in zip(addresses, raw, strict=True):
            answers = [r.result if r.error is None else None for r in results]
            batch.tokens.append(token_info(batch.chain_id, addr, tokens[addr], answers))
    if native_balances is NativeBalanceMode.OFF:
        return
    found = touched(batch)
    if native_balances is NativeBalanceMode.HEAD and found:
        # Every fact stored is exact ("after block H the balance was X"), H being the head.
        head = await source.head()
        addresses = sorted({a for a, _ in found})
        if asked is not None:
            addresses = asked.new(head, addresses)
        pairs = [(address, head) for address in addresses]
    else:
        pairs = sorted(found)
    if pairs:
        values = await source.balances(pairs)
        batch.native_balances.extend(
            NativeBalance(batch.chain_id, addr, block, value)
            for (addr, block), value in zip(pairs, values, strict=True)
        )
