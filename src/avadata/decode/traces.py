"""Call traces to internal calls (the whole tree) and contract creations, pure.

Two input styles, one output: geth's `callTracer` tree (what Avalanche nodes offer) and the
parity-style flat `trace_block` list (anvil's fallback). Frames are numbered depth-first, root 0.
A frame is `reverted` when it or any ancestor failed: then none of its effects remain, and a
creation inside it created nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from avadata.decode.hexjson import address, quantity
from avadata.records import CREATE_OPS, ContractCreation, InternalCall, TraceStyle

_new = tuple.__new__


class TxContext(NamedTuple):
    """What every frame of one transaction repeats (a NamedTuple: one is built per transaction,
    at a third of a frozen dataclass's cost)."""

    chain_id: int
    block_number: int
    block_hash: str
    block_timestamp: int
    tx_index: int
    tx_hash: str
    tx_from: str


# A transfer's gas: intrinsic only (no calldata, no code run, nothing to refund).
PLAIN_GAS = 21_000
# Types whose intrinsic gas is 21,000 for a bare transfer (legacy, access list, dynamic fee).
PLAIN_TYPES = frozenset({None, "0x0", "0x1", "0x2"})


def plain_transfer(tx: dict[str, Any]) -> bool:
    """A transaction that can only move value: to an address, no calldata, no access list.
    (Whether code ran at the address is for its trace or receipt to say.)"""
    return (
        tx.get("to") is not None
        and tx.get("input") in ("0x", "", None)
        and tx.get("type") in PLAIN_TYPES
        and not tx.get("accessList")
    )


def single_frame(style: TraceStyle, trace: Any) -> bool:
    """A transaction's trace (geth: its root frame, as `geth_root` gives it; parity: its
    frames) is one frame that neither failed nor called anything."""
    if style is TraceStyle.GETH:
        return not trace.get("calls") and not trace.get("error")
    if style is TraceStyle.PARITY:
        return len(trace) == 1 and not trace[0].get("error") and not trace[0].get("subtraces")
    return False


def _walk_geth(
    frame: dict[str, Any], depth: int, parent: int | None, reverted: bool, counter: list[int]
) -> Iterator[tuple[int, int | None, int, bool, dict[str, Any]]]:
    index = counter[0]
    counter[0] += 1
    failed = reverted or bool(frame.get("error"))
    yield index, parent, depth, failed, frame
    for child in frame.get("calls") or ():
        yield from _walk_geth(child, depth + 1, index, failed, counter)


def _frame(
    ctx: TxContext,
    index: int,
    parent: int | None,
    depth: int,
    call_type: str,
    frm: Any,
    to: Any,
    value: Any,
    gas: Any,
    gas_used: Any,
    reverted: bool,
    error: Any,
) -> InternalCall:
    # In InternalCall's field order, built without its keyword-binding constructor: one of
    # these per frame (82,000 on the bench chain).
    return _new(
        InternalCall,
        (
            ctx.chain_id,
            ctx.block_number,
            ctx.block_hash,
            ctx.block_timestamp,
            ctx.tx_index,
            ctx.tx_hash,
            index,
            parent,
            depth,
            call_type,
            address(frm) or "",
            address(to),
            quantity(value),
            quantity(gas),
            quantity(gas_used),
            reverted,
            error or None,
        ),
    )


def geth_root(item: Any) -> dict[str, Any] | None:
    """One transaction's callTracer answer as its root frame (nodes wrap it in {txHash, result});
    None when it is not a frame."""
    frame = item.get("result") if isinstance(item, dict) and "result" in item else item
    return frame if isinstance(frame, dict) else None


def parity_by_tx(traces: list[Any]) -> dict[int, list[dict[str, Any]]]:
    """A block's flat parity traces grouped by transaction position, each group in the node's
    (depth-first) order; traces without a position (block rewards) are left out."""
    out: dict[int, list[dict[str, Any]]] = {}
    for t in traces:
        pos = t.get("transactionPosition") if isinstance(t, dict) else None
        if pos is not None:
            out.setdefault(int(pos), []).append(t)
    return out


def geth_calls(ctx: TxContext, root: dict[str, Any]) -> list[InternalCall]:
    return [
        _frame(
            ctx,
            index,
            parent,
            depth,
            str(f.get("type", "CALL")).upper(),
            f.get("from"),
            f.get("to"),
            f.get("value"),
            f.get("gas"),
            f.get("gasUsed"),
            reverted,
            f.get("error"),
        )
        for index, parent, depth, reverted, f in _walk_geth(root, 0, None, False, [0])
    ]


def _parity_type(kind: Any, action: dict[str, Any]) -> str:
    if kind == "create":
        method = str(action.get("creationMethod") or "create")
        return method.upper()
    if kind == "call":
        return str(action.get("callType") or "call").upper()
    if kind in ("suicide", "selfdestruct"):
        return "SELFDESTRUCT"
    return str(kind).upper()


_NO_PARENT: tuple[None, bool] = (None, False)
_EMPTY: dict[str, Any] = {}


def parity_calls(ctx: TxContext, traces: list[dict[str, Any]]) -> list[InternalCall]:
    """One transaction's parity traces (already in depth-first order, as nodes return them)."""
    by_path: dict[tuple[int, ...], tuple[int | None, bool]] = {}
    out: list[InternalCall] = []
    for index, t in enumerate(traces):
        path = tuple(t.get("traceAddress") or ())
        parent_index, parent_reverted = by_path.get(path[:-1], _NO_PARENT) if path else _NO_PARENT
        error = t.get("error")
        reverted = parent_reverted or bool(error)
        by_path[path] = (index, reverted)
        action = t.get("action") or _EMPTY
        result = t.get("result") or _EMPTY
        kind = _parity_type(t.get("type"), action)
        if kind == "SELFDESTRUCT":
            frm, to, value = (
                action.get("address"),
                action.get("refundAddress"),
                action.get("balance"),
            )
        else:
            frm, value = action.get("from"), action.get("value")
            to = result.get("address") if kind in CREATE_OPS else action.get("to")
        out.append(
            _frame(
                ctx,
                index,
                parent_index,
                len(path),
                kind,
                frm,
                to,
                value,
                action.get("gas"),
                result.get("gasUsed"),
                reverted,
                error,
            )
        )
    return out


def creations(ctx: TxContext, calls: list[InternalCall]) -> list[ContractCreation]:
    """Contracts that exist after the transaction: successful CREATE* frames."""
    out: list[ContractCreation] = []
    for c in calls:
        if c.call_type in CREATE_OPS and not c.reverted and c.to_address:
            out.append(
                ContractCreation(
                    chain_id=ctx.chain_id,
                    address=c.to_address,
                    block_number=ctx.block_number,
                    block_timestamp=ctx.block_timestamp,
                    tx_index=ctx.tx_index,
                    trace_index=c.trace_index,
                    tx_hash=ctx.tx_hash,
                    deployer=ctx.tx_from,
                    deployer_contract=c.from_address if c.depth > 0 else None,
                    creation_type=c.call_type,
                )
            )
    return out
