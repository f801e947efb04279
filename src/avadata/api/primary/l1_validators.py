"""GET /v1/networks/{network}/l1Validators (listL1Validators): ACP-77 L1 validators, newest
creation first, with their runway.

Stage: api. Every L1 validation is replayed to the P-chain's newest indexed block
(`l1_book` over metrics/l1_fees.py, the fee series' own replay): its balance
left there is `remainingBalance` and `blockHeight` names that block. A validation is active
while it pays the continuous fee (its balance covers a second; not disabled nor removed);
`includeInactiveL1Validators` adds the others (ran out, disabled, removed: weight 0). Weight and
BLS key come from the txs that created it and set its weight; the owners from its creation.

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
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.paging import PageSize, PageToken, page, with_token
from avadata.api.patterns import CB58_ID, NODE_ID
from avadata.api.primary import params
from avadata.api.primary.openapi import ok
from avadata.api.primary.routes import Network
from avadata.decode.codec.ids import cb58_decode, parse_node_id
from avadata.decode.codec.reader import DecodeError
from avadata.metrics import l1_fees
from avadata.store.metrics import l1_reads
from avadata.store.primary.queries import l1_validators as queries
from avadata.store.primary.queries import txs as tx_queries
from avadata.store.primary.queries.validators import p_chain_now
from avadata.store.types import Connection

router = APIRouter(tags=["Primary Network"])


class L1Book(NamedTuple):
    """Every L1 validation replayed to the P-chain's newest time."""

    validations: list[tuple[str, str, str]]  # (validation ID, subnet ID, node ID)
    replays: dict[str, l1_fees.Replay]
    first_tx: dict[str, int]  # validation ID -> time of its first tx


def l1_book(conn: Connection, now: int) -> L1Book:
    events: dict[str, list[l1_fees.Event]] = {}
    first: dict[str, int] = {}
    for vid, ts, tx_type, body in l1_reads.validation_txs(conn):
        events.setdefault(vid, []).append(l1_fees.events_of(vid, ts, tx_type, orjson.loads(body)))
        first.setdefault(vid, ts)
    replays = {vid: l1_fees.replay(e, now) for vid, e in events.items()}
    return L1Book(l1_reads.validations(conn), replays, first)


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


def _selected(book: L1Book, wanted: tuple[str | None, str | None, str | None], every: bool) -> Any:
    """(creation time, validation ID) of the validations the filters name, newest first."""
    out = []
    for row in book.validations:
        if any(w is not None and w != got for w, got in zip(wanted, row, strict=True)):
            continue
        v = row[0]
        if v in book.first_tx and (every or book.replays[v].deactivates_at is not None):
            out.append((book.first_tx[v], *row))
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
        now, span = p_chain_now(conn), queries.p_chain_span(conn)
        if now is None or span is None:
            return JsonResponse({"validators": [], "blockHeight": "0"})
        book = l1_book(conn, now)
        rows = _selected(book, wanted, every)
        if pg.after is not None:
            after = (int(pg.after[0]), str(pg.after[1]))
            rows = [r for r in rows if (r[0], r[1]) < after]
        served = rows[: pg.size]
        token = pg.token(served[-1][:2]) if len(rows) > pg.size else None
        out = _shaped(conn, book, served, span, now)
    body = {"validators": out, "blockHeight": str(span.head_height)}
    return JsonResponse(with_token(body, token))


def _shaped(
    conn: Connection, book: L1Book, served: list[Any], span: queries.Span, now: int
) -> list[dict[str, Any]]:
    ids = [r[1] for r in served]
    owners = queries.owners(conn, ids)
    # weight and BLS key: the creation's, then each weight change's
    weight: dict[str, int] = {}
    bls: dict[str, Any] = {}
    for r in tx_queries.l1_defining_txs(conn, ids):
        for d in orjson.loads(r.body).get("l1ValidatorDetails", ()):
            if d["validationId"] == r.validation_id and "weight" in d:
                weight[r.validation_id] = int(d["weight"])
                bls.setdefault(r.validation_id, d.get("blsCredentials"))
    paying = any(book.replays[v].deactivates_at is not None for v in ids)
    ends = l1_reads.reward_ends(conn) if paying else []
    out = []
    for created, vid, subnet, node in served:
        replay = book.replays[vid]
        runway = l1_fees.runway(replay, span.head_height, now, span.interval, ends)
        refund_owner, disable_owner = owners.get(vid, (None, None))
        out.append(
            {
                "validationId": vid,
                "validationIdHex": "0x" + cb58_decode(vid).hex(),
                "nodeId": node,
                "subnetId": subnet,
                "weight": weight.get(vid, 0),
                "remainingBalance": replay.balance,
                "creationTimestamp": created,
                "blsCredentials": bls.get(vid) or {},
                "remainingBalanceOwner": _owner(refund_owner),
                "deactivationOwner": _owner(disable_owner),
                "feeRatePerSecond": runway.fee_per_second,
                "predictedDeactivationTimestamp": runway.deactivation_timestamp,
                "predictedDeactivationHeight": runway.deactivation_height,
            }
        )
    return out
