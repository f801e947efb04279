"""Chain identity through the official SDK: /v1/chains and /v2/chains filled from the stored
identity (blockchain ID, subnet, name, native token, explorer, network), `network=` filters,
`{chainId}` by CB58 blockchain ID, unknown chains by either ID a 404."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.records.identity import ChainIdentity, NativeToken
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.identity import write_identities
from tests.api.synthetic import BLOCKCHAIN_ID, CHAIN_ID, write_store
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("chains.mjs")
MAINNET_C = "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5"
SUBNET = "2bRCr6B4MiEfSjidDwxDpdCyviwnfUVqB2HGwhm947w9YYqb7r"
L1 = ChainIdentity(
    CHAIN_ID,
    network_id=5,
    blockchain_id=BLOCKCHAIN_ID,
    subnet_id=SUBNET,
    name="alpha",
    vm_name="EVM",
    token=NativeToken("Alpha Gas", "ALPHA", 18, "https://example.org/alpha.svg"),
    explorer_url="https://explorer.example/alpha",
)
IDENTITIES = [
    L1,
    ChainIdentity(43114, network_id=1, blockchain_id=MAINNET_C, name="C-Chain"),
    ChainIdentity(77777, network_id=12345, name="local-l1"),
]

pytestmark = [pytest.mark.client]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    url, _ = write_store(tmp_path_factory.mktemp("chains-sdk") / "store.db")
    engine = make_engine(url)
    write_identities(engine, IDENTITIES)
    engine.dispose()
    settings = Settings(db_url=url, page_token_secret="sdk-test-secret-0123")
    with serving(create_app(settings)) as base:
        args = {"toolsDir": str(TOOLS), "chainId": str(CHAIN_ID), "blockchainId": BLOCKCHAIN_ID}
        result, stderr = run_node(SCRIPT, base, json.dumps(args))
        assert result["_returncode"] == 0 and result["ok"], json.dumps(result)[:3000] + stderr
        assert not result["stray"], result["stray"]
        yield result


def test_data_api_listing_shows_each_chains_identity(served: dict[str, Any]) -> None:
    ids = {k: [c["chainId"] for c in v] for k, v in served["data"].items()}
    assert ids == {
        "all": [str(CHAIN_ID), "43114", "77777"],
        "mainnet": ["43114"],
        "fuji": [str(CHAIN_ID)],
        "testnet": [str(CHAIN_ID), "77777"],  # every network but mainnet
    }
    alpha = served["data"]["all"][0]
    assert alpha["platformChainId"] == BLOCKCHAIN_ID and alpha["subnetId"] == SUBNET
    assert (alpha["chainName"], alpha["vmName"], alpha["isTestnet"]) == ("alpha", "EVM", True)
    assert alpha["explorerUrl"] == L1.explorer_url
    assert alpha["networkToken"] == {
        "name": "Alpha Gas",
        "symbol": "ALPHA",
        "decimals": 18,
        "logoUri": "https://example.org/alpha.svg",
    }
    c_chain = served["data"]["mainnet"][0]
    assert c_chain["isTestnet"] is False and c_chain["networkToken"]["symbol"] == "AVAX"


def test_one_chain_by_either_id(served: dict[str, Any]) -> None:
    assert served["byChainId"] == served["byBlockchainId"] == served["data"]["all"][0]
    assert served["blocksByBlockchainId"]  # an EVM route answers to the blockchain ID
    assert set(served["errors"].values()) == {"NotFoundError"}


def test_metrics_listing(served: dict[str, Any]) -> None:
    by = {k: {c["evmChainId"]: c for c in v} for k, v in served["metrics"].items()}
    assert sorted(by["mainnet"]) == [43114]
    assert sorted(by["testnet"]) == [CHAIN_ID, 77777]
    assert sorted(by["fuji"]) == [CHAIN_ID]
    alpha = by["all"][CHAIN_ID]
    assert (alpha["blockchainId"], alpha["subnetId"], alpha["network"]) == (
        BLOCKCHAIN_ID,
        SUBNET,
        "testnet",
    )
    assert by["all"][77777]["blockchainId"] == ""  # no blockchain ID known: the SDK's ""
