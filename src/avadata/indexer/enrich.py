"""What a decoded batch still needs from the node: token metadata and native balances.

Indexer stage glue: asks the source, then hands the answers to pure decoders.
"""

from __future__ import annotations

from avadata.decode.tokens import token_info
from avadata.records import EvmBatch, NativeBalance, TokenStandard
from avadata.sources.evm import EvmSource


def new_tokens(batch: EvmBatch, known: set[str]) -> dict[str, TokenStandard]:
    found: dict[str, TokenStandard] = {}
    for t in batch.transfers:
        if t.token not in known and t.token not in found:
            found[t.token] = t.standard
    return found


def touched(batch: EvmBatch) -> list[tuple[str, int]]:
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
    return sorted(pairs, key=lambda p: (p[1], p[0]))


async def enrich(
    source: EvmSource, batch: EvmBatch, known_tokens: set[str], *, native_balances: bool
) -> None:
    tokens = new_tokens(batch, known_tokens)
    if tokens:
        addresses = list(tokens)
        raw = await source.token_metadata(addresses)
        for addr, results in zip(addresses, raw, strict=True):
            answers = [r.result if r.error is None else None for r in results]
            batch.tokens.append(token_info(batch.chain_id, addr, tokens[addr], answers))
    if native_balances:
        pairs = touched(batch)
        if pairs:
            values = await source.balances(pairs)
            batch.native_balances.extend(
                NativeBalance(batch.chain_id, addr, block, value)
                for (addr, block), value in zip(pairs, values, strict=True)
            )
