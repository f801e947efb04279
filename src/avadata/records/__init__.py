"""The records every stage speaks: decode produces them, store persists them, metrics rolls them up.

Conventions (Invariant: every record follows them, so no stage re-normalises):
- addresses and hashes are lower-case 0x hex strings; `None` where absent (a creation's `to`);
- amounts, gas and wei values are Python ints of any size (uint256 is exact, never a float);
- timestamps are Unix seconds (int, UTC);
- positions are (block_number, tx_index, log_index / trace_index), the natural keys of the store.

Records are NamedTuples: immutable and hashable like frozen dataclasses, and about a third
cheaper to build (a 100,000-transaction backfill builds ~400,000 of them in its fetch process).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple


class TokenStandard(StrEnum):
    ERC20 = "ERC-20"
    ERC721 = "ERC-721"
    ERC1155 = "ERC-1155"


class CallType(StrEnum):
    """The Data API's `method.callType` of a transaction."""

    NATIVE_TRANSFER = "NATIVE_TRANSFER"
    CONTRACT_CALL = "CONTRACT_CALL"
    CONTRACT_CREATION = "CONTRACT_CREATION"


CREATE_OPS = frozenset({"CREATE", "CREATE2", "CREATE3"})

# The store's cursor source of an EVM chain's pipeline (blocks, receipts, logs, transfers,
# traces). Here rather than in store/cursors.py so a fetch process can read its cursor without
# importing the store (indexer/fetch/guess.py).
EVM_SOURCE = "evm"


class TraceStyle(StrEnum):
    GETH = "geth"
    PARITY = "parity"
    NONE = "none"


@dataclass(slots=True)
class RawBlock:
    """What sources hand to decode for one block: the node's JSON, untouched (a plain
    transfer's receipt may be one the source built in the node's shape: sources/receipts.py)."""

    block: dict[str, Any]
    receipts: list[dict[str, Any]]
    trace_style: TraceStyle
    # geth: one {txHash?, result: frame} per transaction; parity: the block's flat trace list.
    traces: list[Any]


class Block(NamedTuple):
    chain_id: int
    number: int
    hash: str
    parent_hash: str
    timestamp: int
    gas_used: int
    gas_limit: int
    base_fee: int | None
    tx_count: int
    miner: str
    # Sum over the block's receipts of gasUsed * effectiveGasPrice (wei).
    fees_spent: int
    # The header's timeMilliseconds (Granite, ACP-226: sub-second blocks), None where the
    # header has none; `timestamp` is its whole seconds.
    time_ms: int | None = None


class Transaction(NamedTuple):
    chain_id: int
    block_number: int
    block_hash: str
    block_timestamp: int
    tx_index: int
    hash: str
    from_address: str
    to_address: str | None
    value: int
    gas_limit: int
    # The receipt's effectiveGasPrice (what the sender paid per gas), else the tx's gasPrice.
    gas_price: int
    gas_used: int
    nonce: int
    tx_type: int
    success: bool
    call_type: CallType
    # First four bytes of the input as 0x hex; "" for a native transfer or a creation.
    method_hash: str
    # Resolved from the bundled signature table; None when unknown.
    method_name: str | None
    contract_address: str | None
    # The call data as 0x hex, and the EIP-1559 fee caps (None for older types). Defaults so
    # records built by hand need not name them; decode always gives the node's values.
    input: str | None = None
    max_fee_per_gas: int | None = None
    max_priority_fee_per_gas: int | None = None


class Log(NamedTuple):
    chain_id: int
    block_number: int
    tx_index: int
    log_index: int
    tx_hash: str
    address: str
    topics: tuple[str, ...]
    data: str


class TokenTransfer(NamedTuple):
    chain_id: int
    block_number: int
    block_hash: str
    block_timestamp: int
    tx_index: int
    tx_hash: str
    log_index: int
    # Position inside an ERC-1155 TransferBatch (0 for every other transfer).
    batch_index: int
    token: str
    standard: TokenStandard
    from_address: str
    to_address: str
    # None for ERC-20.
    token_id: int | None
    # 1 for ERC-721.
    value: int
    operator: str | None = None


class InternalCall(NamedTuple):
    """One frame of a transaction's call tree (the whole tree is kept, root included).

    `trace_index` numbers frames in depth-first order; the root is 0. `reverted` is true when
    this frame or any ancestor failed, since then none of its effects remain.
    """

    chain_id: int
    block_number: int
    block_hash: str
    block_timestamp: int
    tx_index: int
    tx_hash: str
    trace_index: int
    parent_index: int | None
    depth: int
    call_type: str
    from_address: str
    to_address: str | None
    value: int
    gas: int
    gas_used: int
    reverted: bool
    error: str | None


class ContractCreation(NamedTuple):
    chain_id: int
    address: str
    block_number: int
    block_timestamp: int
    tx_index: int
    trace_index: int
    tx_hash: str
    # The transaction's sender: the account that deployed, directly or through a factory.
    deployer: str
    # The frame's `from` when it is a contract (a factory); None for a direct deployment.
    deployer_contract: str | None
    creation_type: str


class TokenInfo(NamedTuple):
    """Token metadata read by eth_call; a field is None when the call failed (nothing invented)."""

    chain_id: int
    address: str
    standard: TokenStandard
    name: str | None
    symbol: str | None
    decimals: int | None


class NativeBalance(NamedTuple):
    """An address's native balance after `block_number` (from eth_getBalance at that block)."""

    chain_id: int
    address: str
    block_number: int
    balance: int


@dataclass(slots=True)
class DecodeStats:
    """What decode skipped, counted so it shows in progress output instead of vanishing."""

    malformed_logs: int = 0


@dataclass(slots=True)
class EvmBatch:
    """Everything decoded from a contiguous range of blocks of one chain, ready to write at once."""

    chain_id: int
    first_block: int
    last_block: int
    blocks: list[Block] = field(default_factory=list)
    transactions: list[Transaction] = field(default_factory=list)
    logs: list[Log] = field(default_factory=list)
    transfers: list[TokenTransfer] = field(default_factory=list)
    internal_calls: list[InternalCall] = field(default_factory=list)
    contracts: list[ContractCreation] = field(default_factory=list)
    tokens: list[TokenInfo] = field(default_factory=list)
    native_balances: list[NativeBalance] = field(default_factory=list)
    # False when the node offers no tracer: the chain is then marked as having no traces.
    has_traces: bool = True
    stats: DecodeStats = field(default_factory=DecodeStats)
