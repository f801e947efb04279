"""GET /v1/networks/{network}/l1Validators (listL1Validators): ACP-77 L1 validators, newest
creation first, with their runway.

Stage: api. Each L1 validation's balance comes from the P-chain rollup's fee replay state
(`metric_l1_accounts`, kept per P-chain block by store/metrics/pchain_writer.py: the same
arithmetic as metrics/l1_fees.replay, stepped), settled to the P-chain's newest indexed time
(`pchain_rollup.tail`): that is `remainingBalance`, and `blockHeight` names the newest block.
A validation is active while it pays the continuous fee (its balance covers a second; not
disabled nor removed); `includeInactiveL1Validators` adds the others (ran out, disabled,
removed: weight 0). Weight and BLS key come from the txs that created it and set its weight;
the owners from its creation.

Beyond the reference (issue 22; the SDK's schema strips unknown keys): `feeRatePerSecond`
(nAVAX per second paid now, 0 when inactive), `predictedDeactivationTimestamp` and
`predictedDeactivationHeight` (metrics/l1_fees.runway from the head, null when inactive or,
for the height, before two P-chain blocks give a cadence).
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple

import orjson
from fastapi import APIRouter, Query

from avadata.api.deps import State, on_store, read_conn
from avadata.api.derived import Kept
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.paging import PageSize, PageToken, page, with_token
from avadata.api.patterns import CB58_ID, NODE_ID
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network
from avadata.decode.codec.ids import cb58_decode, parse_node_id
from avadata.decode.codec.reader import DecodeError
from avadata.metrics import l1_fees, pchain_rollup
from avadata.store.metrics import pchain_reads
from avadata.store.primary.queries import l1_validators as queries
from avadata.store.primary.queries.validators import p_chain_cursor, p_chain_now
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])

# The stakers whose ends the P-chain rewards with a block pair (metrics/l1_fees.runway).
REWARDED = ("validator", "delegator")


class L1State(NamedTuple):
    """One L1 validation at the P-chain's newest time."""

    created: int  # the time of its first tx
    validation_id: str
    subnet_id: str
    node_id: str
    balance: int  # left for the continuous fee
    deactivates_at: int | None  # when it runs out at the current price (None: not paying)


def l1_states(conn: Connection, now: int) -> list[L1State]:
    """Every L1 validation the rollup keeps, settled from its last step to `now`."""
    out = []
    for vid, subnet, node, first, account in pchain_reads.l1_accounts(conn):
        left = pchain_rollup.tail(account, now)[1]
        # as l1_fees.replay: it runs out `left // price` seconds on while it covers a second
        price = l1_fees.FEE_PER_SECOND
        runs_out = now + left // price if left >= price else None
        out.append(L1State(first, vid, subnet, node, left, runs_out))
    return out


NO_OWNER = {"addresses": [], "threshold": 0}


def _node(value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_node_id(value)
    except DecodeError:
        raise bad_request(
            f"nodeId: must be a NodeID-... with a valid CB58 checksum (got {value[:80]!r})"
        ) from None
    return value


def _owner(text: str | None) -> dict[str, Any]:
    if text is None:
        return dict(NO_OWNER)
    # stored bare, served with the P- prefix as the subnet routes' owners and the node's
    found = orjson.loads(text)
    return {
        "addresses": ["P-" + a for a in found["addresses"]],
        "threshold": int(found["threshold"]),
    }


def _selected(
    states: list[L1State], wanted: tuple[str | None, str | None, str | None], every: bool
) -> list[L1State]:
    """The validations the filters name (active ones unless `every`), newest first."""
    out = [
        st
        for st in states
        if all(w is None or w == got for w, got in zip(wanted, st[1:4], strict=True))
        and (every or st.deactivates_at is not None)
    ]
    return sorted(out, reverse=True)


@router.get(
    "/v1/networks/{network}/l1Validators",
    operation_id="listL1Validators",
    responses={**ok("ListL1ValidatorsResponse"), **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_l1_validators(
    st: State,
    network: Network,
    pageToken: PageToken = None,
    pageSize: PageSize = 10,
    l1ValidationId: Annotated[
        str | None, Query(pattern=CB58_ID, description="CB58 validation ID")
    ] = None,
    includeInactiveL1Validators: Annotated[bool | None, Query()] = None,
    nodeId: Annotated[str | None, Query(pattern=NODE_ID, description="NodeID-...")] = None,
    subnetId: Annotated[str | None, Query(pattern=CB58_ID, description="CB58 subnet ID")] = None,
) -> JsonResponse:
    params.network(network, params.indexed_network(st))
    wanted = (
        params.l1_validation_id("P", l1ValidationId),
        None if subnetId is None else params.subnet_id(subnetId),
        _node(nodeId),
    )
    every = bool(includeInactiveL1Validators)
    filters = {"w": wanted, "all": every}
    pg = page(st, "l1_validators", filters, pageToken, pageSize, arity=2)
    with read_conn(st) as conn:
        now = p_chain_now(conn)
        # What follows is read once per P-chain head (api/derived.py).
        kept = Kept(st.derived, (p_chain_cursor(conn), now))
        span = kept.get("p_span", lambda: queries.p_chain_span(conn))
        if now is None or span is None:
            return JsonResponse({"validators": [], "blockHeight": "0"})
        rows = _selected(kept.get("l1_states", lambda: l1_states(conn, now)), wanted, every)
        if pg.after is not None:
            after = (int(pg.after[0]), str(pg.after[1]))
            rows = [r for r in rows if (r.created, r.validation_id) < after]
        served = rows[: pg.size]
        token = pg.token(served[-1][:2]) if len(rows) > pg.size else None
        out = _shaped(conn, kept, served, span, now)
    body = {"validators": out, "blockHeight": str(span.head_height)}
    return JsonResponse(with_token(body, token))


def details(conn: Connection) -> dict[str, tuple[int, Any]]:
    """validation ID -> (weight, BLS credentials): its creation's, then each weight change's
    (each tx's body parsed once)."""
    links, bodies = queries.defining_txs(conn)
    parsed = {tx: orjson.loads(body).get("l1ValidatorDetails", ()) for tx, body in bodies.items()}
    weight: dict[str, int] = {}
    bls: dict[str, Any] = {}
    for vid, tx in links:
        for d in parsed.get(tx, ()):
            if d["validationId"] == vid and "weight" in d:
                weight[vid] = int(d["weight"])
                bls.setdefault(vid, d.get("blsCredentials"))
    return {vid: (w, bls.get(vid)) for vid, w in weight.items()}


def _shaped(
    conn: Connection, kept: Kept, served: list[L1State], span: queries.Span, now: int
) -> list[dict[str, Any]]:
    owners = queries.owners(conn, [st.validation_id for st in served])
    defined = kept.get("l1_details", lambda: details(conn))
    paying = any(st.deactivates_at is not None for st in served)
    # The reward blocks still to come (those before a deactivation add to its height).
    ends = kept.get("ends", lambda: pchain_reads.ends_after(conn, REWARDED, now)) if paying else []
    out = []
    for st in served:
        replay = l1_fees.Replay([], st.balance, st.deactivates_at)
        runway = l1_fees.runway(replay, span.head_height, now, span.interval, ends)
        refund_owner, disable_owner = owners.get(st.validation_id, (None, None))
        out.append(
            {
                "validationId": st.validation_id,
                "validationIdHex": "0x" + cb58_decode(st.validation_id).hex(),
                "nodeId": st.node_id,
                "subnetId": st.subnet_id,
                "weight": defined.get(st.validation_id, (0, None))[0],
                "remainingBalance": st.balance,
                "creationTimestamp": st.created,
                "blsCredentials": defined.get(st.validation_id, (0, None))[1] or {},
                "remainingBalanceOwner": _owner(refund_owner),
                "deactivationOwner": _owner(disable_owner),
                "feeRatePerSecond": runway.fee_per_second,
                "predictedDeactivationTimestamp": runway.deactivation_timestamp,
                "predictedDeactivationHeight": runway.deactivation_height,
            }
        )
    return out
