"""Which receipts a block's transactions and traces already imply, so they need not be fetched.

Sources stage, pure (no I/O): decides what to ask the node, touches nothing it answers; reads
traces with decode's own helpers (`decode/traces.py`), so both stages see the same frames.

Why: receipts are most of a node's work in a pull (anvil spends several times as long on one
as on a full transaction, and more again than on its trace: docs/benchmarks.md) and half the
bytes. Of what decode reads from a receipt, the
status is in the trace (a root frame with an error failed), the created contract too (the
root frame of a creation), the logs come from one `eth_getLogs` per run of blocks, and the
gas used is what the header checks:

- A whole block (`block_gas`): geth's callTracer gives each transaction's gasUsed in its
  root frame (anvil's is cumulative through the block: the sum check rejects it). A parity
  root frame gives the execution's gas before refunds, so intrinsic gas plus that is an upper
  bound of the receipt's, exact when nothing was refunded (EIP-7623's calldata floor is tried
  both ways: chains before Prague do not have it). Each guess is at least the truth, so guesses
  that add up to the header's gasUsed are all exact. When they add up to more, some
  transaction earned a refund (a storage slot cleared) and `GasSearch` finds which with a few
  receipts, each telling the cumulative gas around its transaction (a fraction of the contract
  calls' receipts: docs/indexer.md). The logs must then make the header's logsBloom (a node
  with its log index pruned answers none), else the block's receipts are fetched. On anvil's
  parity traces about a quarter of the bench chain's blocks add up with the traces alone.
- One transaction (`implied_positions`), in the blocks that do not add up: a *plain* transfer
  (empty calldata, no access list, to an address that ran no code) has a receipt fixed by the
  protocol: status 1, gas used 21,000, no logs, no contract. Whether code ran is in the trace:
  a parity frame with gasUsed 0 and no subtraces, a geth frame with gasUsed 21,000 and no
  calls. The block's other receipts are fetched, and `gas_adds_up` checks the sum; a block
  that does not add up gets all its receipts fetched instead.

A wrong guess (an odd node, a fee rule we do not know) so costs a request, never a wrong row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from eth_hash.auto import keccak

from avadata.decode.methods import selector
from avadata.decode.traces import (
    PLAIN_GAS,
    PLAIN_TYPES,
    geth_root,
    parity_by_tx,
    plain_transfer,
    single_frame,
)
from avadata.records import TraceStyle

# Types whose intrinsic gas is modelled below (legacy, access list, dynamic fee, blob); EIP-7702
# authorizations (0x4) refund per authority in ways a trace does not show.
_MODELLED_TYPES = frozenset({None, "0x0", "0x1", "0x2", "0x3"})
_CREATE_TYPES = frozenset({"CREATE", "CREATE2"})


def _parity_ran_no_code(frames: Sequence[dict[str, Any]]) -> bool:
    return (
        single_frame(TraceStyle.PARITY, frames)
        and frames[0].get("type") == "call"
        and (frames[0].get("result") or {}).get("gasUsed") in ("0x0", 0)
    )


def _geth_ran_no_code(item: Any) -> bool:
    frame = geth_root(item)
    return (
        frame is not None
        and single_frame(TraceStyle.GETH, frame)
        and str(frame.get("type", "")).upper() == "CALL"
        and hex_quantity(frame.get("gasUsed")) == PLAIN_GAS
    )


def hex_quantity(value: Any) -> int | None:
    """A JSON-RPC hex quantity as int; None when it is missing or not one."""
    if isinstance(value, str) and value.startswith("0x"):
        try:
            return int(value, 16)
        except ValueError:
            return None
    return None


def implied_positions(block: dict[str, Any], style: TraceStyle, traces: list[Any]) -> set[int]:
    """Positions of the block's plain transfers whose receipts the traces imply (module doc)."""
    txs: Sequence[dict[str, Any]] = block.get("transactions") or ()
    if style is TraceStyle.GETH:
        if len(traces) != len(txs):
            return set()
        return {
            i for i, tx in enumerate(txs) if plain_transfer(tx) and _geth_ran_no_code(traces[i])
        }
    if style is TraceStyle.PARITY:
        per_tx = parity_by_tx(traces)
        return {
            i
            for i, tx in enumerate(txs)
            if plain_transfer(tx) and _parity_ran_no_code(per_tx.get(i, ()))
        }
    return set()


def implied_receipt(block: dict[str, Any], tx: dict[str, Any]) -> dict[str, Any]:
    """The receipt of a plain transfer."""
    return _receipt(tx, block.get("hash"), block.get("number"), False, PLAIN_GAS, None, [])


def _receipt(
    tx: dict[str, Any],
    block_hash: Any,
    block_number: Any,
    failed: bool,
    gas: int,
    created: str | None,
    logs: list[dict[str, Any]],
) -> dict[str, Any]:
    """A receipt in the node's JSON shape (the fields decode reads; the effective gas price is
    left to decode, which derives it from the transaction and base fee). Positional: one per
    implied receipt, nearly every transaction of a backfill."""
    return {
        "transactionHash": tx.get("hash"),
        "transactionIndex": tx.get("transactionIndex"),
        "blockHash": block_hash,
        "blockNumber": block_number,
        "from": tx.get("from"),
        "to": tx.get("to"),
        "status": "0x0" if failed else "0x1",
        "gasUsed": hex(gas),
        "contractAddress": created,
        "logs": logs,
    }


def gas_adds_up(block: dict[str, Any], receipts: Sequence[dict[str, Any]]) -> bool:
    """True when the receipts' gasUsed sum to the header's."""
    used = [hex_quantity(r.get("gasUsed")) for r in receipts]
    header = hex_quantity(block.get("gasUsed"))
    return header is not None and None not in used and sum(u or 0 for u in used) == header


# -- whole blocks -------------------------------------------------------------------------------


def _intrinsic(tx: dict[str, Any]) -> tuple[int, int] | None:
    """(intrinsic gas, EIP-7623 floor) of a transaction, as geth charges them since Shanghai;
    None for a type not modelled here."""
    if tx.get("type") not in _MODELLED_TYPES:
        return None
    raw = str(tx.get("input") or "0x")
    try:
        data = bytes.fromhex(raw[2:])
    except ValueError:
        return None
    zeros = data.count(0)
    nonzero = len(data) - zeros
    gas = 21_000 + 4 * zeros + 16 * nonzero
    if tx.get("to") is None:
        gas += 32_000 + 2 * ((len(data) + 31) // 32)  # creation, EIP-3860 initcode words
    if tx.get("accessList"):
        gas += _access_list_gas(tx)
    return gas, 21_000 + 10 * (zeros + 4 * nonzero)


def _access_list_gas(tx: dict[str, Any]) -> int:
    return sum(
        2_400 + 1_900 * len(entry.get("storageKeys") or ()) for entry in tx.get("accessList") or ()
    )


def _roots(
    txs: Sequence[dict[str, Any]], style: TraceStyle, traces: list[Any]
) -> list[dict[str, Any]] | None:
    """Each transaction's root frame, or None if one is missing (or, parity, out of order)."""
    if style is TraceStyle.GETH:
        if len(traces) != len(txs):
            return None
        out = []
        for item in traces:
            frame = geth_root(item)
            if frame is None:
                return None
            out.append(frame)
        return out
    if style is TraceStyle.PARITY:
        # Nodes list each transaction's frames depth-first, transaction after transaction:
        # the roots are the frames without a trace address, in position order. Read in one
        # pass rather than grouped by transaction (`parity_by_tx`), which decode does anyway.
        roots: list[dict[str, Any]] = []
        for t in traces:
            pos = t.get("transactionPosition") if isinstance(t, dict) else None
            if pos is None:
                continue  # a block reward
            if not t.get("traceAddress"):
                if pos != len(roots):
                    return None
                roots.append(t)
            elif pos != len(roots) - 1:
                return None  # a frame away from its transaction's root
        return roots if len(roots) == len(txs) else None
    return None


class WholeBlock(NamedTuple):
    """What `block_gas` learnt of a block, for `whole_block_receipts`."""

    style: TraceStyle
    roots: list[dict[str, Any]]  # each transaction's root frame
    gas: list[int]  # each transaction's gasUsed


def block_gas(
    block: dict[str, Any],
    style: TraceStyle,
    traces: list[Any],
    odds: RefundOdds | None = None,
) -> WholeBlock | GasSearch | None:
    """Each transaction's gasUsed when the traces tell all of them and they add up to the
    header's (module doc); a GasSearch when parity's upper bounds add up to more (a refund
    somewhere); None when the traces cannot tell (the block's receipts are then needed)."""
    txs: Sequence[dict[str, Any]] = block.get("transactions") or ()
    header = hex_quantity(block.get("gasUsed"))
    roots = _roots(txs, style, traces)
    if not txs or header is None or roots is None:
        return None
    if style is TraceStyle.GETH:
        told = [hex_quantity(frame.get("gasUsed")) for frame in roots]
        exact = [g for g in told if g is not None]
        ok = len(exact) == len(txs) and sum(exact) == header
        return WholeBlock(style, roots, exact) if ok else None
    bare: list[int] = []
    floored: list[int] = []
    plain: list[bool] = []
    for tx, root in zip(txs, roots, strict=True):
        used = hex_quantity((root.get("result") or {}).get("gasUsed"))
        if used is None:
            return None  # a frame without a result (some nodes give none when it failed)
        if used == 0 and tx.get("input") in ("0x", "") and tx.get("type") in PLAIN_TYPES:
            # A transfer: no calldata to count, no code run, nothing to refund.
            gas = floor = PLAIN_GAS + (_access_list_gas(tx) if tx.get("accessList") else 0)
            plain.append(True)
        else:
            intrinsic = _intrinsic(tx)
            if intrinsic is None:
                return None
            gas, floor = intrinsic[0] + used, intrinsic[1]
            plain.append(False)
        bare.append(gas)
        floored.append(max(gas, floor))
    if sum(bare) == header:
        return WholeBlock(style, roots, bare)
    if sum(floored) == header:
        return WholeBlock(style, roots, floored)
    if sum(floored) > header:
        return GasSearch(block, WholeBlock(style, roots, floored), plain, header, odds)
    return None  # less than the header: an upper bound that is not one (a fee rule we miss)


class RefundOdds:
    """How often calls of each method (by selector) earned a refund in the blocks searched so
    far, so a search asks about the likeliest first (`GasSearch`).

    Why: a refund clears a storage slot, which some methods do far more often than others: on
    the bench chain NFT transfers that empty a holder's balance earn nearly all of them, plain
    ERC-20 transfers almost none. Asked about first, the likely one is often the whole refund
    of its stretch, and its receipt settles both sides at once: about a third fewer receipts
    than halving asks (docs/indexer.md). A method never seen counts as unlikely; with nothing
    learnt yet the search halves, as it did before. The odds only choose which receipt to ask:
    the gas still comes from the receipts and the header."""

    def __init__(self) -> None:
        self._counts: dict[str, tuple[int, int]] = {}  # selector -> (calls seen, refunded)

    def of(self, method: str) -> float:
        seen, refunded = self._counts.get(method, (0, 0))
        return (refunded + 0.1) / (seen + 1)

    def learn(self, selectors: Sequence[str], bounds: Sequence[int], gas: Sequence[int]) -> None:
        """A finished search: each suspect's selector, its bound and its gas (below the bound:
        refunded)."""
        for method, bound, used in zip(selectors, bounds, gas, strict=True):
            seen, refunded = self._counts.get(method, (0, 0))
            self._counts[method] = (seen + 1, refunded + (used != bound))


class GasSearch:
    """The gas of each transaction of a block where some earned a refund, from a few receipts.

    Why: a parity root frame gives the execution's gas before refunds, so in a block whose
    bounds (`block_gas`) add up to more than the header's gasUsed some transaction was refunded
    and a trace cannot say which. Every receipt tells its own gasUsed and the block's cumulative
    gas after it, so the cumulative gas before it too. Between two positions whose cumulative
    gas is known, bounds that add up to the difference are all exact (none can be below the
    truth); bounds over it hold a refund, and halving the transactions that ran code in that
    stretch (a plain transfer's bound is exact) finds the refunded ones with a fraction of the
    receipts that asking every contract call's takes, in a few rounds (docs/indexer.md). A
    stretch with one such transaction left gives it the difference.

    With `odds` (RefundOdds), a stretch's likeliest suspect is asked first when it is at least
    as likely as the stretch's share (1 / suspects), instead of the middle one; the odds learn
    from each search that ends (fewer receipts, in a few more rounds).

    `next_probes()` settles what the known points allow and names the positions to ask next,
    `learn()` takes each answer, `result()` gives the block's gas (None when the node's answers
    did not fit: its receipts are then fetched whole).
    """

    def __init__(
        self,
        block: dict[str, Any],
        bounds: WholeBlock,
        plain: list[bool],
        header: int,
        odds: RefundOdds | None = None,
    ) -> None:
        self.bounds = bounds
        txs = block.get("transactions") or ()
        self._hashes = [tx.get("hash") for tx in txs]
        self._selectors = [selector(str(tx.get("input") or "0x")) for tx in txs]
        self._odds = odds
        self._plain = plain
        n = len(self._hashes)
        self._gas: list[int | None] = [None] * n
        # Cumulative gas after each known position; -1 is the block's start.
        self._after: dict[int, int] = {-1: 0, n - 1: header}
        self.failed = False
        self.probed = 0

    def next_probes(self) -> list[int]:
        """Positions whose receipts tell what is still unknown; [] when the search is over."""
        if self.failed:
            return []
        out: list[int] = []
        points = sorted(self._after)
        for lo, hi in zip(points, points[1:], strict=False):
            unknown = [i for i in range(lo + 1, hi + 1) if self._gas[i] is None]
            if not unknown:
                continue
            told = sum(g for g in self._gas[lo + 1 : hi + 1] if g is not None)
            refund = (
                told
                + sum(self.bounds.gas[i] for i in unknown)
                - (self._after[hi] - self._after[lo])
            )
            suspects = [i for i in unknown if not self._plain[i]]
            if refund < 0 or (refund and not suspects):
                self.failed = True  # the bounds are not bounds here: a rule we do not know
                return []
            if refund == 0 or len(suspects) == 1:
                for i in unknown:
                    self._gas[i] = self.bounds.gas[i]
                if refund:
                    left = self.bounds.gas[suspects[0]] - refund
                    if left < PLAIN_GAS:
                        self.failed = True
                        return []
                    self._gas[suspects[0]] = left
            else:
                out.append(self._pick(suspects))
        return out

    def _pick(self, suspects: list[int]) -> int:
        """The suspect to ask about: the likeliest (ties: the nearest the middle) when it is at
        least as likely as its share, else the middle one (halving the stretch)."""
        middle = len(suspects) // 2
        if self._odds is None:
            return suspects[middle]
        # Odds per method, not per suspect: a block's calls share a few selectors.
        selectors = [self._selectors[i] for i in suspects]
        rates = {m: self._odds.of(m) for m in set(selectors)}
        top = max(rates.values())
        if top * len(suspects) < 1:
            return suspects[middle]
        _, best = min((abs(j - middle), j) for j, m in enumerate(selectors) if rates[m] == top)
        return suspects[best]

    def hash_at(self, position: int) -> Any:
        return self._hashes[position]

    def learn(self, position: int, receipt: Any) -> None:
        """Take the node's receipt for the transaction at `position` (None if it had none)."""
        self.probed += 1
        used = cumulative = None
        if isinstance(receipt, dict) and receipt.get("transactionHash") == self._hashes[position]:
            used = hex_quantity(receipt.get("gasUsed"))
            cumulative = hex_quantity(receipt.get("cumulativeGasUsed"))
        if used is None or cumulative is None or used > cumulative:
            self.failed = True
            return
        for at, value in ((position - 1, cumulative - used), (position, cumulative)):
            if self._after.setdefault(at, value) != value:
                self.failed = True
        self._gas[position] = used

    def result(self) -> WholeBlock | None:
        gas = [g for g in self._gas if g is not None]
        if self.failed or len(gas) != len(self._gas):
            return None
        if self._odds is not None:
            suspects = [i for i, plain in enumerate(self._plain) if not plain]
            self._odds.learn(
                [self._selectors[i] for i in suspects],
                [self.bounds.gas[i] for i in suspects],
                [gas[i] for i in suspects],
            )
            self._odds = None  # learnt once
        return self.bounds._replace(gas=gas)


def whole_block_receipts(
    block: dict[str, Any], whole: WholeBlock, logs: Sequence[dict[str, Any]]
) -> list[dict[str, Any]] | None:
    """The block's receipts from what `block_gas` learnt and its logs (as `eth_getLogs`
    gives them), in the node's shape; None when the logs do not fit the block (one naming
    another transaction, or a failed one, or logs whose bloom is not the header's: a node that
    left one out)."""
    txs: Sequence[dict[str, Any]] = block.get("transactions") or ()
    hashes = [tx.get("hash") for tx in txs]
    block_hash, number = block.get("hash"), block.get("number")
    by_tx: list[list[dict[str, Any]]] = [[] for _ in txs]
    for lg in logs:
        pos = hex_quantity(lg.get("transactionIndex"))
        if (
            pos is None
            or pos >= len(txs)
            or lg.get("removed")
            or lg.get("blockHash") != block_hash
            or lg.get("transactionHash") != hashes[pos]
        ):
            return None
        by_tx[pos].append(lg)
    try:
        if logs_bloom(logs) != hex_quantity(block.get("logsBloom")):
            return None  # a log missing (or one too many) the header's bloom can see
    except ValueError:  # an address or topic that is not hex
        return None
    out = []
    geth = whole.style is TraceStyle.GETH
    for tx, root, used, tx_logs in zip(txs, whole.roots, whole.gas, by_tx, strict=True):
        failed = bool(root.get("error"))
        if failed and tx_logs:
            return None
        created = None
        if tx.get("to") is None:
            created = root.get("to") if geth else (root.get("result") or {}).get("address")
            if created is None or str(root.get("type", "")).upper() not in _CREATE_TYPES:
                return None
        out.append(_receipt(tx, block_hash, number, failed, used, created, tx_logs))
    return out


def logs_bloom(logs: Sequence[dict[str, Any]]) -> int:
    """The 2,048-bit bloom filter of `logs` as the header's logsBloom holds it (an int): for the
    address and each topic, three bits, each the low 11 bits of a pair of its keccak's bytes."""
    bloom = 0
    for lg in logs:
        bloom |= _bloom_bits(lg.get("address"))
        for topic in lg.get("topics") or ():
            bloom |= _bloom_bits(topic)
    return bloom


# Bits per address or topic, remembered: the same few tokens, event signatures and holders
# recur in every block, and a keccak costs far more than a lookup.
_BITS: dict[Any, int] = {}
_BITS_KEPT = 200_000


def _bloom_bits(item: Any) -> int:
    bits = _BITS.get(item)
    if bits is None:
        digest = keccak(bytes.fromhex(str(item)[2:]))
        bits = 0
        for i in (0, 2, 4):
            bits |= 1 << (((digest[i] << 8) | digest[i + 1]) & 2047)
        if len(_BITS) >= _BITS_KEPT:
            _BITS.clear()
        _BITS[item] = bits
    return bits
