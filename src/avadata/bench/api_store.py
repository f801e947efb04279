"""A large synthetic EVM store for `avadata bench api`, written through the store's writer.

Stage: bench (the store `api_load` serves). Deterministic: block n holds `txs_per_block`
transactions; each moves an ERC-20 amount between accounts (account 0, "hot", takes part in one
in four, and block 0 mints it every token), every tenth mints an ERC-721, every fifth makes an
internal value call (from the token, so the tokens have internal transactions to list), and the
hot account's every twentieth creates a contract through its token (a factory deployment, for
the deployments list), and every tenth, offset by five, mints one of 16 ERC-1155 token ids
(so the ERC-1155 and collectible balances have rows to serve). Nothing here is checked against
a node: the benchmark measures serving, not indexing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from avadata.records import (
    Block,
    CallType,
    ContractCreation,
    EvmBatch,
    InternalCall,
    TokenInfo,
    TokenStandard,
    TokenTransfer,
    Transaction,
)
from avadata.store import partitions, tiles
from avadata.store.types import Engine
from avadata.store.writer import mark_chain, write_evm_batch

CHAIN_ID = 43199
ZERO = "0x" + "00" * 20
TOKENS = ["0x" + f"{0xE0 + i:02x}" * 20 for i in range(5)]
NFT = "0x" + "ee" * 20
MULTI = "0x" + "ef" * 20  # the ERC-1155 contract


def account(i: int) -> str:
    return "0x" + f"{i + 1:040x}"


HOT = account(0)


def _hash(kind: int, a: int, b: int = 0) -> str:
    return "0x" + f"{kind:08x}{a:028x}{b:028x}"


def tx_hash(block: int, index: int) -> str:
    """The hash of transaction `index` of block `block`."""
    return _hash(2, block, index)


def created(k: int) -> str:
    """The address of the `k`-th contract the hot account created (from 1)."""
    return "0x" + f"{0xC0DE:08x}{k:032x}"


# What every row of one transaction starts with (the records share this prefix):
# chain, block number, block hash, block timestamp, tx index, tx hash.
TxHead = tuple[int, int, str, int, int, str]


@dataclass(slots=True)
class _Counts:
    """Numbers that run on across batches: the last NFT minted and contract created."""

    nft_id: int = 0
    created: int = 0


def build(
    engine: Engine,
    txs: int,
    *,
    txs_per_block: int = 50,
    blocks_per_batch: int = 200,
    accounts: int = 5_000,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Write about `txs` transactions; returns the number of blocks written."""
    rng = random.Random(7)
    n_blocks = max(1, txs // txs_per_block)
    counts = _Counts()
    for first in range(0, n_blocks, blocks_per_batch):
        last = min(n_blocks, first + blocks_per_batch) - 1
        batch = EvmBatch(chain_id=CHAIN_ID, first_block=first, last_block=last)
        if first == 0:
            batch.tokens = [
                TokenInfo(CHAIN_ID, t, TokenStandard.ERC20, f"Token {i}", f"TK{i}", 18)
                for i, t in enumerate(TOKENS)
            ] + [
                TokenInfo(CHAIN_ID, NFT, TokenStandard.ERC721, "Bench NFT", "BNFT", None),
                TokenInfo(CHAIN_ID, MULTI, TokenStandard.ERC1155, None, None, None),
            ]
        for n in range(first, last + 1):
            _add_block(batch, n, txs_per_block, rng, accounts, counts)
        write_evm_batch(engine, batch)
        if progress is not None:
            progress((last + 1) * txs_per_block)
    mark_chain(engine, CHAIN_ID, name="Bench", network="testnet")
    return n_blocks


# Transactions the writer writes before the server copies them (PostgreSQL): one leaf of each
# partitioned table, so a 10M store has 20 leaves per table (store/tiles.py).
SEGMENT_TXS = 500_000
TXS_PER_BLOCK = 50
SECONDS_PER_BLOCK = 2  # _add_block's timestamps


def build_fast(
    engine: Engine,
    txs: int,
    *,
    segment_txs: int = SEGMENT_TXS,
    progress: Callable[[int], None] | None = None,
) -> str:
    """Write about `txs` transactions (at least `txs`), the fastest way the engine allows, and
    say how: on PostgreSQL the writer writes the first `segment_txs` (a leaf of
    `segment_txs // 50` blocks per partitioned table) and the server copies them up the chain
    (store/tiles.py); elsewhere the writer writes them all."""
    if not tiles.available(engine) or txs <= segment_txs:
        build(engine, txs, progress=progress)
        return "all through the store's writer"
    blocks = segment_txs // TXS_PER_BLOCK
    with engine.begin() as conn:
        partitions.ensure(conn, CHAIN_ID, 0, 0, width=blocks)
    build(engine, blocks * TXS_PER_BLOCK, progress=progress)
    copies = -(-txs // (blocks * TXS_PER_BLOCK)) - 1
    tiles.copy_segment(engine, CHAIN_ID, blocks, copies, SECONDS_PER_BLOCK)
    return (
        f"{blocks * TXS_PER_BLOCK:,} through the store's writer, then {copies} copies of them "
        f"by the server (INSERT ... SELECT into new leaves of {blocks:,} blocks)"
    )


def _add_block(
    batch: EvmBatch, n: int, txs_per_block: int, rng: random.Random, accounts: int, counts: _Counts
) -> None:
    bh, ts = _hash(1, n), 1_700_000_000 + 2 * n
    gas = 21_000 * txs_per_block
    parent = _hash(1, n - 1) if n else "0x" + "00" * 32
    fees = gas * 26 * 10**9
    batch.blocks.append(
        Block(CHAIN_ID, n, bh, parent, ts, gas, 15_000_000, 25 * 10**9, txs_per_block, ZERO, fees)
    )
    for i in range(txs_per_block):
        hot = rng.random() < 0.25
        sender = HOT if hot else account(rng.randrange(1, accounts))
        receiver = account(rng.randrange(1, accounts))
        token = TOKENS[rng.randrange(len(TOKENS))]
        amount = rng.randrange(1, 10**18)
        if n == 0 and i < len(TOKENS):
            # Genesis mints the hot account enough of every token to stay positive
            # (it only ever sends), so balances:listErc20 has balances to serve.
            receiver, token, amount = HOT, TOKENS[i], 10**30
        head: TxHead = (CHAIN_ID, n, bh, ts, i, tx_hash(n, i))
        success = rng.random() > 0.05
        _add_transfer_tx(batch, head, sender, receiver, token, amount, success, txs_per_block)
        if hot and i % 20 == 0:
            counts.created += 1
            address = created(counts.created)
            batch.contracts.append(
                ContractCreation(CHAIN_ID, address, n, ts, i, 1, head[5], sender, token, "CREATE")
            )
        if i % 10 == 0:
            counts.nft_id += 1
            batch.transfers.append(
                TokenTransfer(
                    *head, 2 * i + 1, 0, NFT, TokenStandard.ERC721, ZERO, sender, counts.nft_id, 1
                )
            )
        if i % 10 == 5:
            batch.transfers.append(
                TokenTransfer(
                    *head, 2 * i + 1, 0, MULTI, TokenStandard.ERC1155, ZERO, sender, n % 16, 5
                )
            )
        if i % 5 == 0:
            for k, (up, depth, frm, to, val) in enumerate(
                ((None, 0, sender, token, 0), (0, 1, token, receiver, 10**15))
            ):
                batch.internal_calls.append(
                    InternalCall(
                        *head, k, up, depth, "CALL", frm, to, val, 50_000, 20_000, False, None
                    )
                )


def _add_transfer_tx(
    batch: EvmBatch,
    head: TxHead,
    sender: str,
    receiver: str,
    token: str,
    amount: int,
    success: bool,
    txs_per_block: int,
) -> None:
    """The transaction's own row and its ERC-20 transfer (block 0's are mints)."""
    n, i = head[1], head[4]
    batch.transactions.append(
        Transaction(
            *head,
            sender,
            token,
            0,
            90_000,
            26 * 10**9,
            52_000,
            n * txs_per_block + i,
            2,
            success,
            CallType.CONTRACT_CALL,
            "0xa9059cbb",
            "transfer(address,uint256)",
            None,
        )
    )
    frm = ZERO if n == 0 else sender
    batch.transfers.append(
        TokenTransfer(*head, 2 * i, 0, token, TokenStandard.ERC20, frm, receiver, None, amount)
    )
