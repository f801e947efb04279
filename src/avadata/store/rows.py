"""Records -> row tuples for the bulk insert path, one converter and column list per table.

Stage: store. Pure functions; `writer.py` sends their output to `dialect.bulk_insert_ignore`.
Invariant: each converter's tuple follows its `*_COLUMNS` order exactly (a test builds every
table through these and reads the records back).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from avadata.records import (
    CREATE_OPS,
    Block,
    ContractCreation,
    InternalCall,
    Log,
    NativeBalance,
    TokenTransfer,
    Transaction,
)

Row = tuple[Any, ...]

BLOCK_COLUMNS = (
    "chain_id",
    "number",
    "hash",
    "parent_hash",
    "timestamp",
    "gas_used",
    "gas_limit",
    "base_fee",
    "tx_count",
    "miner",
    "fees_spent",
    "time_ms",
    "cumulative_txs",
)


def block_row(b: Block, cumulative_txs: int) -> Row:
    return (
        b.chain_id,
        b.number,
        b.hash,
        b.parent_hash,
        b.timestamp,
        b.gas_used,
        b.gas_limit,
        b.base_fee,
        b.tx_count,
        b.miner,
        b.fees_spent,
        b.time_ms,
        cumulative_txs,
    )


TX_COLUMNS = (
    "chain_id",
    "block_number",
    "tx_index",
    "block_hash",
    "block_timestamp",
    "hash",
    "from_address",
    "to_address",
    "value",
    "gas_limit",
    "gas_price",
    "gas_used",
    "nonce",
    "tx_type",
    "success",
    "call_type",
    "method_hash",
    "method_name",
    "contract_address",
)


def tx_row(t: Transaction) -> Row:
    return (
        t.chain_id,
        t.block_number,
        t.tx_index,
        t.block_hash,
        t.block_timestamp,
        t.hash,
        t.from_address,
        t.to_address,
        t.value,
        t.gas_limit,
        t.gas_price,
        t.gas_used,
        t.nonce,
        t.tx_type,
        t.success,
        str(t.call_type),  # a StrEnum's value; drivers may adapt enums by name
        t.method_hash,
        t.method_name,
        t.contract_address,
    )


TX_INPUT_COLUMNS = (
    "chain_id",
    "block_number",
    "tx_index",
    "input",
    "max_fee_per_gas",
    "max_priority_fee_per_gas",
)


def tx_input_rows(txs: Iterable[Transaction]) -> list[Row]:
    """evm_tx_inputs rows of the transactions whose input decode gave (records built by hand
    may carry none)."""
    return [
        (
            t.chain_id,
            t.block_number,
            t.tx_index,
            t.input,
            t.max_fee_per_gas,
            t.max_priority_fee_per_gas,
        )
        for t in txs
        if t.input is not None
    ]


LOG_COLUMNS = (
    "chain_id",
    "block_number",
    "log_index",
    "tx_index",
    "tx_hash",
    "address",
    "topic0",
    "topic1",
    "topic2",
    "topic3",
    "data",
)


def log_row(lg: Log) -> Row:
    topics = (*lg.topics, None, None, None, None)
    return (
        lg.chain_id,
        lg.block_number,
        lg.log_index,
        lg.tx_index,
        lg.tx_hash,
        lg.address,
        topics[0],
        topics[1],
        topics[2],
        topics[3],
        lg.data,
    )


TRANSFER_COLUMNS = (
    "chain_id",
    "block_number",
    "log_index",
    "batch_index",
    "tx_index",
    "tx_hash",
    "block_hash",
    "block_timestamp",
    "token",
    "standard",
    "from_address",
    "to_address",
    "token_id",
    "value",
    "operator",
)


def transfer_row(t: TokenTransfer) -> Row:
    return (
        t.chain_id,
        t.block_number,
        t.log_index,
        t.batch_index,
        t.tx_index,
        t.tx_hash,
        t.block_hash,
        t.block_timestamp,
        t.token,
        str(t.standard),
        t.from_address,
        t.to_address,
        t.token_id,
        t.value,
        t.operator,
    )


TRANSFER_LINK_COLUMNS = (
    "chain_id",
    "address",
    "standard",
    "block_number",
    "log_index",
    "batch_index",
)


def transfer_links(transfer_rows: Iterable[Row]) -> list[Row]:
    """The transfer_participants rows of token_transfers rows (`transfer_row`'s tuples): one
    link per distinct party (a transfer to oneself is listed once). From the rows, so the
    writer derives them after the crossing (`writer._write_rows`): 115,000 links on the bench
    chain, which had crossed the process boundary beside the 58,000 transfers they repeat."""
    out: list[Row] = []
    for chain, number, log_index, batch_index, *_, std, frm, to, _id, _value, _op in transfer_rows:
        out.append((chain, frm, std, number, log_index, batch_index))
        if to != frm:
            out.append((chain, to, std, number, log_index, batch_index))
    return out


CALL_COLUMNS = (
    "chain_id",
    "block_number",
    "tx_index",
    "trace_index",
    "block_hash",
    "block_timestamp",
    "tx_hash",
    "parent_index",
    "depth",
    "call_type",
    "from_address",
    "to_address",
    "value",
    "gas",
    "gas_used",
    "reverted",
    "error",
)


def call_row(c: InternalCall) -> Row:
    return (
        c.chain_id,
        c.block_number,
        c.tx_index,
        c.trace_index,
        c.block_hash,
        c.block_timestamp,
        c.tx_hash,
        c.parent_index,
        c.depth,
        c.call_type,
        c.from_address,
        c.to_address,
        c.value,
        c.gas,
        c.gas_used,
        c.reverted,
        c.error,
    )


CALL_LINK_COLUMNS = ("chain_id", "address", "block_number", "tx_index", "trace_index")


_CALL_OPS = frozenset({"CALL", "CALLCODE"})


def is_listed_call(depth: int, call_type: str, value: int) -> bool:
    """The Data API's internal-transaction rule: a frame below the root (the root is the
    transaction itself) that is a non-zero-value CALL/CALLCODE, or any CREATE. Only these get
    participant rows: the root frames of value transfers were a third of that table's rows, all
    filtered out of every answer."""
    if depth == 0:
        return False
    op = call_type.upper()
    return (op in _CALL_OPS and value != 0) or op in CREATE_OPS


def call_links(call_rows: Iterable[Row]) -> list[Row]:
    """The internal_call_participants rows of internal_calls rows (`call_row`'s tuples): each
    party of each listed frame (`is_listed_call`). From the rows, so the writer derives them
    after the crossing (`writer._write_rows`), as it does the transfers' links."""
    out: list[Row] = []
    for row in call_rows:
        depth, kind, frm, to, value = row[8:13]  # CALL_COLUMNS' depth .. value
        if is_listed_call(depth, kind, value):
            for a in {frm, to} - {None}:
                out.append((row[0], a, row[1], row[2], row[3]))
    return out


CONTRACT_COLUMNS = (
    "chain_id",
    "address",
    "block_number",
    "block_timestamp",
    "tx_index",
    "trace_index",
    "tx_hash",
    "deployer",
    "deployer_contract",
    "creation_type",
)


def contract_row(c: ContractCreation) -> Row:
    return (
        c.chain_id,
        c.address,
        c.block_number,
        c.block_timestamp,
        c.tx_index,
        c.trace_index,
        c.tx_hash,
        c.deployer,
        c.deployer_contract,
        c.creation_type,
    )


NATIVE_COLUMNS = ("chain_id", "address", "block_number", "balance")


def native_row(n: NativeBalance) -> Row:
    return (n.chain_id, n.address, n.block_number, n.balance)


ERC20_BALANCE_COLUMNS = ("chain_id", "token", "holder", "block_number", "balance")
ERC1155_BALANCE_COLUMNS = ("chain_id", "token", "token_id", "holder", "block_number", "balance")
NFT_TOKEN_COLUMNS = ("chain_id", "token", "token_id", "standard")
