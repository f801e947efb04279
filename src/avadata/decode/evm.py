"""The node's EVM JSON (blocks, receipts, logs, traces) to records, pure: no I/O.

Per-field tables would hide little here; each record is built in one place, below.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from avadata.decode.hexjson import address, optional_quantity, quantity
from avadata.decode.methods import classify
from avadata.decode.traces import (
    PLAIN_GAS,
    TxContext,
    creations,
    geth_calls,
    geth_root,
    parity_by_tx,
    parity_calls,
    plain_transfer,
    single_frame,
)
from avadata.decode.transfers import decode_transfers
from avadata.records import (
    Block,
    ContractCreation,
    EvmBatch,
    InternalCall,
    Log,
    RawBlock,
    TraceStyle,
    Transaction,
)


def _effective_gas_price(
    tx: dict[str, Any],
    receipt: dict[str, Any],
    base_fee: int | None,
    max_fee: int | None,
    max_tip: int | None,
) -> int:
    """The receipt's price; else, for a fee-capped transaction (`max_fee`, `max_tip`: its caps
    as decode reads them anyway), what the base fee and caps make it; else its gasPrice."""
    price = receipt.get("effectiveGasPrice")
    if price is not None:
        return quantity(price)
    if max_fee is not None and base_fee is not None:
        return min(max_fee, base_fee + (max_tip or 0))
    return quantity(tx.get("gasPrice"))


_new = tuple.__new__


def _logs(
    chain_id: int, number: int, logs: list[dict[str, Any]], tx_index: int, tx_hash: str
) -> list[Log]:
    """A receipt's logs, placed by the block and transaction they came with (the same a log
    names itself, read once per transaction instead of once per log). Built in Log's field
    order without its keyword-binding constructor: one per log of the chain."""
    return [
        _new(
            Log,
            (
                chain_id,
                number,
                tx_index,
                quantity(lg["logIndex"]),
                tx_hash,
                str(lg["address"]).lower(),
                tuple([str(t).lower() for t in lg.get("topics") or ()]),
                str(lg.get("data") or "0x").lower(),
            ),
        )
        for lg in logs
    ]


def _trace_calls(
    raw: RawBlock, ctxs: list[TxContext], bare: list[bool]
) -> list[list[InternalCall]]:
    """Each transaction's frames, but none for a bare transfer whose trace is its one frame:
    that frame repeats the transaction (from, to, value; no code ran, no call, no error) and
    nothing reads it; a third of the bench chain's frames (docs/store.md)."""
    style = raw.trace_style
    out: list[list[InternalCall]] = []
    if style is TraceStyle.GETH:
        for ctx, item, skip in zip(ctxs, raw.traces, bare, strict=True):
            frame = geth_root(item)
            if frame is None or (skip and single_frame(style, frame)):
                out.append([])
            else:
                out.append(geth_calls(ctx, frame))
        return out
    if style is TraceStyle.PARITY:
        per_tx = parity_by_tx(raw.traces)
        for ctx, skip in zip(ctxs, bare, strict=True):
            frames = per_tx.get(ctx.tx_index, [])
            out.append([] if skip and single_frame(style, frames) else parity_calls(ctx, frames))
        return out
    return [[] for _ in ctxs]


def decode_block(chain_id: int, raw: RawBlock, batch: EvmBatch) -> None:
    """Append one block's records to `batch`."""
    b = raw.block
    number = quantity(b["number"])
    block_hash = str(b["hash"]).lower()
    ts = quantity(b["timestamp"])
    base_fee = optional_quantity(b.get("baseFeePerGas"))
    txs: Sequence[dict[str, Any]] = b.get("transactions") or ()
    receipts = raw.receipts
    if len(receipts) != len(txs):
        raise ValueError(f"block {number}: {len(txs)} transactions but {len(receipts)} receipts")
    fees = 0
    ctxs: list[TxContext] = []
    # Transfers that ran no code: plain, and charged the transfer's gas alone (geth's and
    # parity's traces report gas differently; the receipt does not).
    bare: list[bool] = []
    append_tx = batch.transactions.append
    for tx, rc in zip(txs, receipts, strict=True):
        tx_index = quantity(tx["transactionIndex"])
        to = address(tx.get("to"))
        max_fee = optional_quantity(tx.get("maxFeePerGas"))
        max_tip = optional_quantity(tx.get("maxPriorityFeePerGas"))
        price = _effective_gas_price(tx, rc, base_fee, max_fee, max_tip)
        gas_used = quantity(rc.get("gasUsed"))
        success = quantity(rc.get("status"), 1) == 1
        bare.append(success and gas_used == PLAIN_GAS and plain_transfer(tx))
        fees += price * gas_used
        data = str(tx.get("input") or "0x")
        call_type, method_hash, method_name = classify(to, data)
        tx_hash = str(tx["hash"]).lower()
        sender = str(tx["from"]).lower()
        # In Transaction's field order, without its keyword-binding constructor (one per
        # transaction).
        append_tx(
            _new(
                Transaction,
                (
                    chain_id,
                    number,
                    block_hash,
                    ts,
                    tx_index,
                    tx_hash,
                    sender,
                    to,
                    quantity(tx.get("value")),
                    quantity(tx.get("gas")),
                    price,
                    gas_used,
                    quantity(tx.get("nonce")),
                    quantity(tx.get("type")),
                    success,
                    call_type,
                    method_hash,
                    method_name,
                    address(rc.get("contractAddress")),
                    data,
                    max_fee,
                    max_tip,
                ),
            )
        )
        logs = rc.get("logs")
        if logs:
            batch.logs.extend(_logs(chain_id, number, logs, tx_index, tx_hash))
        ctxs.append(_new(TxContext, (chain_id, number, block_hash, ts, tx_index, tx_hash, sender)))
    batch.blocks.append(
        Block(
            chain_id=chain_id,
            number=number,
            hash=block_hash,
            parent_hash=str(b["parentHash"]).lower(),
            timestamp=ts,
            gas_used=quantity(b.get("gasUsed")),
            gas_limit=quantity(b.get("gasLimit")),
            base_fee=base_fee,
            tx_count=len(txs),
            miner=str(b.get("miner") or "0x" + "0" * 40).lower(),
            fees_spent=fees,
            time_ms=optional_quantity(b.get("timeMilliseconds")),
        )
    )
    for ctx, calls in zip(ctxs, _trace_calls(raw, ctxs, bare), strict=True):
        batch.internal_calls.extend(calls)
        batch.contracts.extend(creations(ctx, calls))
    if raw.trace_style is TraceStyle.NONE:
        # Without traces only top-level creations are known, from the receipts.
        batch.contracts.extend(
            _receipt_creations(chain_id, ts, batch.transactions[-len(txs) :] if txs else [])
        )


def _receipt_creations(chain_id: int, ts: int, txs: list[Transaction]) -> list[ContractCreation]:
    return [
        ContractCreation(
            chain_id=chain_id,
            address=t.contract_address,
            block_number=t.block_number,
            block_timestamp=ts,
            tx_index=t.tx_index,
            trace_index=0,
            tx_hash=t.hash,
            deployer=t.from_address,
            deployer_contract=None,
            creation_type="CREATE",
        )
        for t in txs
        if t.contract_address and t.success
    ]


def to_batch(chain_id: int, raws: Sequence[RawBlock]) -> EvmBatch:
    """Decode a contiguous run of blocks into one batch (transfers included)."""
    batch = empty_batch(chain_id, raws)
    for raw in raws:
        decode_block(chain_id, raw, batch)
    return finish_batch(batch, raws)


def empty_batch(chain_id: int, raws: Sequence[RawBlock]) -> EvmBatch:
    """The batch `to_batch` fills: `decode_block` each raw block into it, then `finish_batch`
    (the steps apart, for a caller that does other work between blocks)."""
    numbers = [quantity(r.block["number"]) for r in raws]
    return EvmBatch(chain_id=chain_id, first_block=min(numbers), last_block=max(numbers))


def finish_batch(batch: EvmBatch, raws: Sequence[RawBlock]) -> EvmBatch:
    """What `to_batch` derives once every block is in: trace coverage and token transfers."""
    batch.has_traces = all(
        r.trace_style is not TraceStyle.NONE for r in raws if r.block.get("transactions")
    )
    meta = {b.number: (b.hash, b.timestamp) for b in batch.blocks}
    batch.transfers.extend(decode_transfers(batch.logs, meta, batch.stats))
    return batch
