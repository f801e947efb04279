"""The official TypeScript SDK (@avalanche-sdk/chainkit 0.3.13) against our running server:
every EVM endpoint, every page; every response must parse with the SDK's schemas."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from avadata.api.app import create_app
from avadata.settings import Settings
from tests.api.synthetic import ALICE, CAROL, CHAIN_ID, ERC20, ERC721, ERC1155, write_store
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("evm_endpoints.mjs")

pytestmark = [
    pytest.mark.client,
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    url, chain = write_store(tmp_path_factory.mktemp("sdk") / "store.db")
    prices = tmp_path_factory.mktemp("prices") / "prices.json"
    prices.write_text(
        json.dumps({str(CHAIN_ID): {"native": {"usd": 20.5, "eur": 19.0}, ERC20: {"eur": 1.25}}})
    )
    settings = Settings(db_url=url, page_token_secret="sdk-test-secret-0123", prices_file=prices)
    with serving(create_app(settings)) as base:
        yield base, chain


def test_every_evm_endpoint_parses_in_the_sdk(server: tuple[str, object]) -> None:
    base, chain = server
    block = chain.blocks[7]  # type: ignore[attr-defined]
    args = {
        "toolsDir": str(TOOLS),
        "chainId": str(CHAIN_ID),
        "address": ALICE,
        "token20": ERC20,
        "token721": ERC721,
        "token1155": ERC1155,
        "blockId": "7",
        "blockHash": block.hash,
        "txHash": next(t.hash for t in chain.txs if t.block_number == 21),  # type: ignore[attr-defined]
        "holder1155": CAROL,
        "created": chain.contracts[0].address,  # type: ignore[attr-defined]
        "tokenId721": "30",
        "tokenId1155": str(2**200),
    }
    result, stderr = run_node(SCRIPT, base, json.dumps(args))
    assert result["_returncode"] == 0 and result["ok"], json.dumps(result, indent=1) + stderr
    summary = result["summary"]
    # Paged routes really were followed across several pages.
    assert summary["blocks.listLatest"]["pages"] == 10
    assert summary["blocks.listLatest"]["items"] == 30
    assert summary["address.transactions.listErc20"]["pages"] > 1
    assert summary["nfts.list(721)"]["pages"] > 1
    assert summary["unknown chain"]["error"] == "NotFoundError"
    assert summary["unknown api key"]["error"] == "UnauthorizedError"
    # Issue 20's operations: every page followed, every body parsed.
    assert summary["address.transactions.list"]["pages"] > 1
    assert summary["transactions.listLatestAllChains"]["pages"] > 1
    assert summary["blocks.listLatestAllChains"]["items"] == 30
    assert summary["chains.listAllLatestBlocks"]["items"] == 30
    assert summary["address.balances.listErc1155"]["items"] >= 2
    assert summary["address.chains.list"]["items"] == 1
    assert summary["unknown tx"]["error"] == "NotFoundError"
