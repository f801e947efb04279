"""An EvmBatch turned into what the writer hands the database: row tuples per table.

Stage: store, pure (no connection). `prepare` is the part of writing a batch that needs no
database: records to row tuples (`rows.py`). The indexer runs it in its fetch process, so the
process that holds the write transaction only encodes and executes statements;
`writer.write_evm_batch` runs it in place. The column types' encoders (uint256 from 2**63 up
as padded text where the engine lacks a 256-bit number type) run in the writer, in
`bulk_insert_ignore`: an int pickles to a few bytes where its 78-digit text takes 80, so
encoding after the crossing makes what crosses smaller and the fetch process's share cheaper
(docs/benchmarks.md).

Invariant: a PreparedBatch holds plain tuples, ints, str, bool and None (plus the few token
infos), so it crosses a process boundary cheaply: pickling the records themselves (then frozen
dataclasses) cost as much as decoding them.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any

from avadata.records import (
    EvmBatch,
    TokenInfo,
    TokenStandard,
    TokenTransfer,
)
from avadata.store import rows as R


@dataclass(slots=True)
class PreparedBatch:
    chain_id: int
    first_block: int
    last_block: int
    has_traces: bool
    # (number, hash, parent_hash) of each block, in block order: the continuity check's input.
    chain: list[tuple[int, str, str]]
    # evm_blocks rows, in block order, with cumulative_txs (the last column) left 0:
    # it depends on the stored block before the batch, which only the writer can read.
    block_rows: list[tuple[Any, ...]]
    tx_counts: list[int]
    # (table name, columns, rows) in the order they are written.
    tables: list[tuple[str, tuple[str, ...], list[tuple[Any, ...]]]]
    # Token transfers in position order, as `rows.transfer_row` tuples (TRANSFER_COLUMNS order;
    # token_transfers' rows, the same list): the balance histories are computed from them
    # inside the write transaction.
    transfers: list[tuple[Any, ...]]
    tokens: list[TokenInfo]
    transactions: int
    malformed_logs: int
    # Each applier's input, computed ahead (see indexer.appliers.SplitApplier), in applier order.
    applier_inputs: list[Any] = field(default_factory=list)

    @property
    def last_hash(self) -> str:
        return self.chain[-1][1]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its plain part in marshal's format: the rows are tuples of ints, str,
        bool and None, which marshal writes and reads faster than pickle (docs/benchmarks.md).
        The two processes run the same interpreter, and the bytes come from the indexer's own
        fetch process."""
        plain = (
            self.chain_id,
            self.first_block,
            self.last_block,
            self.has_traces,
            self.chain,
            self.block_rows,
            self.tx_counts,
            self.tables,
            self.transfers,
            self.transactions,
            self.malformed_logs,
        )
        return (_unmarshal, (marshal.dumps(plain), self.tokens, self.applier_inputs))

    def transfer_records(self) -> list[TokenTransfer]:
        out = []
        for row in self.transfers:
            (chain, number, logi, bi, txi, txh, bhash, ts, token, std, frm, to, tid, v, op) = row
            out.append(
                TokenTransfer(
                    chain,
                    number,
                    bhash,
                    ts,
                    txi,
                    txh,
                    logi,
                    bi,
                    token,
                    _STANDARDS[std],
                    frm,
                    to,
                    tid,
                    v,
                    op,
                )
            )
        return out


# A row's standard (its value) as the enum, by lookup: the enum's own constructor is a Python
# call per transfer.
_STANDARDS = {s.value: s for s in TokenStandard}


def _unmarshal(plain: bytes, tokens: list[TokenInfo], applier_inputs: list[Any]) -> PreparedBatch:
    (chain_id, first, last, traces, chain, block_rows, tx_counts, tables, transfers, txs, bad) = (
        marshal.loads(plain)
    )
    return PreparedBatch(
        chain_id,
        first,
        last,
        traces,
        chain,
        block_rows,
        tx_counts,
        tables,
        transfers,
        tokens,
        txs,
        bad,
        applier_inputs,
    )


def check_batch(batch: EvmBatch) -> None:
    """ValueError when the batch is empty, lacks its last block or mixes chains."""
    if batch.last_block < batch.first_block:
        raise ValueError(f"empty range {batch.first_block}..{batch.last_block}")
    seen_last = False
    for b in batch.blocks:
        if b.chain_id != batch.chain_id or not batch.first_block <= b.number <= batch.last_block:
            raise ValueError(f"block {b.chain_id}/{b.number} outside the batch")
        seen_last = seen_last or b.number == batch.last_block
    if not seen_last:
        raise ValueError(f"batch lacks its last block {batch.last_block}")


def prepare(batch: EvmBatch, applier_inputs: list[Any] | None = None) -> PreparedBatch:
    """Rows of every table `batch` writes. Raises ValueError as `check_batch` does."""
    check_batch(batch)
    blocks = sorted(batch.blocks, key=lambda x: x.number)
    transfers = sorted(batch.transfers, key=lambda t: (t.block_number, t.log_index, t.batch_index))
    calls = batch.internal_calls
    transfer_rows = [R.transfer_row(t) for t in transfers]
    nfts = {
        (t.token, t.token_id): str(t.standard)
        for t in transfers
        if t.token_id is not None and t.standard is not TokenStandard.ERC20
    }

    # By table name (schema.py's): this module runs in the fetch process, which imports no
    # SQLAlchemy (~0.2 s of its start, on the way to its first batch).
    tables = [
        ("evm_txs", R.TX_COLUMNS, [R.tx_row(t) for t in batch.transactions]),
        ("evm_tx_inputs", R.TX_INPUT_COLUMNS, R.tx_input_rows(batch.transactions)),
        ("evm_logs", R.LOG_COLUMNS, [R.log_row(lg) for lg in batch.logs]),
        # Their internal_call_participants links follow from these: the writer derives them.
        ("internal_calls", R.CALL_COLUMNS, [R.call_row(c) for c in calls]),
        ("contracts", R.CONTRACT_COLUMNS, [R.contract_row(c) for c in batch.contracts]),
        ("native_balances", R.NATIVE_COLUMNS, [R.native_row(n) for n in batch.native_balances]),
        # Their transfer_participants links follow from these: the writer derives them.
        ("token_transfers", R.TRANSFER_COLUMNS, transfer_rows),
        (
            "nft_tokens",
            R.NFT_TOKEN_COLUMNS,
            [(batch.chain_id, tok, tid, std) for (tok, tid), std in nfts.items()],
        ),
    ]
    return PreparedBatch(
        chain_id=batch.chain_id,
        first_block=batch.first_block,
        last_block=batch.last_block,
        has_traces=batch.has_traces,
        chain=[(b.number, b.hash, b.parent_hash) for b in blocks],
        block_rows=[R.block_row(b, 0) for b in blocks],
        tx_counts=[b.tx_count for b in blocks],
        tables=[t for t in tables if t[2]],
        transfers=transfer_rows,
        tokens=list(batch.tokens),
        transactions=len(batch.transactions),
        malformed_logs=batch.stats.malformed_logs,
        applier_inputs=list(applier_inputs or []),
    )
