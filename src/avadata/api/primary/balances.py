"""GET /v1/networks/{network}/blockchains/{blockchainId}/balances (getBalancesByAddresses).

Stage: api. The addresses' UTXOs alive at a time (blockTimestamp, else now: the unspent
ones, classed at the P-chain's newest block time), summed per asset and class:

- P-chain: a staked UTXO is pendingStaked before its period starts, lockedStaked or
  unlockedStaked (by its stakeable locktime) until the reward tx returns it, then an
  ordinary UTXO; an ordinary one is lockedPlatform (its output's locktime ahead),
  lockedStakeable (its stakeable locktime ahead) or unlockedUnstaked.
- X-chain: locked (locktime ahead) or unlocked.
- every chain: atomicMemoryUnlocked / atomicMemoryLocked, the UTXOs another chain exported
  to this one for the addresses that no import took yet (the C-chain serves only these).

A UTXO of several of the addresses counts once.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query

from avadata.api.deps import State, on_store, read_conn
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import BlockchainId, Network, RequiredAddresses, chain_info
from avadata.api.primary.shapes import Assets
from avadata.store.primary.queries import addresses as queries
from avadata.store.primary.queries import validators as validator_queries
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])

P_CLASSES = (
    "unlockedUnstaked",
    "unlockedStaked",
    "lockedPlatform",
    "lockedStakeable",
    "lockedStaked",
    "pendingStaked",
)


class Tally:
    """Amounts and UTXO counts per (class, asset, shared chain)."""

    def __init__(self, assets: Assets) -> None:
        self.assets = assets
        self.sums: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])

    def add(self, cls: str, row: Any, shared: str = "") -> None:
        entry = self.sums[(cls, str(row.asset_id), shared)]
        entry[0] += int(row.amount)
        entry[1] += 1

    def listed(self, cls: str) -> list[dict[str, Any]]:
        out = []
        for (c, asset_id, shared), (amount, count) in sorted(self.sums.items()):
            if c != cls:
                continue
            item = {**self.assets.amount(asset_id, amount), "utxoCount": count}
            if shared:
                item["sharedWithChainId"] = shared
                if self.assets.chain == "P":
                    item["status"] = "locked" if cls.endswith("Locked") else "unlocked"
            out.append(item)
        return out


def _p_class(row: Any, at: int, stakes: dict[str, tuple[int, int | None]]) -> str:
    stakeable = int(row.stakeable_locktime or 0)
    if row.staked:
        start, returned = stakes.get(str(row.tx_hash), (0, None))
        if returned is None or returned > at:
            if start > at:
                return "pendingStaked"
            return "lockedStaked" if stakeable > at else "unlockedStaked"
    if int(row.platform_locktime) > at:
        return "lockedPlatform"
    return "lockedStakeable" if stakeable > at else "unlockedUnstaked"


def _atomic(
    conn: Connection, net: str, key: str, addrs: list[str], at: int | None, tally: Tally, now: int
) -> None:
    """The UTXOs exported to chain `key` for `addrs`, not yet imported."""
    wanted, own = set(addrs), params.chain_id_of(net, key)
    for row, body in queries.exported_utxos(conn, addrs, at):
        if orjson.loads(body).get("destinationChain") != own:
            continue
        if not wanted.intersection(orjson.loads(row.addresses)):
            continue
        locked = int(row.platform_locktime) > now
        cls = "atomicMemoryLocked" if locked else "atomicMemoryUnlocked"
        tally.add(cls, row, params.chain_id_of(net, str(row.created_on)))


def balances(conn: Connection, net: str, key: str, addrs: list[str], at: int | None) -> Any:
    """The `balances` object of chain `key` for `addrs` at `at` (None: now)."""
    now = at if at is not None else validator_queries.p_chain_now(conn) or 0
    owned = queries.owned_utxos(conn, key, addrs, at) if key != "C" else []
    tally = Tally(Assets(net, key).load(conn, [str(r.asset_id) for r in owned]))
    stakes = queries.stake_states(conn, [str(r.tx_hash) for r in owned if r.staked])
    for r in owned:
        if key == "P":
            tally.add(_p_class(r, now, stakes), r)
        else:
            tally.add("locked" if int(r.platform_locktime) > now else "unlocked", r)
    _atomic(conn, net, key, addrs, at, tally, now)
    tally.assets.load(conn, [k[1] for k in tally.sums])
    classes = {"P": P_CLASSES, "X": ("locked", "unlocked"), "C": ()}[key]
    out = {c: tally.listed(c) for c in classes}
    out.update({c: tally.listed(c) for c in ("atomicMemoryUnlocked", "atomicMemoryLocked")})
    return out


@router.get(
    "/v1/networks/{network}/blockchains/{blockchainId}/balances",
    operation_id="getBalancesByAddresses",
    responses={
        **ok(
            "ListPChainBalancesResponse",
            "ListXChainBalancesResponse",
            "ListCChainAtomicBalancesResponse",
        ),
        **ERROR_RESPONSES,
    },
    response_model=None,
)
@on_store
def get_balances(
    st: State,
    network: Network,
    blockchain_id: BlockchainId,
    addresses: RequiredAddresses,
    blockTimestamp: Annotated[
        int | None, Query(ge=0, le=2**63 - 1, description="Unix seconds: the balance then")
    ] = None,
) -> JsonResponse:
    net, key, addrs = params.addressed(st, network, blockchain_id, addresses)
    with read_conn(st) as conn:
        found = balances(conn, net, key, addrs, blockTimestamp)
    return JsonResponse({"balances": found, "chainInfo": chain_info(key, net)})
