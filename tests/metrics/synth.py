"""A random but seeded multi-chain history: EvmBatch records for the writer, and the same facts
as oracle blocks. Timestamps cross day, Monday and month boundaries, include equal timestamps
and whole days without blocks; addresses are shared between chains (aggregates must dedupe).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from avadata.records import (
    Block,
    CallType,
    ContractCreation,
    EvmBatch,
    TokenStandard,
    TokenTransfer,
    Transaction,
)
from tests.metrics.oracle import OBlock, OTx

# 2026-01-20 (a Tuesday): 45 days cover Feb 1 and Mar 1 and six Mondays.
T0 = 1_768_867_200 + 5 * 3600


def _h(*parts: object) -> str:
    return "0x" + hashlib.sha256(repr(parts).encode()).hexdigest()


def _addr(n: int) -> str:
    return f"0x{n:040x}"


@dataclass
class History:
    chain_id: int
    batches: list[EvmBatch] = field(default_factory=list)
    oracle: list[OBlock] = field(default_factory=list)


def history(chain_id: int, seed: int, *, days: int = 45, batch_blocks: int = 25) -> History:
    rnd = random.Random(seed)
    out = History(chain_id)
    ts = T0 + rnd.randrange(3600)
    end = T0 + days * 86400
    number = 0
    blocks: list[tuple[Block, list[Transaction], list[TokenTransfer], list[ContractCreation]]] = []
    contract_seq = 0
    while ts < end:
        txs: list[Transaction] = []
        transfers: list[TokenTransfer] = []
        creations: list[ContractCreation] = []
        ob = OBlock(chain_id, number, ts)
        bh = _h("b", chain_id, number)
        for i in range(rnd.choice([0, 0, 1, 1, 2, 3, 5])):
            sender = _addr(rnd.randrange(1, 40))
            creating = rnd.random() < 0.1
            to = None if creating else _addr(rnd.randrange(1, 60))
            gas_used = rnd.randrange(21_000, 300_000)
            gas_price = rnd.randrange(1, 50) * 10**9 + rnd.randrange(1000)
            th = _h("t", chain_id, number, i)
            ca = None
            if creating:
                contract_seq += 1
                ca = _addr(0xC0000000 + chain_id * 100_000 + contract_seq)
                creations.append(_creation(chain_id, ca, number, ts, i, 0, th, sender, None))
                ob.creators.append(sender)
                if rnd.random() < 0.5:  # a factory deploying a child: deployer is the factory
                    contract_seq += 1
                    child = _addr(0xC0000000 + chain_id * 100_000 + contract_seq)
                    creations.append(_creation(chain_id, child, number, ts, i, 1, th, sender, ca))
                    ob.creators.append(ca)
            txs.append(
                Transaction(
                    chain_id=chain_id,
                    block_number=number,
                    block_hash=bh,
                    block_timestamp=ts,
                    tx_index=i,
                    hash=th,
                    from_address=sender,
                    to_address=to,
                    value=0,
                    gas_limit=gas_used,
                    gas_price=gas_price,
                    gas_used=gas_used,
                    nonce=number,
                    tx_type=2,
                    success=True,
                    call_type=CallType.CONTRACT_CREATION if creating else CallType.CONTRACT_CALL,
                    method_hash="",
                    method_name=None,
                    contract_address=ca,
                )
            )
            ob.txs.append(OTx(sender, to, gas_used, gas_price))
            for k in range(rnd.choice([0, 0, 1, 2])):
                frm, dst = _addr(rnd.randrange(0, 80)), _addr(rnd.randrange(1, 80))
                std = rnd.choice(list(TokenStandard))
                transfers.append(
                    TokenTransfer(
                        chain_id=chain_id,
                        block_number=number,
                        block_hash=bh,
                        block_timestamp=ts,
                        tx_index=i,
                        tx_hash=th,
                        log_index=i * 10 + k,
                        batch_index=0,
                        token=_addr(0xE000 + k),
                        standard=std,
                        from_address=frm,
                        to_address=dst,
                        token_id=None if std is TokenStandard.ERC20 else k,
                        value=1,
                    )
                )
                ob.transfers.append((frm, dst))
        block = Block(
            chain_id=chain_id,
            number=number,
            hash=bh,
            parent_hash=_h("b", chain_id, number - 1),
            timestamp=ts,
            gas_used=sum(t.gas_used for t in txs),
            gas_limit=30_000_000,
            base_fee=None,
            tx_count=len(txs),
            miner=_addr(0),
            fees_spent=sum(t.gas_used * t.gas_price for t in txs),
        )
        blocks.append((block, txs, transfers, creations))
        out.oracle.append(ob)
        number += 1
        r = rnd.random()
        # Mostly minutes apart; sometimes the same second; now and then a silent day or two.
        ts += (
            0
            if r < 0.08
            else (rnd.randrange(86400, 3 * 86400) if r > 0.985 else rnd.randrange(1, 9000))
        )
    for i in range(0, len(blocks), batch_blocks):
        part = blocks[i : i + batch_blocks]
        b = EvmBatch(
            chain_id=chain_id, first_block=part[0][0].number, last_block=part[-1][0].number
        )
        for block, txs, transfers, creations in part:
            b.blocks.append(block)
            b.transactions.extend(txs)
            b.transfers.extend(transfers)
            b.contracts.extend(creations)
        out.batches.append(b)
    return out


def _creation(
    chain_id: int,
    address: str,
    number: int,
    ts: int,
    tx_index: int,
    trace_index: int,
    tx_hash: str,
    sender: str,
    factory: str | None,
) -> ContractCreation:
    return ContractCreation(
        chain_id=chain_id,
        address=address,
        block_number=number,
        block_timestamp=ts,
        tx_index=tx_index,
        trace_index=trace_index,
        tx_hash=tx_hash,
        deployer=sender,
        deployer_contract=factory,
        creation_type="CREATE" if factory is None else "CREATE2",
    )
