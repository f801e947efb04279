"""What the devnet node answers from its P-chain state: validators of an L1 and platform.*.

Stage: devnet facade. Reads the PrimarySim's P-chain state under the node's lock.

- POST /ext/bc/<blockchain ID or name>/validators, `validators.getCurrentValidators` (subnet-evm
  plugin/evm/service.go; node-rpc.md section 3): the validators of the subnet the chain belongs
  to. For a converted subnet (an L1): its L1 validators from ConvertSubnetToL1Tx and
  RegisterL1ValidatorTx, with their current weight, `isActive` while their balance covers the
  continuous fee (disabled ones stay listed, inactive; removed ones, weight 0, are gone). For a
  permissioned subnet: its subnet validators, `validationID` the add-validator tx ID, always
  active. Uptime and connection follow uptime.py's rule, measured up to the node's clock.
- POST /ext/bc/P (and /ext/P): `platform.getBlockchains`, `platform.getSubnets`,
  `platform.getHeight`, `platform.getTimestamp`, `platform.getCurrentSupply` (the supply
  the simulator moves as avalanchego does, at its height), and what an indexer needs from the node
  beyond the blocks: `platform.getRewardUTXOs` (the reward UTXOs a committed
  RewardValidatorTx paid a staker, kept after they are spent), `platform.getUTXOs` (the
  unspent UTXOs of addresses, paged as avalanchego pages them: how an indexer learns the L1
  balance refunds no block carries) and
  `platform.getCurrentValidators` of the primary network (potential rewards, accrued
  delegatee rewards, uptime and connection), and `platform.getL1Validator` (an L1
  validator's balance left for the continuous fee at the P-chain's current time, 0 once
  disabled; a removed one is "not found", as avalanchego forgets it).

Both use the avalanchego RPC stack (jsonrpc.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from avadata.decode.codec import api
from avadata.decode.codec.components import UTXO, TransferOutput
from avadata.decode.codec.ids import (
    bech32_address,
    cb58_decode,
    cb58_encode,
    hex_with_checksum,
    node_id_str,
    parse_bech32_address,
    parse_node_id,
)
from avadata.decode.codec.reader import DecodeError
from avadata.devnet.facade.jsonrpc import BadParams, Handler, MethodError, dispatch
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
from avadata.devnet.primary.pchain_state import PChainState
from avadata.devnet.primary.simulator import PrimarySim


def _node_filter(params: dict[str, Any]) -> set[bytes] | None:
    value = params.get("nodeIDs")
    if value is None or value == []:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadParams
    try:
        return {parse_node_id(v) for v in value}
    except DecodeError:
        raise BadParams from None


def current_validators(
    state: PChainState, subnet: bytes, now: int, wanted: set[bytes] | None
) -> list[dict[str, Any]]:
    """The validator entries of `subnet`, in node-ID order, as seen at wall time `now`."""
    rows: list[tuple[bytes, bytes, int, int, bool, bool]] = []
    # (node ID, validation ID, weight, start, isActive, isL1Validator)
    converted = state.subnets.get(subnet)
    if converted is not None and converted.converted:
        for v in state.l1_validators.values():
            if v.subnet_id == subnet and v.weight > 0:
                rows.append(
                    (v.node_id, v.validation_id, v.weight, v.start, v.active(state.time), True)
                )
    else:
        for s in state.current_stakers("subnet_validator", subnet):
            rows.append((s.node_id, s.tx_id, s.weight, s.start, True, False))
    out = []
    for node_id, validation_id, weight, start, active, is_l1 in sorted(rows):
        if wanted is not None and node_id not in wanted:
            continue
        out.append(
            {
                "validationID": cb58_encode(validation_id),
                "nodeID": node_id_str(node_id),
                "weight": weight,
                "startTimestamp": start,
                "isActive": active,
                "isL1Validator": is_l1,
                "isConnected": uptime.is_connected(node_id, now),
                "uptimePercentage": uptime.uptime_percentage(node_id),
                "uptimeSeconds": uptime.uptime_seconds(node_id, start, now),
            }
        )
    return out


def _chain_ids(sim: PrimarySim) -> dict[str, bytes]:
    """URL segment -> blockchain ID of every chain with a validators API (the EVM L1s)."""
    out: dict[str, bytes] = {}
    for name, chain in sim.chain_of.items():
        out[name] = chain
        out[cb58_encode(chain)] = chain
    return out


MAX_UTXOS = 1_024  # avalanchego's largest getUTXOs page

SimView = Callable[[], PrimarySim]  # the node's current simulator (replaced on a reload)


def platform_methods(
    view: SimView, lock: threading.Lock, now: Callable[[], float] = time.time
) -> dict[str, Handler]:
    def blockchains(params: dict[str, Any]) -> dict[str, Any]:
        with lock:
            chains = list(view().p.state.chains.values())
        primary = [
            {
                "id": cb58_encode(X_CHAIN_ID),
                "name": "X-Chain",
                "subnetID": cb58_encode(PRIMARY_SUBNET_ID),
                "vmID": cb58_encode(AVM_VM_ID),
            },
            {
                "id": cb58_encode(C_CHAIN_ID),
                "name": "C-Chain",
                "subnetID": cb58_encode(PRIMARY_SUBNET_ID),
                "vmID": cb58_encode(EVM_VM_ID),
            },
        ]
        created = [
            {
                "id": cb58_encode(c.chain_id),
                "name": c.name,
                "subnetID": cb58_encode(c.subnet_id),
                "vmID": cb58_encode(c.vm_id),
            }
            for c in sorted(chains, key=lambda c: (c.created_at, c.chain_id))
        ]
        return {"blockchains": primary + created}

    def subnets(params: dict[str, Any]) -> dict[str, Any]:
        with lock:
            found = sorted(view().p.state.subnets.values(), key=lambda s: s.subnet_id)
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

    def height(params: dict[str, Any]) -> dict[str, str]:
        with lock:
            return {"height": str(view().p.state.height)}

    def current_supply(params: dict[str, Any]) -> dict[str, str]:
        with lock:
            state = view().p.state
            return {"supply": str(state.supply), "height": str(state.height)}

    def timestamp(params: dict[str, Any]) -> dict[str, str]:
        with lock:
            t = view().p.state.time
        return {"timestamp": datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}

    def reward_utxos(params: dict[str, Any]) -> dict[str, Any]:
        tx_id = params.get("txID")
        if not isinstance(tx_id, str):
            raise BadParams
        try:
            staker = cb58_decode(tx_id)
        except DecodeError:
            raise BadParams from None
        with lock:
            paid = list(view().p.state.reward_utxos.get(staker, ()))
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

    def get_utxos(params: dict[str, Any]) -> dict[str, Any]:
        """avalanchego's paginated reply: the addresses' unspent UTXOs (or, with
        `sourceChain`, the atomic UTXOs that chain exported to them), address by address in
        byte order and each address's UTXOs in ID order, at most `limit` (1,024 when 0 or
        more), resuming strictly after `startIndex`. The state is the current one: a UTXO
        already spent is not there, whatever created it."""
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
        with lock:
            sim = view()
            if source_id == P_CHAIN_ID:
                book = sim.p.utxos
                owned = {a: book.owned(a) for a in wanted}
            else:
                shared = sim.shared
                book = shared.book(P_CHAIN_ID)
                owned = {
                    a: [c for c in book.owned(a) if shared.source.get(c.utxo_id) == source_id]
                    for a in wanted
                }
        seen: set[bytes] = set()
        fetched: list[tuple[bytes, bytes, str]] = []
        for address in wanted:
            if address < after_addr:
                continue
            for coin in sorted(owned[address], key=lambda c: c.utxo_id):
                if address == after_addr and coin.utxo_id <= after_utxo:
                    continue
                if coin.utxo_id in seen:
                    continue
                seen.add(coin.utxo_id)
                fetched.append(
                    (address, coin.utxo_id, hex_with_checksum(api.encode_utxo(coin.as_utxo())))
                )
                if len(fetched) == limit:
                    break
            if len(fetched) == limit:
                break
        end_addr, end_utxo = (fetched[-1][0], fetched[-1][1]) if fetched else (after_addr, b"")
        return {
            "numFetched": str(len(fetched)),
            "utxos": [u for _, _, u in fetched],
            "endIndex": {
                "address": bech32_address(end_addr, HRP, "P") if end_addr else "",
                "utxo": cb58_encode(end_utxo) if end_utxo else "",
            },
            "encoding": "hex",
        }

    def current_validators(params: dict[str, Any]) -> dict[str, Any]:
        """Primary-network validators with what only the node knows: the potential reward
        fixed when each was added, the commission accrued from delegators, uptime."""
        wanted = _node_filter(params)
        subnet = params.get("subnetID")
        if subnet not in (None, cb58_encode(PRIMARY_SUBNET_ID)):
            raise MethodError("only the primary network's validators are served here")
        with lock:
            state = view().p.state
            t = max(int(now()), state.time)
            stakers = list(state.stakers.values())
        out = []
        for v in sorted(stakers, key=lambda s: (s.node_id, s.tx_id)):
            if v.kind != "validator" or (wanted is not None and v.node_id not in wanted):
                continue
            delegators = [d for d in stakers if d.kind == "delegator" and d.node_id == v.node_id]
            out.append(
                {
                    "txID": cb58_encode(v.tx_id),
                    "startTime": str(v.start),
                    "endTime": str(v.end),
                    "weight": str(v.weight),
                    "nodeID": node_id_str(v.node_id),
                    "potentialReward": str(v.potential_reward),
                    "accruedDelegateeReward": str(v.delegatee_reward),
                    "delegationFee": f"{v.shares / 10_000:.4f}",
                    "uptime": f"{uptime.uptime_percentage(v.node_id):.4f}",
                    "connected": uptime.is_connected(v.node_id, t),
                    "delegatorCount": str(len(delegators)),
                    "delegatorWeight": str(sum(d.weight for d in delegators)),
                    "delegators": [
                        {
                            "txID": cb58_encode(d.tx_id),
                            "startTime": str(d.start),
                            "endTime": str(d.end),
                            "weight": str(d.weight),
                            "nodeID": node_id_str(d.node_id),
                            "potentialReward": str(d.potential_reward),
                        }
                        for d in sorted(delegators, key=lambda d: d.tx_id)
                    ],
                }
            )
        return {"validators": out}

    def l1_validator(params: dict[str, Any]) -> dict[str, Any]:
        """avalanchego's reply: the validator's fields, its subnet and the P-chain height;
        the balance as of the last accepted block's time (not the wall clock)."""
        vid = params.get("validationID")
        if not isinstance(vid, str):
            raise BadParams
        try:
            validation_id = cb58_decode(vid)
        except DecodeError:
            raise BadParams from None
        with lock:
            state = view().p.state
            v = state.l1_validators.get(validation_id)
            height, t = state.height, state.time
        if v is None:
            raise MethodError(f'fetching L1 validator "{vid}" failed: not found')

        def owner(o: Any) -> dict[str, Any]:
            return {
                "locktime": "0",
                "threshold": str(o.threshold),
                "addresses": [bech32_address(a, HRP, "P") for a in o.addresses],
            }

        return {
            "nodeID": node_id_str(v.node_id),
            "weight": str(v.weight),
            "startTime": str(v.start),
            "validationID": vid,
            "publicKey": "0x" + v.bls_public_key.hex(),
            "remainingBalanceOwner": owner(v.remaining_balance_owner),
            "deactivationOwner": owner(v.deactivation_owner),
            "minNonce": str(v.min_nonce),
            "balance": str(v.remaining(t)),
            "subnetID": cb58_encode(v.subnet_id),
            "height": str(height),
        }

    return {
        "getRewardUTXOs": reward_utxos,
        "getUTXOs": get_utxos,
        "getL1Validator": l1_validator,
        "getCurrentValidators": current_validators,
        "getBlockchains": blockchains,
        "getSubnets": subnets,
        "getHeight": height,
        "getCurrentSupply": current_supply,
        "getTimestamp": timestamp,
    }


def node_routes(
    view: SimView, lock: threading.Lock, now: Callable[[], float] = time.time
) -> list[Route]:
    """The validators API of every L1 chain and the platform API, reading `view()` under
    `lock`."""

    async def validators(request: Request) -> Response:
        with lock:
            sim = view()
            chain = _chain_ids(sim).get(request.path_params["chain"])
            info = sim.p.state.chains.get(chain) if chain is not None else None
        if info is None:
            return PlainTextResponse("404 page not found", 404)

        def get_current_validators(params: dict[str, Any]) -> dict[str, Any]:
            wanted = _node_filter(params)
            with lock:
                state = view().p.state
                wall = max(int(now()), state.time)
                return {"validators": current_validators(state, info.subnet_id, wall, wanted)}

        return await dispatch(
            request, "validators", {"getCurrentValidators": get_current_validators}
        )

    methods = platform_methods(view, lock, now)

    async def platform(request: Request) -> Response:
        return await dispatch(request, "platform", methods)

    verbs = ["GET", "POST", "PUT", "DELETE"]
    return [
        Route("/ext/bc/{chain}/validators", validators, methods=verbs),
        Route("/ext/bc/P", platform, methods=verbs),
        Route("/ext/P", platform, methods=verbs),
    ]
