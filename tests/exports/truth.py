"""What an export's file must hold, computed here from the records a test wrote (not from the
store): the rows of an EVM export as CSV text and as Parquet values."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

from avadata.records import Transaction

HEADER = [
    "chainId",
    "blockNumber",
    "blockTimestamp",
    "blockHash",
    "txHash",
    "txIndex",
    "from",
    "to",
    "value",
    "gasLimit",
    "gasUsed",
    "gasPrice",
    "nonce",
    "txType",
    "txStatus",
    "methodId",
    "methodName",
    "contractAddress",
]


def evm_row(t: Transaction) -> list[Any]:
    """One transaction as the export's columns, Python values (None: empty)."""
    return [
        t.chain_id,
        t.block_number,
        t.block_timestamp,
        t.block_hash,
        t.hash,
        t.tx_index,
        t.from_address,
        t.to_address,
        t.value,
        t.gas_limit,
        t.gas_used,
        t.gas_price,
        t.nonce,
        t.tx_type,
        1 if t.success else 0,
        t.method_hash,
        t.method_name,
        t.contract_address,
    ]


def selected(
    txs: Iterable[Transaction],
    addresses: Sequence[str] = (),
    first: int | None = None,
    last: int | None = None,
) -> list[Transaction]:
    """The transactions an export of these addresses (none: all) over blocks [first, last]
    holds, in chain order."""
    wanted = {a.lower() for a in addresses}
    out = [
        t
        for t in txs
        if (not wanted or t.from_address in wanted or (t.to_address or "") in wanted)
        and (first is None or t.block_number >= first)
        and (last is None or t.block_number <= last)
    ]
    return sorted(out, key=lambda t: (t.block_number, t.tx_index))


def csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def as_csv(rows: Iterable[list[Any]]) -> list[list[str]]:
    return [["" if v is None else str(v) for v in r] for r in rows]


def as_parquet(rows: Iterable[list[Any]]) -> list[dict[str, Any]]:
    """The rows as pyarrow's to_pylist gives them: uint256 columns as decimal text."""
    u256 = {"value", "gasPrice", "nonce"}
    return [
        {k: (str(v) if k in u256 and v is not None else v) for k, v in zip(HEADER, r, strict=True)}
        for r in rows
    ]
