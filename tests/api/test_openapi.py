"""The OpenAPI document matches what is served: schemathesis drives every operation from it
and checks that no answer is a 500 and every answer conforms to its documented schema."""

from __future__ import annotations

import random
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.api.http import TestClient
from tests.api.routes import LISTS
from tests.api.synthetic import ALICE, CHAIN_ID, ERC721, write_store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import schemathesis
    from schemathesis.checks import (
        content_type_conformance,
        not_a_server_error,
        response_schema_conformance,
        status_code_conformance,
    )

from avadata.api.app import create_app
from avadata.settings import Settings


def _app(tmp_dir):  # built at import: schemathesis parametrizes at collection time
    url, chain = write_store(tmp_dir / "openapi.db")
    return create_app(Settings(db_url=url, page_token_secret="openapi-secret-0123")), chain


_TMP = tempfile.TemporaryDirectory(prefix="avadata-openapi-")
APP, CHAIN = _app(Path(_TMP.name))
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
# The EVM Data API routes and the service operations (the metrics routes are tested by their
# own suite).
_EVM_PATHS = "|".join(
    (
        "^/v1/chains",
        "^/v2/chains/",
        "^/v1/address/",
        "^/v1/transactions$",
        "^/v1/blocks$",
        "^/v[12]/(health|live)-check$",
    )
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP).include(path_regex=_EVM_PATHS)
_rng = random.Random(1)


def test_documented_paths_are_the_served_ones() -> None:
    with TestClient(APP) as c:
        doc = c.get("/openapi.json").json()
        assert c.get("/docs").status_code == 200
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


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_schema_conformance(case) -> None:
    # Most cases use our chain and known addresses, so answers carry data, not just 404s.
    if "chainId" in (case.path_parameters or {}) and _rng.random() < 0.8:
        case.path_parameters["chainId"] = str(CHAIN_ID)
    if "address" in (case.path_parameters or {}) and _rng.random() < 0.5:
        case.path_parameters["address"] = _rng.choice([ALICE, ERC721])
    case.call_and_validate(
        checks=[
            not_a_server_error,
            response_schema_conformance,
            content_type_conformance,
            status_code_conformance,
        ]
    )


pytestmark = pytest.mark.filterwarnings("ignore")
