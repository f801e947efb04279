"""What the devnet node answers from its P-chain state: validators of an L1 and platform.*.

Stage: devnet facade. Reads the PrimarySim's P-chain state under the node's lock.

- POST /ext/bc/<blockchain ID or name>/validators, `validators.getCurrentValidators` (subnet-evm
  plugin/evm/service.go; node-rpc.md section 3): the validators of the subnet the chain belongs
  to. For a converted subnet (an L1): its L1 validators from ConvertSubnetToL1Tx and
  RegisterL1ValidatorTx, with their current weight, `isActive` while their balance covers the
  continuous fee (disabled ones stay listed, inactive; removed ones, weight 0, are gone). For a
  permissioned subnet: its subnet validators, `validationID` the add-validator tx ID, always
  active. Uptime and connection follow primary/uptime.py's rule, measured up to the node's clock.
- POST /ext/bc/P (and /ext/P): the `platform` service, whose handlers are platform_api.py's.
- POST /ext/info: the `info` service (info_api.py).

Both use the avalanchego RPC stack (jsonrpc.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from avadata.decode.codec.ids import cb58_encode, node_id_str
from avadata.devnet.facade.info_api import info_routes
from avadata.devnet.facade.jsonrpc import dispatch, node_ids_param
from avadata.devnet.facade.platform_api import SimView, platform_methods
from avadata.devnet.primary import uptime
from avadata.devnet.primary.pchain_state import PChainState
from avadata.devnet.primary.simulator import PrimarySim


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
            wanted = node_ids_param(params.get("nodeIDs"))
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
        *info_routes(view, lock),
    ]
