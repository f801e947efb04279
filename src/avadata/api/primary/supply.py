"""GET /v1/avax/supply (getAvaxSupply): the AVAX supply of the primary network this store
indexes, in AVAX as decimal strings.

Stage: api. From the store only:

- genesisUnlock: the supply before the first indexed staker (the replay's start supply:
  decode/primary/supply.py), else the node's last supply;
- totalRewards: the node's last supply (platform.getCurrentSupply) minus that: the rewards
  avalanchego has minted for stakers since;
- totalXBurned, totalCBurned, totalPBurned: what the indexed txs burned (consumed minus
  created, the running totals the primary writer keeps: store/primary/kept.py; the C-chain's
  atomic txs plus its EVM txs' fees when the C-chain's EVM side is indexed here; the
  P-chain's plus l1ValidatorFees);
- l1ValidatorFees: what L1 validators' balances took in minus what they hold and gave back;
- totalSupply = genesisUnlock + totalRewards - the three burns; circulatingSupply the same
  (the reference's example gives both the same value);
- totalStaked: the active primary stakers' stake (kept per P-chain head, api/derived.py);
  totalLocked: unspent AVAX under a locktime, not staking; lastUpdated: the P-chain's
  newest block time.
"""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from decimal import Decimal

from fastapi import APIRouter

from avadata import networks
from avadata.api.deps import State, on_store, read_conn
from avadata.api.derived import DerivedCache, Kept
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, not_found
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.shapes import AVAX_IDS
from avadata.store.primary.queries import addresses as address_queries
from avadata.store.primary.queries import supply as queries
from avadata.store.primary.queries import validators as validator_queries
from avadata.store.types import Connection

router = APIRouter(tags=["AVAX Supply"])

NAVAX = 10**9  # nAVAX per AVAX; the EVM's wei are 10**18 per AVAX


def avax(nano: int) -> str:
    """nAVAX as AVAX: a decimal string without trailing zeros."""
    return _decimal(Decimal(nano).scaleb(-9))


def _decimal(value: Decimal) -> str:
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _locked(conn: Connection, asset: str, now: int) -> int:
    """Unspent AVAX under a locktime after `now`, leaving out stakes still staking."""
    rows = [r for r in queries.locked_utxos(conn, now) if str(r.asset_id) == asset]
    stakes = address_queries.stake_states(conn, [str(r.tx_hash) for r in rows if r.staked])
    total = 0
    for r in rows:
        returned = stakes.get(str(r.tx_hash), (0, 0))[1] if r.staked else 0
        if returned is not None and returned <= now:
            total += int(r.amount)
    return total


def staked(conn: Connection, now: int) -> int:
    """nAVAX the active primary validators and delegators stake at `now`."""
    return sum(int(r.amount_staked) for r in validator_queries.active_primary_stakes(conn, now))


def supply(conn: Connection, net: str, network_id: int, cache: DerivedCache) -> dict[str, str]:
    found = queries.anchor(conn)
    node_supply = int(found.supply) if found is not None else 0
    start = found.start_supply if found is not None else None
    genesis = int(start) if start is not None else node_supply
    asset = queries.fee_asset(conn) or AVAX_IDS.get(net, "")
    burned = queries.burn_totals(conn, asset)
    deposits = burned.get("P", (0, 0))[1]
    l1_fees = max(0, deposits - queries.l1_balances_left(conn) - queries.l1_refunded(conn))
    p_burned = burned.get("P", (0, 0))[0] + l1_fees
    x_burned = burned.get("X", (0, 0))[0]
    evm_id = networks.by_id(network_id).c_chain_evm_id
    c_wei = burned.get("C", (0, 0))[0] * NAVAX + (queries.evm_fees(conn, evm_id) if evm_id else 0)
    now = validator_queries.p_chain_now(conn) or 0
    # Kept per P-chain head: the periods change only with it (a scan of every period).
    kept = Kept(cache, (validator_queries.p_chain_cursor(conn), now))
    stake = kept.get("staked", functools.partial(staked, conn, now))
    # nAVAX: genesis + rewards - the burns
    total = Decimal(node_supply - p_burned - x_burned) - Decimal(c_wei).scaleb(-9)
    return {
        "circulatingSupply": _decimal(total.scaleb(-9)),
        "totalSupply": _decimal(total.scaleb(-9)),
        "totalPBurned": avax(p_burned),
        "totalCBurned": _decimal(Decimal(c_wei).scaleb(-18)),
        "totalXBurned": avax(x_burned),
        "totalStaked": avax(stake),
        "totalLocked": avax(_locked(conn, asset, now)),
        "totalRewards": avax(node_supply - genesis),
        "lastUpdated": datetime.fromtimestamp(now, UTC).isoformat(timespec="milliseconds")[:-6]
        + "Z",
        "genesisUnlock": avax(genesis),
        "l1ValidatorFees": avax(l1_fees),
    }


@router.get(
    "/v1/avax/supply",
    operation_id="getAvaxSupply",
    responses={**ok("AvaxSupplyResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def get_supply(st: State) -> JsonResponse:
    indexed = params.indexed_network(st)
    if indexed is None:
        raise not_found(
            "no primary network is indexed here (`avadata index --node URL` records it)"
        )
    net = params.net_key(networks.by_id(indexed))
    with read_conn(st) as conn:
        return JsonResponse(supply(conn, net, indexed, st.derived))
