"""The OpenAPI document matches what is served: schemathesis drives every operation it lists
(the Data API, the Metrics API, the primary network, webhooks, health) on a small store of
real rows, and checks that no answer is a 500, every answer conforms to its documented
schema, every schema-valid request is accepted and every schema-invalid one refused.

What a schema cannot state is supplied to the schema-valid cases, never waived: the server's
own page tokens, valid checksums of CB58 and bech32 identifiers, the store's facts (its chains,
its network) and the rules across parameters (docs/compatibility.md, "The OpenAPI document and
the server agree"). The webhooks and exports a case creates stay in the throwaway store: no
delivery or export worker runs here (`avadata serve` hosts them), so nothing is sent or
written."""

from __future__ import annotations

import os
import random
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from hypothesis import HealthCheck, settings

from tests.api import openapi_store
from tests.api.http import TestClient
from tests.api.routes import LISTS
from tests.api.synthetic import ALICE, CHAIN_ID, ERC20, ERC721, ERC1155
from tests.primary.test_ingest import A

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import schemathesis
    from schemathesis.checks import (
        content_type_conformance,
        negative_data_rejection,
        not_a_server_error,
        positive_data_acceptance,
        response_schema_conformance,
        status_code_conformance,
    )

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address, cb58_encode
from avadata.metrics.catalog import METRICS
from avadata.networks import FUJI, MAINNET
from avadata.settings import Settings


def _app(tmp_dir: Path) -> tuple[FastAPI, openapi_store.Store]:
    # Built at import: schemathesis parametrizes at collection time.
    store = openapi_store.write(tmp_dir / "openapi.db")
    return create_app(Settings(db_url=store.url, page_token_secret="openapi-secret-0123")), store


_TMP = tempfile.TemporaryDirectory(prefix="avadata-openapi-")
APP, STORE = _app(Path(_TMP.name))
CHAIN = STORE.evm
# A path's parameters where ALICE is not the right kind of address, or another value is needed.
_CONCRETE = {
    "{txHash}": CHAIN.txs[0].hash,
    "{tokenId}": "30",
}
_ADDRESS_OF = {
    "/v1/chains/{chainId}/addresses/{address}": ERC721,
    "/v1/chains/{chainId}/contracts/{address}/transactions:getDeployment": CHAIN.contracts[
        0
    ].address,
    "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}": ERC721,
    "/v1/chains/{chainId}/nfts/collections/{address}/tokens/{tokenId}:reindex": ERC721,
}
# Every operation the document lists; the event stream's cases are bounded (_bounded_stream).
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
_rng = random.Random(1)


def test_documented_paths_are_the_served_ones() -> None:
    with TestClient(APP) as c:
        doc = c.get("/openapi.json").json()
        assert c.get("/docs").status_code == 200
        # A validation error is a 400 (errors.py): no operation lists FastAPI's 422.
        listed = [op["responses"] for ops in doc["paths"].values() for op in ops.values()]
        assert not [r for r in listed if "422" in r]
        assert "HTTPValidationError" not in doc["components"]["schemas"]
        documented = {p for p in doc["paths"] if p.startswith("/v1/chains")}
        assert len(documented) == 28
        for path in documented:
            concrete = (
                path.replace("{chainId}", str(CHAIN_ID))
                .replace("{address}", _ADDRESS_OF.get(path, ALICE))
                .replace("{blockId}", "7")
            )
            for name, value in _CONCRETE.items():
                concrete = concrete.replace(name, value)
            for method, op in doc["paths"][path].items():
                assert c.request(method, concrete).status_code in (200, 201), path
                assert {"400", "404", "429", "500"} <= set(op["responses"])
                assert {"200", "201"} & set(op["responses"]), path
    # Every route the tests exercise is documented.
    templated = {
        p.replace(str(CHAIN_ID), "{chainId}").replace(ALICE, "{address}") for p, _, _ in LISTS
    }
    for path in templated:
        normalized = path.replace("/blocks/7/", "/blocks/{blockId}/").replace(ERC721, "{address}")
        normalized = normalized.replace("0x" + "11" * 20, "{address}")
        assert normalized in documented, normalized


# Values of the store's own rows, by parameter name: most cases ask for these, so answers carry
# data (each is valid under the document's schema for that parameter).
_P_CHAIN = "11111111111111111111111111111111LpoYY"
_UNKNOWN_ID = cb58_encode(bytes(range(32)))  # well-formed, names nothing here
_NODE = "NodeID-111111111111111111116DBWJs"
_EVM_VALUES: dict[str, list[str]] = {
    "chainId": [str(CHAIN_ID)],
    "address": [ALICE, ERC721, ERC1155, ERC20],
    "txHash": [t.hash for t in CHAIN.txs[:5]],
    "blockId": ["7", "13", CHAIN.blocks[7].hash],
    "tokenId": ["30", "1"],
}
_PRIMARY_VALUES: dict[str, list[str]] = {
    "network": ["fuji"],
    "blockchainId": ["p-chain", "x-chain", "c-chain", _P_CHAIN],
    "blockId": ["0", "7"],
    "nodeId": [_NODE],
    "id": [openapi_store.WEBHOOK_ID],
    "chainId": [str(CHAIN_ID)],
}
# Identifiers with a checksum (CB58, bech32, node IDs): no schema can tell a valid one from a
# string of the same pattern, so a schema-valid case always gets a valid one (a known one or
# a well-formed unknown one), as it gets no page token.
_X_CHAINS = (MAINNET.x_chain_id, FUJI.x_chain_id)
_P_ADDRESSES = ["P-" + bech32_address(A, "fuji"), bech32_address(A, "fuji")]
_CHECKSUMMED: dict[str, list[str]] = {
    "txHash": [*STORE.p_tx_ids[:3], _UNKNOWN_ID],
    "assetId": ["U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK", _UNKNOWN_ID],
    "vertexHash": [_UNKNOWN_ID],
    "subnetId": [_P_CHAIN, _UNKNOWN_ID],
    "l1ValidationId": [_UNKNOWN_ID],
    "nodeId": [_NODE],
    "nodeIds": [_NODE],
    "addresses": _P_ADDRESSES,
    "rewardAddresses": _P_ADDRESSES,
}
# The chains of the store's network (the enums also list the other network's IDs).
_FUJI_CHAINS = ["p-chain", "x-chain", "c-chain", _P_CHAIN]


def _checksummed(case: Any) -> None:
    primary = case.path.startswith(("/v1/networks", "/v2/"))
    for where in (case.path_parameters, case.query):
        for name in list(where or {}):
            if name in _CHECKSUMMED and (primary or name != "txHash"):
                where[name] = _rng.choice(_CHECKSUMMED[name])
    block = (case.path_parameters or {}).get("blockId")
    if case.path.startswith("/v1/networks") and block and not block.isdigit():
        case.path_parameters["blockId"] = _rng.choice([*STORE.p_block_ids[:2], _UNKNOWN_ID])
    if case.path.endswith("/blockchains/{blockchainId}"):
        case.path_parameters["blockchainId"] = _UNKNOWN_ID
    if isinstance(case.body, dict) and isinstance(case.body.get("addresses"), str):
        case.body["addresses"] = _rng.choice(_P_ADDRESSES)


def _fits(case: Any, name: str, value: str) -> bool:
    """Whether `value` is in the enum the document gives this operation's `name`, if any."""
    for p in case.operation.definition.raw.get("parameters", []):
        if p["name"] == name and "enum" in p.get("schema", {}):
            return value in p["schema"]["enum"]
    return True


def _use_store_values(case: Any) -> None:
    evm = case.path.startswith(("/v1/chains", "/v2/chains", "/v1/address"))
    values = _EVM_VALUES if evm else _PRIMARY_VALUES
    for name in list(case.path_parameters or {}):
        fitting = [v for v in values.get(name, []) if _fits(case, name, v)]
        if fitting and _rng.random() < 0.8:
            case.path_parameters[name] = _rng.choice(fitting)
    if (case.query or {}).get("subnetId") is not None:
        case.query["subnetId"] = _P_CHAIN


def _swap(query: dict[str, Any], low: str, high: str, key: Any = None) -> None:
    """`low` not above `high` (compared as `key` reads them: a query's numbers may be text)."""
    if query.get(low) is None or query.get(high) is None:
        return
    read = key or (lambda v: v)
    if read(query[low]) > read(query[high]):
        query[low], query[high] = query[high], query[low]


def _webhook_body(body: dict[str, Any]) -> None:
    """A creation request's store facts: a chain and network indexed here, keys with valid
    checksums (of the network's HRP)."""
    kind = body.get("eventType")
    if kind == "address_activity":
        body["chainId"] = str(CHAIN_ID)  # a chain the store indexes
        return
    if _rng.random() < 0.8:
        body["network"] = "fuji"
    if kind == "primary_network_address_activity":
        body["chainId"] = _rng.choice(_FUJI_CHAINS)
    meta = body.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("keys"), list):
        known = {"nodeId": [_NODE], "subnetId": [_P_CHAIN]}.get(meta.get("keyType"), _P_ADDRESSES)
        meta["keys"] = [_rng.choice(known) for _ in meta["keys"]]


def _export_body(body: dict[str, Any]) -> None:
    """An export request's store facts (chains indexed here, addresses of its HRP) and order
    (the first day and block not after the last)."""
    options = body.get("options")
    if isinstance(options, dict):
        evm = body.get("type") == "TRANSACTION_EXPORT_EVM"
        chains = [str(CHAIN_ID)] if evm else _FUJI_CHAINS
        options["includeChains"] = [_rng.choice(chains) for _ in options["includeChains"]]
        if not evm:
            options["addresses"] = [_rng.choice(_P_ADDRESSES) for _ in options.get("addresses", ())]
    names = [k for k in ("firstDate", "startDate", "lastDate", "endDate") if body.get(k)]
    days = sorted(body[k] for k in names)
    for k in names:
        body[k] = days[0] if k in ("firstDate", "startDate") else days[-1]
    _swap(body, "firstBlock", "lastBlock")


_STREAM_SECONDS = 0.05


def _bounded_stream(case: Any) -> None:
    """An event stream stays open while its client listens, which is no bug: every case of it,
    positive or negative, ends within _STREAM_SECONDS (its maxSeconds, the route's own bound).
    A maxSeconds the document refuses is left as generated, for the server to refuse."""
    query = case.query if case.query is not None else {}
    value = query.get("maxSeconds")
    try:
        allowed = value is None or 0 < float(value) <= 86_400
    except (TypeError, ValueError):
        allowed = False
    if allowed:
        query["maxSeconds"] = _STREAM_SECONDS
    case.query = query


def _stream_filter(query: dict[str, Any]) -> None:
    """The stream's filter is a webhook of the key, or a chain of the store and its addresses
    (the parameters' descriptions): a schema-valid case names one."""
    if query.get("eventType") in ("primary_network_address_activity", "validator_activity"):
        # Their ad hoc filters (network, nodeIds, ...) are tests/delivery's; here the EVM one.
        query["eventType"] = "address_activity"
    if query.get("webhookId") is None and _rng.random() < 0.5:
        query["webhookId"] = openapi_store.WEBHOOK_ID
    if query.get("webhookId") is None or query.get("chainId") is not None:
        query["chainId"] = str(CHAIN_ID)
        # Undocumented in shape (EVM 0x or bech32, by event type): the EVM filter's own.
        query["addresses"] = ALICE


_REWARDS = ("listPendingPrimaryNetworkRewards", "listHistoricalPrimaryNetworkRewards")


def _across_parameters(case: Any) -> None:
    """Rules across parameters, which a parameter's schema cannot state (each is in the
    parameters' descriptions and docs/compatibility.md): a schema-valid case is made to keep
    them, and their 400s are tested by the routes' own tests."""
    query = case.query if case.query is not None else {}
    _swap(query, "startBlock", "endBlock")
    _swap(query, "startTimestamp", "endTimestamp")
    for bound in ("TimeRemaining", "FeePercentage", "UptimePerformance"):
        _swap(query, "min" + bound, "max" + bound, float)
    _swap(query, "minDelegationCapacity", "maxDelegationCapacity", int)
    operation = case.operation.definition.raw.get("operationId")
    if operation in _REWARDS and not query.get("addresses") and not query.get("nodeIds"):
        query["addresses"] = _rng.choice(_P_ADDRESSES)  # one of the two is required
    metric = METRICS.get((case.path_parameters or {}).get("metric", ""))
    if operation == "getEvmChainMetrics" and metric:
        allowed = [i.value for i in metric.intervals]
        if query.get("timeInterval") not in allowed:
            query["timeInterval"] = _rng.choice(allowed)
    chain = (case.path_parameters or {}).get("blockchainId")
    if chain is not None and case.path.startswith("/v1/networks"):
        if chain not in ("p-chain", _P_CHAIN) or query.get("addresses"):
            query.pop("l1ValidationId", None)
        if chain not in ("x-chain", *_X_CHAINS):
            query.pop("assetId", None)
        filtered = any(
            query.get(k) is not None for k in ("txTypes", "startTimestamp", "endTimestamp")
        )
        if filtered and not query.get("addresses") and not query.get("l1ValidationId"):
            query["addresses"] = _CHECKSUMMED["addresses"][0]
    if isinstance(case.body, dict) and operation == "createWebhook":
        _webhook_body(case.body)
    if isinstance(case.body, dict) and operation == "postTransactionExportJob":
        _export_body(case.body)
    if operation == "streamEvents":
        _stream_filter(query)
    case.query = query


# CI's run is bounded and repeatable; AVADATA_OPENAPI_EXAMPLES=N runs N random examples per
# operation instead (a deeper hunt, e.g. before a release).
_DEEP = int(os.environ.get("AVADATA_OPENAPI_EXAMPLES", "0"))


@schema.parametrize()
@settings(
    max_examples=_DEEP or 12,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=not _DEEP,
)
def test_schema_conformance(case: Any) -> None:
    """Every operation: no server error, every answer as documented, every schema-valid
    request accepted (positive data) and every schema-invalid one refused (negative data)."""
    if case.meta is not None and case.meta.generation.mode.is_positive:
        _use_store_values(case)
        _checksummed(case)
        _across_parameters(case)
        # A page token is opaque: only the server's own are valid, whatever its schema says.
        (case.query or {}).pop("pageToken", None)
    case.headers = {**(case.headers or {}), "x-glacier-api-key": STORE.api_key}
    if case.operation.definition.raw.get("operationId") == "streamEvents":
        _bounded_stream(case)
    case.call_and_validate(
        checks=[
            not_a_server_error,
            response_schema_conformance,
            content_type_conformance,
            status_code_conformance,
            positive_data_acceptance,
            negative_data_rejection,
        ]
    )


pytestmark = pytest.mark.filterwarnings("ignore")
