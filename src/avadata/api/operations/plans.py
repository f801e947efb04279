"""An export request -> its plan (exports/plan.py): the chains it names, looked up in the
store, and each chain's bounds fixed now.

Stage: api. Reads only: an EVM chain's part ends at its indexed head as of now, and a date
range becomes the blocks whose times fall in it; a primary chain's part ends at its last
stored transaction's time. Every refusal is a 400 naming the field.
"""

from __future__ import annotations

import re

from avadata import networks
from avadata.api.deps import AppState, read_conn
from avadata.api.errors import ApiError, bad_request
from avadata.api.operations import requests as rq
from avadata.api.patterns import bech32_addresses
from avadata.api.primary import params
from avadata.api.webhooks.requests import addresses as evm_addresses
from avadata.exports.plan import Part, Plan
from avadata.store.exports import reads
from avadata.store.queries.chains import primary_network
from avadata.store.types import Connection

# The P-chain's staking transactions (TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING).
STAKING_TX_TYPES = (
    "AddDelegatorTx",
    "AddPermissionlessDelegatorTx",
    "AddPermissionlessValidatorTx",
    "AddSubnetValidatorTx",
    "AddValidatorTx",
    "RemoveSubnetValidatorTx",
    "RewardValidatorTx",
)


# An item of options.addresses, as the document states it (the checksum and HRP: params).
_ONE_ADDRESS = re.compile(bech32_addresses(1))


def _unique(values: list[str]) -> list[tuple[int, str]]:
    seen: set[str] = set()
    out = []
    for i, v in enumerate(values):
        if v not in seen:
            seen.add(v)
            out.append((i, v))
    return out


def evm_plan(st: AppState, req: rq.EvmExport) -> Plan:
    start, end = rq.time_range(req)
    addrs = tuple(sorted(set(evm_addresses(req.options.addresses, "options.addresses"))))
    parts: list[Part] = []
    with read_conn(st) as conn:
        for i, value in _unique(req.options.includeChains):
            chain = st.chains.get(conn, value)
            if chain is None:
                raise bad_request(
                    f"options.includeChains[{i}]: unknown chain {value!r} (see GET /v1/chains)"
                )
            label = str(chain.chain_id)
            if any(p.chain == label for p in parts):
                continue  # named twice (its chain ID and its blockchain ID)
            first, last = _evm_bounds(conn, chain.chain_id, req, (start, end))
            span = (first, last) if first is not None and last is not None else (0, 0)
            parts.append(Part(label, label, addrs, first, last, span))
    return Plan("evm", req.format, "evm", tuple(parts))


def _evm_bounds(
    conn: Connection, chain_id: int, req: rq.EvmExport, times: tuple[int | None, int | None]
) -> tuple[int | None, int | None]:
    """Blocks [first, last] of the request on this chain, within what is indexed now; (None,
    None) when none is."""
    stored = reads.evm_span(conn, chain_id)
    if stored is None:
        return None, None
    lo, head = stored
    first = max(lo, req.firstBlock if req.firstBlock is not None else lo)
    last = min(head, req.lastBlock if req.lastBlock is not None else head)
    start, end = times
    if start is not None:
        first = max(first, reads.first_block_from(conn, chain_id, start, lo, head))
    if end is not None:
        last = min(last, reads.first_block_from(conn, chain_id, end + 1, lo, head) - 1)
    if first > last:
        return None, None
    return first, last


def primary_plan(st: AppState, req: rq.PrimaryExport) -> Plan:
    if req.firstBlock is not None or req.lastBlock is not None:
        name = "firstBlock" if req.firstBlock is not None else "lastBlock"
        raise bad_request(f"{name}: a block range is for EVM exports (use firstDate, lastDate)")
    start, end = rq.time_range(req)
    with read_conn(st) as conn:
        indexed = primary_network(conn)
        if indexed is None:
            raise bad_request("options.includeChains: this store holds no primary network")
        net = params.net_key(networks.by_id(indexed))
        keys = [(i, _chain_key(net, i, v)) for i, v in _unique(req.options.includeChains)]
        bech = _primary_addresses(net, "P", req.options.addresses, "options.addresses")
        evm = evm_addresses(req.options.cChainEvmAddresses, "options.cChainEvmAddresses")
        filtered = bool(bech or evm)
        parts: list[Part] = []
        for _, key in keys:
            if any(p.chain == key for p in parts):
                continue  # named twice (an alias and its ID)
            addrs = tuple(sorted({*bech, *(evm if key == "C" else ())}))
            stored = reads.primary_span(conn, key)
            if (filtered and not addrs) or stored is None:
                continue  # nothing of this chain can be exported
            last = stored[1] if end is None else min(end, stored[1])
            span = (stored[0] if start is None else start, last)
            label = params.chain_id_of(net, key)
            parts.append(Part(key, label, addrs, start, last, span))
    columns = "primary_simple" if req.type == rq.PRIMARY_SIMPLE else "primary"
    types = STAKING_TX_TYPES if req.type == rq.PRIMARY_STAKING else ()
    return Plan("primary", req.format, columns, tuple(parts), types)


def _chain_key(net: str, i: int, value: str) -> str:
    try:
        return params.chain(net, value)
    except ApiError as exc:
        raise bad_request(f"options.includeChains[{i}]: {exc.message}") from None


def _primary_addresses(net: str, key: str, values: list[str], name: str) -> list[str]:
    for i, v in enumerate(values):
        if not _ONE_ADDRESS.fullmatch(v):
            raise bad_request(f"{name}[{i}]: one bech32 address per item (got {v[:80]!r})")
    try:
        return params.addresses(net, key, ",".join(values))
    except ApiError as exc:
        raise bad_request(f"{name}: {exc.message}") from None
