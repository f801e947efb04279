"""Which receipts a block's transactions and traces already imply, so they need not be fetched.

Sources stage, pure (no I/O): decides what to ask the node, touches nothing it answers; reads
traces with decode's own helpers (`decode/traces.py`), so both stages see the same frames.

Why: receipts are most of a node's work in a pull (anvil spends ~80 us on each, 7x a full
transaction and 9x its trace) and half the bytes. A *plain* transfer (empty calldata, no access
list, to an address that ran no code) has a receipt fixed by the protocol: status 1, gas used
21,000 (intrinsic gas, no refund since no code ran, and EIP-7623's calldata floor is 21,000 for
empty calldata), no logs, no contract. Whether code ran is in the call trace: a parity frame
with gasUsed 0 and no subtraces, a geth callTracer frame with gasUsed 21,000 and no calls.

Check: the header's gasUsed is the sum of its receipts' gasUsed. A block whose fetched receipts
plus 21,000 per implied one do not add up to it gets all its receipts fetched instead, so a
wrong guess (an odd node, a fee rule we do not know) costs one request, never a wrong row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from avadata.decode.traces import geth_root, parity_by_tx
from avadata.records import TraceStyle

PLAIN_GAS = 21_000
_PLAIN_TYPES = frozenset({None, "0x0", "0x1", "0x2"})


def _plain_tx(tx: dict[str, Any]) -> bool:
    return (
        tx.get("to") is not None
        and tx.get("input") in ("0x", "", None)
        and tx.get("type") in _PLAIN_TYPES
        and not tx.get("accessList")
    )


def _parity_ran_no_code(frames: Sequence[dict[str, Any]]) -> bool:
    if len(frames) != 1:
        return False
    f = frames[0]
    result = f.get("result") or {}
    return (
        f.get("type") == "call"
        and not f.get("error")
        and not f.get("subtraces")
        and result.get("gasUsed") in ("0x0", 0)
    )


def _geth_ran_no_code(item: Any) -> bool:
    frame = geth_root(item)
    if frame is None:
        return False
    used = frame.get("gasUsed")
    return (
        str(frame.get("type", "")).upper() == "CALL"
        and not frame.get("error")
        and not frame.get("calls")
        and isinstance(used, str)
        and used.startswith("0x")
        and int(used, 16) == PLAIN_GAS
    )


def implied_positions(block: dict[str, Any], style: TraceStyle, traces: list[Any]) -> set[int]:
    """Positions of the block's transactions whose receipts the traces imply (see module doc)."""
    txs: Sequence[dict[str, Any]] = block.get("transactions") or ()
    if style is TraceStyle.GETH:
        if len(traces) != len(txs):
            return set()
        return {i for i, tx in enumerate(txs) if _plain_tx(tx) and _geth_ran_no_code(traces[i])}
    if style is TraceStyle.PARITY:
        per_tx = parity_by_tx(traces)
        return {
            i
            for i, tx in enumerate(txs)
            if _plain_tx(tx) and _parity_ran_no_code(per_tx.get(i, ()))
        }
    return set()


def implied_receipt(block: dict[str, Any], tx: dict[str, Any]) -> dict[str, Any]:
    """The receipt of a plain transfer, in the node's JSON shape (the fields decode reads; the
    effective gas price is left to decode, which derives it from the transaction and base fee)."""
    return {
        "transactionHash": tx.get("hash"),
        "transactionIndex": tx.get("transactionIndex"),
        "blockHash": block.get("hash"),
        "blockNumber": block.get("number"),
        "from": tx.get("from"),
        "to": tx.get("to"),
        "status": "0x1",
        "gasUsed": hex(PLAIN_GAS),
        "contractAddress": None,
        "logs": [],
    }


def gas_adds_up(block: dict[str, Any], receipts: Sequence[dict[str, Any]]) -> bool:
    """True when the receipts' gasUsed sum to the header's."""
    try:
        total = sum(int(str(r.get("gasUsed")), 16) for r in receipts)
        return total == int(str(block.get("gasUsed")), 16)
    except (TypeError, ValueError):
        return False
