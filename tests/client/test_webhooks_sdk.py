"""The official SDK (@avalanche-sdk/chainkit 0.3.13) drives all ten /v1/webhooks operations
against our server: every answer parses with the SDK's schemas, the webhook belongs to the key
that made it, and a bad destination is the SDK's BadRequestError."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address, cb58_encode
from avadata.networks import FUJI_ID
from avadata.settings import Settings
from avadata.store.identity import record_primary_network
from avadata.store.keys import create_key
from tests.api.synthetic import CHAIN_ID, write_store
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("webhooks.mjs")
PRIMARY_SCRIPT = Path(__file__).with_name("webhooks_primary.mjs")

pytestmark = [pytest.mark.client]

ADDRS = ["0x" + "a1" * 20, "0x" + "b2" * 20, "0x" + "c3" * 20]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    url, _chain = write_store(tmp_path / "sdk.db")
    writer = create_engine(url)
    key, _ = create_key(writer, "sdk", None)
    other, _ = create_key(writer, "other", None)
    record_primary_network(writer, FUJI_ID)  # the primary-network webhooks name it
    writer.dispose()
    settings = Settings(db_url=url, page_token_secret="sdk-webhooks-secret-0123")
    with serving(create_app(settings)) as base:
        yield base, key, other


def test_the_ten_operations_through_the_sdk(server) -> None:
    base, key, other = server
    args: dict[str, Any] = {
        "toolsDir": str(TOOLS),
        "key": key,
        "otherKey": other,
        "url": "http://127.0.0.1:9/hook",
        "chainId": str(CHAIN_ID),
        "addresses": ADDRS,
    }
    out, stderr = run_node(SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    made = out["created"]
    assert made["eventType"] == "address_activity" and made["status"] == "active"
    assert made["metadata"]["addresses"] == [ADDRS[0]] and made["includeLogs"] is True
    assert out["got"] == made
    assert out["updated"]["description"] == "from the sdk"
    assert out["updated"]["includeInternalTxs"] is True
    assert sorted(out["added"]["metadata"]["addresses"]) == ADDRS
    assert out["listedAddresses"] == ADDRS and out["totalAddresses"] == 3
    assert out["removed"]["metadata"]["addresses"] == ADDRS[1:]
    assert out["secret1"] == out["secret2"] and len(bytes.fromhex(out["secret1"])) == 32
    assert out["listed"] == [made["id"]]
    assert out["deactivated"]["status"] == "inactive"
    assert out["inactive"] == [made["id"]]
    assert out["theirList"] == [] and out["theirGet"] == "NotFoundError"
    assert out["badUrl"]["name"] == "BadRequestError"


def test_primary_network_webhooks_through_the_sdk(server) -> None:
    base, key, _other = server
    keys = ["P-" + bech32_address(bytes([i]) * 20, "fuji") for i in (1, 2)]
    node = "NodeID-" + cb58_encode(bytes([7]) * 20)
    args = {
        "toolsDir": str(TOOLS),
        "key": key,
        "url": "http://127.0.0.1:9/hook",
        "keys": keys,
        "nodeId": node,
    }
    out, stderr = run_node(PRIMARY_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    made = out["address"]
    assert made["eventType"] == "primary_network_address_activity"
    assert made["chainId"] == "p-chain" and made["metadata"]["keys"] == keys
    assert out["validator"]["metadata"]["keys"] == [node] and out["got"] == out["validator"]
    assert out["validator"]["metadata"]["nodeIds"] == [node]
    assert out["validator"]["metadata"]["l1ValidatorFeeBalanceThreshold"] == "1000"
    assert "subnetIds" not in out["validator"]["metadata"]  # not given: not answered
    assert out["listed"] == [
        [made["id"], "primary_network_address_activity"],
        [out["validator"]["id"], "validator_activity"],
    ]
