"""platform.* of the devnet node: one small handler per method, read from the P-chain state.

Stage: devnet facade. Every handler takes the `NodeView` (the node's current PrimarySim, the lock
it is read under, the wall clock) and the call's params; `METHODS` is the table the service
dispatches on (jsonrpc.py). Served on POST /ext/bc/P (and /ext/P) by pnode_routes.py.

`platform.getBlockchains`, `platform.getSubnets`, `platform.getHeight`,
`platform.getTimestamp`, `platform.getCurrentSupply` (the supply the simulator moves as
avalanchego does, at its height), and what an indexer needs from the node beyond the blocks:
`platform.getRewardUTXOs` (the reward UTXOs a committed RewardValidatorTx paid a staker, kept
after they are spent), `platform.getUTXOs` (the unspent UTXOs of addresses, paged as
avalanchego pages them: how an indexer learns the L1 balance refunds no block carries),
`platform.getCurrentValidators` of the primary network (potential rewards, accrued delegatee
rewards, uptime and connection), and `platform.getL1Validator` (an L1 validator's balance left
for the continuous fee at the P-chain's current time, 0 once disabled; a removed one is "not
found", as avalanchego forgets it).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from avadata.decode.codec import api
from avadata.decode.codec.components import UTXO, TransferOutput
from avadata.decode.codec.ids import (
    bech32_address,
    cb58_decode,
    cb58_encode,
    hex_with_checksum,
    node_id_str,
    parse_bech32_address,
)
from avadata.decode.codec.reader import DecodeError
from avadata.devnet.facade.jsonrpc import (
    BadParams,
    Handler,
    MethodError,
    Params,
    cb58_param,
    node_ids_param,
)
from avadata.devnet.primary import uptime
from avadata.devnet.primary.network_ids import (
    AVAX_ASSET_ID,
    AVM_VM_ID,
    C_CHAIN_ID,
    EVM_VM_ID,
    HRP,
    P_CHAIN_ID,
    PRIMARY_SUBNET_ID,
    X_CHAIN_ID,
)
from avadata.devnet.primary.pchain_state import Staker
from avadata.devnet.primary.simulator import PrimarySim
from avadata.devnet.primary.utxo_book import Coin

MAX_UTXOS = 1_024  # avalanchego's largest getUTXOs page

SimView = Callable[[], PrimarySim]  # the node's current simulator (replaced on a reload)


@dataclass(frozen=True)
class NodeView:
    sim: SimView
    lock: threading.Lock
    now: Callable[[], float] = time.time


# -- chains, subnets, height, time and supply -------------------------------------------------


def _chain_json(chain_id: bytes, name: str, subnet_id: bytes, vm_id: bytes) -> dict[str, str]:
    return {
        "id": cb58_encode(chain_id),
        "name": name,
        "subnetID": cb58_encode(subnet_id),
        "vmID": cb58_encode(vm_id),
    }


def get_blockchains(node: NodeView, params: Params) -> dict[str, Any]:
    with node.lock:
        chains = list(node.sim().p.state.chains.values())
    primary = [
        _chain_json(X_CHAIN_ID, "X-Chain", PRIMARY_SUBNET_ID, AVM_VM_ID),
        _chain_json(C_CHAIN_ID, "C-Chain", PRIMARY_SUBNET_ID, EVM_VM_ID),
    ]
    created = [
        _chain_json(c.chain_id, c.name, c.subnet_id, c.vm_id)
        for c in sorted(chains, key=lambda c: (c.created_at, c.chain_id))
    ]
    return {"blockchains": primary + created}


def get_subnets(node: NodeView, params: Params) -> dict[str, Any]:
    with node.lock:
        found = sorted(node.sim().p.state.subnets.values(), key=lambda s: s.subnet_id)
    return {
        "subnets": [
            {
                "id": cb58_encode(s.subnet_id),
                "controlKeys": [bech32_address(s.owner, HRP, "P")],
                "threshold": "1",
            }
            for s in found
        ]
    }


def get_height(node: NodeView, params: Params) -> dict[str, str]:
    with node.lock:
        return {"height": str(node.sim().p.state.height)}


def get_current_supply(node: NodeView, params: Params) -> dict[str, str]:
    with node.lock:
        state = node.sim().p.state
        return {"supply": str(state.supply), "height": str(state.height)}


def get_timestamp(node: NodeView, params: Params) -> dict[str, str]:
    with node.lock:
        t = node.sim().p.state.time
    return {"timestamp": datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


# -- UTXOs ------------------------------------------------------------------------------------


def get_reward_utxos(node: NodeView, params: Params) -> dict[str, Any]:
    staker = cb58_param(params.get("txID"))
    with node.lock:
        paid = list(node.sim().p.state.reward_utxos.get(staker, ()))
    utxos = [
        hex_with_checksum(
            api.encode_utxo(
                UTXO(
                    staker,
                    index,
                    AVAX_ASSET_ID,
                    TransferOutput(amount, owner.locktime, owner.threshold, owner.addresses),
                )
            )
        )
        for index, amount, owner in paid
    ]
    return {"numFetched": str(len(utxos)), "utxos": utxos, "encoding": "hex"}


@dataclass(frozen=True)
class _UtxoQuery:
    addresses: list[bytes]  # sorted, distinct
    limit: int
    after_address: bytes  # startIndex, b"" for none
    after_utxo: bytes
    source: bytes  # P_CHAIN_ID for the P-chain's own UTXOs, else the exporting chain


def _utxo_query(params: Params) -> _UtxoQuery:
    raw = params.get("addresses")
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw) or not raw:
        raise BadParams
    try:
        wanted = sorted({parse_bech32_address(a)[2] for a in raw})
    except DecodeError:
        raise BadParams from None
    limit = params.get("limit") or 0
    if isinstance(limit, str) and limit.isdigit():
        limit = int(limit)
    if not isinstance(limit, int):
        raise BadParams
    limit = MAX_UTXOS if limit <= 0 or limit > MAX_UTXOS else limit
    start = params.get("startIndex") or {}
    if not isinstance(start, dict):
        raise BadParams
    source = params.get("sourceChain") or ""
    try:
        after_addr = parse_bech32_address(start["address"])[2] if start.get("address") else b""
        after_utxo = cb58_decode(start["utxo"]) if start.get("utxo") else b""
        source_id = cb58_decode(source) if source not in ("", "P") else P_CHAIN_ID
    except (DecodeError, TypeError):
        raise BadParams from None
    return _UtxoQuery(wanted, limit, after_addr, after_utxo, source_id)


def _owned(sim: PrimarySim, query: _UtxoQuery) -> dict[bytes, list[Coin]]:
    """Each address's coins: on the P-chain, or in its shared memory from `query.source`."""
    if query.source == P_CHAIN_ID:
        book = sim.p.utxos
        return {a: book.owned(a) for a in query.addresses}
    shared = sim.shared
    book = shared.book(P_CHAIN_ID)
    return {
        a: [c for c in book.owned(a) if shared.source.get(c.utxo_id) == query.source]
        for a in query.addresses
    }


def _utxo_page(query: _UtxoQuery, owned: dict[bytes, list[Coin]]) -> list[tuple[bytes, Coin]]:
    """(address, coin) of the page: after the start index, each UTXO once, at most `limit`."""
    seen: set[bytes] = set()
    page: list[tuple[bytes, Coin]] = []
    for address in query.addresses:
        if address < query.after_address:
            continue
        for coin in sorted(owned[address], key=lambda c: c.utxo_id):
            if address == query.after_address and coin.utxo_id <= query.after_utxo:
                continue
            if coin.utxo_id in seen:
                continue
            seen.add(coin.utxo_id)
            page.append((address, coin))
            if len(page) == query.limit:
                return page
    return page


def get_utxos(node: NodeView, params: Params) -> dict[str, Any]:
    """avalanchego's paginated reply: the addresses' unspent UTXOs (or, with `sourceChain`,
    the atomic UTXOs that chain exported to them), address by address in byte order and each
    address's UTXOs in ID order, at most `limit` (1,024 when 0 or more), resuming strictly
    after `startIndex`. The state is the current one: a UTXO already spent is not there,
    whatever created it."""
    query = _utxo_query(params)
    with node.lock:
        owned = _owned(node.sim(), query)
    page = _utxo_page(query, owned)
    if page:
        end_addr, end_utxo = page[-1][0], page[-1][1].utxo_id
    else:
        end_addr, end_utxo = query.after_address, b""
    return {
        "numFetched": str(len(page)),
        "utxos": [hex_with_checksum(api.encode_utxo(coin.as_utxo())) for _, coin in page],
        "endIndex": {
            "address": bech32_address(end_addr, HRP, "P") if end_addr else "",
            "utxo": cb58_encode(end_utxo) if end_utxo else "",
        },
        "encoding": "hex",
    }


# -- validators -------------------------------------------------------------------------------


def _delegator_json(d: Staker) -> dict[str, Any]:
    return {
        "txID": cb58_encode(d.tx_id),
        "startTime": str(d.start),
        "endTime": str(d.end),
        "weight": str(d.weight),
        "nodeID": node_id_str(d.node_id),
        "potentialReward": str(d.potential_reward),
    }


def _validator_json(v: Staker, delegators: list[Staker], t: int) -> dict[str, Any]:
    return {
        **_delegator_json(v),
        "accruedDelegateeReward": str(v.delegatee_reward),
        "delegationFee": f"{v.shares / 10_000:.4f}",
        "uptime": f"{uptime.uptime_percentage(v.node_id):.4f}",
        "connected": uptime.is_connected(v.node_id, t),
        "delegatorCount": str(len(delegators)),
        "delegatorWeight": str(sum(d.weight for d in delegators)),
        "delegators": [_delegator_json(d) for d in sorted(delegators, key=lambda d: d.tx_id)],
    }


def get_current_validators(node: NodeView, params: Params) -> dict[str, Any]:
    """Primary-network validators with what only the node knows: the potential reward fixed
    when each was added, the commission accrued from delegators, uptime."""
    wanted = node_ids_param(params.get("nodeIDs"))
    subnet = params.get("subnetID")
    if subnet not in (None, cb58_encode(PRIMARY_SUBNET_ID)):
        raise MethodError("only the primary network's validators are served here")
    with node.lock:
        state = node.sim().p.state
        t = max(int(node.now()), state.time)
        stakers = list(state.stakers.values())
    out = []
    for v in sorted(stakers, key=lambda s: (s.node_id, s.tx_id)):
        if v.kind != "validator" or (wanted is not None and v.node_id not in wanted):
            continue
        delegators = [d for d in stakers if d.kind == "delegator" and d.node_id == v.node_id]
        out.append(_validator_json(v, delegators, t))
    return {"validators": out}


def _owner_json(o: Any) -> dict[str, Any]:
    return {
        "locktime": "0",
        "threshold": str(o.threshold),
        "addresses": [bech32_address(a, HRP, "P") for a in o.addresses],
    }


def get_l1_validator(node: NodeView, params: Params) -> dict[str, Any]:
    """avalanchego's reply: the validator's fields, its subnet and the P-chain height; the
    balance as of the last accepted block's time (not the wall clock)."""
    vid = params.get("validationID")
    validation_id = cb58_param(vid)
    with node.lock:
        state = node.sim().p.state
        v = state.l1_validators.get(validation_id)
        height, t = state.height, state.time
    if v is None:
        raise MethodError(f'fetching L1 validator "{vid}" failed: not found')
    return {
        "nodeID": node_id_str(v.node_id),
        "weight": str(v.weight),
        "startTime": str(v.start),
        "validationID": vid,
        "publicKey": "0x" + v.bls_public_key.hex(),
        "remainingBalanceOwner": _owner_json(v.remaining_balance_owner),
        "deactivationOwner": _owner_json(v.deactivation_owner),
        "minNonce": str(v.min_nonce),
        "balance": str(v.remaining(t)),
        "subnetID": cb58_encode(v.subnet_id),
        "height": str(height),
    }


METHODS: dict[str, Callable[[NodeView, Params], Any]] = {
    "getRewardUTXOs": get_reward_utxos,
    "getUTXOs": get_utxos,
    "getL1Validator": get_l1_validator,
    "getCurrentValidators": get_current_validators,
    "getBlockchains": get_blockchains,
    "getSubnets": get_subnets,
    "getHeight": get_height,
    "getCurrentSupply": get_current_supply,
    "getTimestamp": get_timestamp,
}


def platform_methods(
    view: SimView, lock: threading.Lock, now: Callable[[], float] = time.time
) -> dict[str, Handler]:
    """The `platform` service's handlers, bound to the node."""
    node = NodeView(view, lock, now)
    return {name: functools.partial(handler, node) for name, handler in METHODS.items()}
