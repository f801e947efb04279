"""Build EvmBatch values from records.py dataclasses, with plausible fields and few arguments.

Deterministic: hashes derive from (chain, block, index), so two builds of the same range are
equal and a replay in a test writes the very same records.
"""

from __future__ import annotations

import hashlib

from avadata.records import (
    Block,
    CallType,
    ContractCreation,
    EvmBatch,
    InternalCall,
    Log,
    NativeBalance,
    TokenInfo,
    TokenStandard,
    TokenTransfer,
    Transaction,
)

ZERO = "0x" + "0" * 40
TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"


def h(*parts: object) -> str:
    """A deterministic lower-case 32-byte hex hash of `parts`."""
    return "0x" + hashlib.sha256(repr(parts).encode()).hexdigest()


def addr(n: int) -> str:
    """A lower-case address numbered n (n=0 is the zero address)."""
    return f"0x{n:040x}"


def block(chain_id: int, number: int, tx_count: int = 0, ts0: int = 1_700_000_000) -> Block:
    return Block(
        chain_id=chain_id,
        number=number,
        hash=h("block", chain_id, number),
        parent_hash=h("block", chain_id, number - 1),
        timestamp=ts0 + 2 * number,
        gas_used=21_000 * tx_count,
        gas_limit=15_000_000,
        base_fee=25 * 10**9,
        tx_count=tx_count,
        miner=addr(0xC0FFEE),
        fees_spent=21_000 * tx_count * 25 * 10**9,
    )


def tx(chain_id: int, number: int, index: int, *, value: int = 10**18, success: bool = True):
    return Transaction(
        chain_id=chain_id,
        block_number=number,
        block_hash=h("block", chain_id, number),
        block_timestamp=1_700_000_000 + 2 * number,
        tx_index=index,
        hash=h("tx", chain_id, number, index),
        from_address=addr(1000 + index),
        to_address=addr(2000 + index),
        value=value,
        gas_limit=21_000,
        gas_price=25 * 10**9,
        gas_used=21_000,
        nonce=number,
        tx_type=2,
        success=success,
        call_type=CallType.NATIVE_TRANSFER,
        method_hash="",
        method_name=None,
        contract_address=None,
        input="0x",
        max_fee_per_gas=30 * 10**9,
        max_priority_fee_per_gas=10**9 + index,
    )


def transfer(
    chain_id: int,
    number: int,
    log_index: int,
    token: str,
    frm: str,
    to: str,
    value: int,
    *,
    standard: TokenStandard = TokenStandard.ERC20,
    token_id: int | None = None,
    batch_index: int = 0,
    tx_index: int = 0,
) -> TokenTransfer:
    return TokenTransfer(
        chain_id=chain_id,
        block_number=number,
        block_hash=h("block", chain_id, number),
        block_timestamp=1_700_000_000 + 2 * number,
        tx_index=tx_index,
        tx_hash=h("tx", chain_id, number, tx_index),
        log_index=log_index,
        batch_index=batch_index,
        token=token,
        standard=standard,
        from_address=frm,
        to_address=to,
        token_id=token_id,
        value=value,
        operator=frm if standard == TokenStandard.ERC1155 else None,
    )


def batch(
    chain_id: int,
    first: int,
    last: int,
    *,
    transfers: list[TokenTransfer] | None = None,
    txs_per_block: int = 0,
    **extra: object,
) -> EvmBatch:
    """Blocks first..last, `txs_per_block` plain transfers each, plus the given records."""
    b = EvmBatch(chain_id=chain_id, first_block=first, last_block=last)
    for n in range(first, last + 1):
        b.blocks.append(block(chain_id, n, txs_per_block))
        b.transactions.extend(tx(chain_id, n, i) for i in range(txs_per_block))
    b.transfers = list(transfers or [])
    for k, v in extra.items():
        setattr(b, k, v)
    return b


def rich_batch(chain_id: int, first: int, last: int) -> EvmBatch:
    """A batch with at least one record of every kind, for idempotency and atomicity tests."""
    t20, t721, t1155 = addr(0xE20), addr(0xE721), addr(0xE1155)
    transfers = []
    logs = []
    calls = []
    for n in range(first, last + 1):
        transfers += [
            transfer(chain_id, n, 0, t20, ZERO, addr(1), 10**30),
            transfer(chain_id, n, 1, t20, addr(1), addr(2), 7 * 10**17),
            transfer(
                chain_id, n, 2, t721, ZERO, addr(3), 1, standard=TokenStandard.ERC721, token_id=n
            ),
            transfer(
                chain_id,
                n,
                3,
                t1155,
                addr(4),
                addr(5),
                3,
                standard=TokenStandard.ERC1155,
                token_id=2**256 - 1,
                batch_index=0,
            ),
            transfer(
                chain_id,
                n,
                3,
                t1155,
                addr(4),
                addr(5),
                9,
                standard=TokenStandard.ERC1155,
                token_id=5,
                batch_index=1,
            ),
        ]
        logs += [
            Log(
                chain_id,
                n,
                0,
                i,
                h("tx", chain_id, n, 0),
                t20,
                (TRANSFER_TOPIC, h("a", i), h("b", i))[: i + 1],
                "0x" + "00" * 32,
            )
            for i in range(3)
        ]
        calls += [
            InternalCall(
                chain_id,
                n,
                h("block", chain_id, n),
                1_700_000_000 + 2 * n,
                0,
                h("tx", chain_id, n, 0),
                0,
                None,
                0,
                "CALL",
                addr(1000),
                addr(2000),
                10**18,
                100_000,
                50_000,
                False,
                None,
            ),
            InternalCall(
                chain_id,
                n,
                h("block", chain_id, n),
                1_700_000_000 + 2 * n,
                0,
                h("tx", chain_id, n, 0),
                1,
                0,
                1,
                "STATICCALL",
                addr(2000),
                addr(7),
                0,
                50_000,
                1_000,
                False,
                None,
            ),
            InternalCall(
                chain_id,
                n,
                h("block", chain_id, n),
                1_700_000_000 + 2 * n,
                0,
                h("tx", chain_id, n, 0),
                2,
                0,
                1,
                "CREATE2",
                addr(2000),
                addr(9000 + n),
                0,
                40_000,
                30_000,
                False,
                None,
            ),
        ]
    contracts = [
        ContractCreation(
            chain_id,
            addr(9000 + n),
            n,
            1_700_000_000 + 2 * n,
            0,
            2,
            h("tx", chain_id, n, 0),
            addr(1000),
            addr(2000),
            "CREATE2",
        )
        for n in range(first, last + 1)
    ]
    tokens = [
        TokenInfo(chain_id, t20, TokenStandard.ERC20, "Test", "TST", 18),
        TokenInfo(chain_id, t721, TokenStandard.ERC721, "Nft", None, None),
    ]
    natives = [NativeBalance(chain_id, addr(1000), n, 2**200 + n) for n in range(first, last + 1)]
    return batch(
        chain_id,
        first,
        last,
        transfers=transfers,
        txs_per_block=2,
        logs=logs,
        internal_calls=calls,
        contracts=contracts,
        tokens=tokens,
        native_balances=natives,
    )
