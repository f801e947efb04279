"""FastRoute: the fast parameter path answers exactly what FastAPI's own handler answers."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote

import pytest
from fastapi import APIRouter, Query

from avadata.api import fastroute, health
from avadata.api.data import (
    address_txs,
    allchains,
    balances,
    blocks,
    chains,
    contracts,
    holdings,
    internals,
    nfts,
    transactions,
    tx_detail,
)
from avadata.api.data import transfers as transfer_routes
from avadata.api.fastroute import FastRoute
from tests.api.http import TestClient
from tests.api.routes import ADDRESS_ROUTES, LISTS, SINGLES, C
from tests.api.synthetic import ALICE

_EVM_ROUTERS = (
    blocks,
    transactions,
    transfer_routes,
    internals,
    balances,
    contracts,
    nfts,
    chains,
    address_txs,
    allchains,
    holdings,
    tx_detail,
    health,
)

# Values each parameter kind is tried with: well-formed ones (the fast path serves them) and
# every near miss that pydantic may read differently from a plain parser (FastAPI decides).
_INTS = [
    "1",
    "5",
    "05",
    "100",
    "101",
    "500",
    "501",
    "0",
    "-1",
    "+5",
    " 5",
    "5 ",
    "1_0",
    "5.0",
    "1e1",
    "",
    "x",
    "٣",
    "9" * 19,
    "9" * 30,
]
_BOOLS = ["true", "false", "True", "FALSE", "1", "0", "yes", "off", "t", "", "maybe"]
_STRS = [
    "",
    "usd",
    "eur",
    "USD",
    "xyz",
    "failed",
    "success",
    "Success",
    "7",
    "07",
    "7\n",
    "123456789012345678",
    "1234567890123456789",
    ALICE,
    ALICE.upper(),
    ALICE + "\n",
    f"{ALICE},{ALICE}",
]


def _queries() -> list[str]:
    out = []
    for param in ("pageSize", "startBlock", "endBlock"):
        out += [f"{param}={quote(v)}" for v in _INTS]
    out += [f"filterSpamTokens={quote(v)}" for v in _BOOLS]
    for param in (
        "currency",
        "status",
        "blockNumber",
        "contractAddress",
        "contractAddresses",
        "pageToken",
    ):
        out += [f"{param}={quote(v)}" for v in _STRS]
    out += ["pageSize=5&pageSize=7", "pageSize=500&pageSize=x", "startBlock=3&endBlock=2"]
    return out


def test_every_evm_route_is_fast() -> None:
    for module in _EVM_ROUTERS:
        assert module.router.routes
        for route in module.router.routes:
            assert isinstance(route, FastRoute), route


_PATHS = (
    [path for path, _, _ in LISTS]
    + SINGLES
    + [f"{p}0x{ALICE[2:].upper()}{s}" for p, s in ADDRESS_ROUTES]
    + [f"{p}0x12{s}" for p, s in ADDRESS_ROUTES[:2]]
    + [
        f"{C}/blocks/0x{'ab' * 32}/transactions",
        f"{C}/blocks/x/transactions",
        # Digits str.isdigit() takes and int() refuses; a hash with a newline after it.
        f"{C}/blocks/{quote('²')}/transactions",
        f"{C}/blocks/0x{'ab' * 32}{quote(chr(10))}/transactions",
        f"/v1/chains/{quote('²')}/blocks",
        "/v1/chains/999/blocks",
    ]
)


@pytest.mark.parametrize("path", _PATHS)
def test_fast_path_answers_what_fastapi_answers(
    client: TestClient, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast_values = fastroute._Plan.values
    served_fast = 0

    def counted(plan: Any, request: Any) -> dict[str, Any] | None:
        nonlocal served_fast
        values = fast_values(plan, request)
        served_fast += values is not None
        return values

    for query in ["", *_queries()]:
        url = f"{path}?{query}" if query else path
        monkeypatch.setattr(fastroute._Plan, "values", counted)
        fast = client.get(url)
        monkeypatch.setattr(fastroute._Plan, "values", lambda plan, request: None)
        slow = client.get(url)
        assert (fast.status_code, fast.content) == (slow.status_code, slow.content), url
        # Equal answers prove nothing when both are a 500 (the client does not raise them).
        assert fast.status_code < 500, url
    # A malformed address or block ID (its documented pattern) is FastAPI's to answer on
    # every request.
    malformed = ("/0x12/", "/blocks/x/", f"/blocks/{quote('²')}/", quote(chr(10)))
    assert served_fast > 0 or any(m in path for m in malformed)


@pytest.mark.parametrize(
    "annotation",
    [
        float,
        list[str],
        int | str,
        Annotated[str, Query(max_length=3)],
        Literal[1, 2],
        Annotated[str, Query(validation_alias="y")],
    ],
)
def test_parameters_without_a_fast_form_are_refused(annotation: Any) -> None:
    router = APIRouter(route_class=FastRoute)

    async def endpoint(x: annotation) -> None:  # type: ignore[valid-type]
        return None

    with pytest.raises(TypeError):
        router.get("/x")(endpoint)


def test_sync_endpoints_are_refused() -> None:
    router = APIRouter(route_class=FastRoute)

    def endpoint() -> None:
        return None

    with pytest.raises(TypeError):
        router.get("/x")(endpoint)
