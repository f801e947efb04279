"""The columns of an export's file, and each row's values: pure.

Stage: exports. One named set per kind of export (the plan names it). A column's kind says how
a file holds it: "int" (a 64-bit integer), "str", or "u256" (an integer that may pass 64 bits:
decimal digits in CSV, decimal text in Parquet, which has no such integer type).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

Values = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Columns:
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    # (rows as the store reads them, the part's chain label) -> one value tuple per row
    values: Callable[[Sequence[Any], str], list[Values]]


_EVM = (
    ("chainId", "int", "chain_id"),
    ("blockNumber", "int", "block_number"),
    ("blockTimestamp", "int", "block_timestamp"),
    ("blockHash", "str", "block_hash"),
    ("txHash", "str", "hash"),
    ("txIndex", "int", "tx_index"),
    ("from", "str", "from_address"),
    ("to", "str", "to_address"),
    ("value", "u256", "value"),
    ("gasLimit", "int", "gas_limit"),
    ("gasUsed", "int", "gas_used"),
    ("gasPrice", "u256", "gas_price"),
    ("nonce", "u256", "nonce"),
    ("txType", "int", "tx_type"),
    ("txStatus", "int", "success"),
    ("methodId", "str", "method_hash"),
    ("methodName", "str", "method_name"),
    ("contractAddress", "str", "contract_address"),
)
_EVM_GET = attrgetter(*(c[2] for c in _EVM))
_STATUS = [c[0] for c in _EVM].index("txStatus")


def _evm_values(rows: Sequence[Any], _label: str) -> list[Values]:
    # txStatus as 1/0: the store's success is a bool (SQLite's 0/1 too, once decoded).
    get, i = _EVM_GET, _STATUS
    return [(t := get(r))[:i] + (int(t[i]),) + t[i + 1 :] for r in rows]


_PRIMARY = (
    ("blockchainId", "str"),
    ("txHash", "str"),
    ("txType", "str"),
    ("blockNumber", "int"),
    ("blockHash", "str"),
    ("blockTimestamp", "int"),
    ("txIndex", "int"),
)
_PRIMARY_GET = attrgetter("tx_hash", "tx_type", "block_number", "block_hash", "block_timestamp")


def _primary_values(rows: Sequence[Any], label: str) -> list[Values]:
    # The stored body is the transaction's Data API fields (inputs, outputs, amounts), as JSON.
    return [(label, *_PRIMARY_GET(r), r.tx_index, r.body) for r in rows]


def _primary_simple_values(rows: Sequence[Any], label: str) -> list[Values]:
    return [(label, *_PRIMARY_GET(r), r.tx_index) for r in rows]


SETS = {
    "evm": Columns(tuple(c[0] for c in _EVM), tuple(c[1] for c in _EVM), _evm_values),
    "primary": Columns(
        (*(c[0] for c in _PRIMARY), "details"),
        (*(c[1] for c in _PRIMARY), "str"),
        _primary_values,
    ),
    "primary_simple": Columns(
        tuple(c[0] for c in _PRIMARY), tuple(c[1] for c in _PRIMARY), _primary_simple_values
    ),
}
