"""A small synthetic EVM chain written through the store's writer, for API tests.

Every value is chosen here, so tests can compute what the API must answer independently of
the store (the `Chain` object keeps the records it wrote).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from avadata.records import (
    Block,
    CallType,
    ContractCreation,
    EvmBatch,
    InternalCall,
    NativeBalance,
    TokenInfo,
    TokenStandard,
    TokenTransfer,
    Transaction,
)
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.writer import mark_chain, write_evm_batch

CHAIN_ID = 43112
BLOCKCHAIN_ID = "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU"
ALICE = "0x" + "a1" * 20
BOB = "0x" + "b0" * 20
CAROL = "0x" + "c0" * 20
ERC20 = "0x" + "20" * 20
ERC20_NO_META = "0x" + "21" * 20
ERC721 = "0x" + "72" * 20
ERC1155 = "0x" + "11" * 20
FACTORY = "0x" + "fa" * 20
N_BLOCKS = 30
ZERO = "0x" + "00" * 20


def _h(kind: int, *parts: int) -> str:
    body = "".join(f"{p:08x}" for p in (kind, *parts))
    return "0x" + body.rjust(64, "0")


@dataclass
class Chain:
    blocks: list[Block] = field(default_factory=list)
    txs: list[Transaction] = field(default_factory=list)
    transfers: list[TokenTransfer] = field(default_factory=list)
    calls: list[InternalCall] = field(default_factory=list)
    contracts: list[ContractCreation] = field(default_factory=list)
    natives: list[NativeBalance] = field(default_factory=list)
    tokens: list[TokenInfo] = field(default_factory=list)


def build() -> tuple[Chain, list[EvmBatch]]:
    """N_BLOCKS blocks; block n holds n % 4 transactions and a varied mix of transfers."""
    ch = Chain()
    ch.tokens = [
        TokenInfo(CHAIN_ID, ERC20, TokenStandard.ERC20, "Token", "TKN", 18),
        TokenInfo(CHAIN_ID, ERC20_NO_META, TokenStandard.ERC20, None, None, None),
        TokenInfo(CHAIN_ID, ERC721, TokenStandard.ERC721, "Collectible", "COL", None),
        TokenInfo(CHAIN_ID, ERC1155, TokenStandard.ERC1155, None, None, None),
    ]
    batches: list[EvmBatch] = []
    for n in range(N_BLOCKS):
        bh = _h(1, n)
        ts = 1_700_000_000 + 2 * n
        batch = EvmBatch(chain_id=CHAIN_ID, first_block=n, last_block=n)
        ntx = n % 4
        block = Block(
            chain_id=CHAIN_ID,
            number=n,
            hash=bh,
            parent_hash=_h(1, n - 1) if n else "0x" + "00" * 32,
            timestamp=ts,
            gas_used=21_000 * ntx,
            gas_limit=8_000_000,
            base_fee=25_000_000_000,
            tx_count=ntx,
            miner=CAROL,
            fees_spent=21_000 * ntx * 26_000_000_000,
        )
        batch.blocks.append(block)
        for i in range(ntx):
            th = _h(2, n, i)
            sender = ALICE if i % 2 == 0 else BOB
            creation = n % 10 == 3 and i == 0
            batch.transactions.append(
                Transaction(
                    chain_id=CHAIN_ID,
                    block_number=n,
                    block_hash=bh,
                    block_timestamp=ts,
                    tx_index=i,
                    hash=th,
                    from_address=sender,
                    to_address=None if creation else ERC20,
                    value=10**15 * (n + i),
                    gas_limit=100_000,
                    gas_price=26_000_000_000,
                    gas_used=21_000,
                    nonce=n * 4 + i,
                    tx_type=2,
                    success=(n + i) % 5 != 0,
                    call_type=CallType.CONTRACT_CREATION if creation else CallType.CONTRACT_CALL,
                    method_hash="" if creation else "0xa9059cbb",
                    method_name=None if creation else "transfer(address,uint256)",
                    contract_address=("0x" + f"{n:02x}" * 20) if creation else None,
                    input="0x6080" if creation else "0xa9059cbb" + f"{n:064x}{i:064x}",
                    max_fee_per_gas=30_000_000_000 if i % 2 == 0 else None,
                    max_priority_fee_per_gas=1_000_000_000 if i % 2 == 0 else None,
                )
            )
            if creation:
                addr = "0x" + f"{n:02x}" * 20
                batch.contracts.append(
                    ContractCreation(CHAIN_ID, addr, n, ts, i, 0, th, ALICE, None, "CREATE")
                )
            # ERC-20 transfer alice -> bob (and back on odd tx indexes).
            src, dst = (ALICE, BOB) if i % 2 == 0 else (BOB, ALICE)
            batch.transfers.append(
                TokenTransfer(
                    CHAIN_ID,
                    n,
                    bh,
                    ts,
                    i,
                    th,
                    10 * i,
                    0,
                    ERC20,
                    TokenStandard.ERC20,
                    src,
                    dst,
                    None,
                    10**18 + n,
                )
            )
            if n % 3 == 0:
                batch.transfers.append(
                    TokenTransfer(
                        CHAIN_ID,
                        n,
                        bh,
                        ts,
                        i,
                        th,
                        10 * i + 1,
                        0,
                        ERC721,
                        TokenStandard.ERC721,
                        "0x" + "00" * 20 if n < 15 else ALICE,
                        ALICE if n < 15 else BOB,
                        n * 10 + i,
                        1,
                    )
                )
            if n % 5 == 1:
                for k in range(2):
                    batch.transfers.append(
                        TokenTransfer(
                            CHAIN_ID,
                            n,
                            bh,
                            ts,
                            i,
                            th,
                            10 * i + 2,
                            k,
                            ERC1155,
                            TokenStandard.ERC1155,
                            ALICE,
                            CAROL,
                            2**200 + k,
                            5 + k,
                            ALICE,
                        )
                    )
            if n % 7 == 2:
                batch.transfers.append(
                    TokenTransfer(
                        CHAIN_ID,
                        n,
                        bh,
                        ts,
                        i,
                        th,
                        10 * i + 3,
                        0,
                        ERC20_NO_META,
                        TokenStandard.ERC20,
                        "0x" + "00" * 20,
                        ALICE,
                        None,
                        7,
                    )
                )
            # A call tree: root, a value call alice's contract -> carol, a zero-value call,
            # a factory CREATE2, and a reverted value call.
            frames = [
                (None, 0, "CALL", sender, ERC20, 5, False),
                (0, 1, "CALL", ERC20, CAROL, 1000 + n, False),
                (0, 1, "CALL", ERC20, BOB, 0, False),
                (0, 1, "CREATE2", FACTORY, "0x" + f"{n:02x}" * 19 + "ee", 0, False),
                (0, 1, "CALL", ERC20, ALICE, 77, True),
            ]
            for k, (parent, depth, op, fa, ta, val, rev) in enumerate(frames):
                batch.internal_calls.append(
                    InternalCall(
                        CHAIN_ID,
                        n,
                        bh,
                        ts,
                        i,
                        th,
                        k,
                        parent,
                        depth,
                        op,
                        fa,
                        ta,
                        val,
                        50_000,
                        30_000 - k,
                        rev,
                        "execution reverted" if rev else None,
                    )
                )
        if n == 1:
            # A mint to alice and bob, so their ERC-20 balances stay positive.
            for k, who in enumerate((ALICE, BOB)):
                batch.transfers.append(
                    TokenTransfer(
                        CHAIN_ID,
                        n,
                        bh,
                        ts,
                        0,
                        _h(2, n, 0),
                        90 + k,
                        0,
                        ERC20,
                        TokenStandard.ERC20,
                        "0x" + "00" * 20,
                        who,
                        None,
                        10**24,
                    )
                )
        for who in (ALICE, BOB):
            batch.native_balances.append(NativeBalance(CHAIN_ID, who, n, 10**20 - n * 10**15))
        if n == 0:
            batch.tokens = list(ch.tokens)
        batches.append(batch)
        ch.blocks.append(block)
        ch.txs.extend(batch.transactions)
        ch.transfers.extend(batch.transfers)
        ch.calls.extend(batch.internal_calls)
        ch.contracts.extend(batch.contracts)
        ch.natives.extend(batch.native_balances)
    return ch, batches


def write_store(path: Path) -> tuple[str, Chain]:
    """Create an SQLite store at `path` holding the synthetic chain; returns (url, chain)."""
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    migrate(engine)
    chain, batches = build()
    for b in batches:
        write_evm_batch(engine, b)
    mark_chain(engine, CHAIN_ID, name="Synthetic", blockchain_id=BLOCKCHAIN_ID, network="testnet")
    engine.dispose()
    return url, chain
