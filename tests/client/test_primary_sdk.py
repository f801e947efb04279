"""The official SDK (@avalanche-sdk/chainkit 0.3.13) pages through our primary-network
transactions and UTXO lists (P- and X-chain, store ingested from codec-built blocks); every response
must parse with the SDK's schemas."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.decode.codec import api, xchain
from avadata.decode.codec.components import (
    AvaxBaseTx,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from avadata.decode.codec.ids import bech32_address
from avadata.indexer.primary.chain import index_chain
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.identity import record_primary_network
from avadata.store.migrate import migrate
from tests.primary.test_index_api import _source
from tests.primary.test_ingest import AVAX, A, _chain
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("primary.mjs")

pytestmark = [
    pytest.mark.client,
]


def _x_blocks() -> list[bytes]:
    """Three X-chain StandardBlocks, one BaseTx each paying A."""
    out = []
    for i in range(3):
        base = AvaxBaseTx(
            network_id=5,
            blockchain_id=bytes(32),
            outputs=(TransferableOutput(AVAX, TransferOutput(5 + i, 0, 1, (A,))),),
            inputs=(TransferableInput(bytes([3 + i]) * 32, 0, AVAX, TransferInput(6 + i, (0,))),),
            memo=b"",
        )
        tx = xchain.XChainTx(unsigned=xchain.BaseTx(base=base), credentials=())
        block = xchain.StandardBlock(bytes(32), i, 1_700_000_000 + i, bytes(32), (tx,))
        out.append(api.encode_x_block(block))
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('sdkp') / 'p.db'}"
    engine = make_engine(url)
    migrate(engine)
    blocks, _ = _chain(30)
    asyncio.run(index_chain(engine, _source(blocks, []), "P", "P"))
    asyncio.run(index_chain(engine, _source(_x_blocks(), []), "X", "X"))
    record_primary_network(engine, 5)  # Fuji's blocks (fuji1... addresses)
    settings = Settings(db_url=url, page_token_secret="sdk-test-secret-0123")
    with serving(create_app(settings)) as base:
        yield base


def _run(server: str, args: dict[str, str]) -> dict[str, Any]:
    out, stderr = run_node(SCRIPT, server, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    return out


def test_x_chain_lists_parse_in_the_sdk(server: str) -> None:
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "X-" + bech32_address(A, "fuji"),
        "blockchainId": "x-chain",
    }
    out = _run(server, args)
    assert out["summary"]["transactions.listLatest"]["items"] == 3
    assert out["summary"]["utxos.listByAddresses"]["items"] == 3


def test_primary_lists_parse_in_the_sdk(server: str) -> None:
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "P-" + bech32_address(A, "fuji"),
        "blockchainId": "p-chain",
    }
    out = _run(server, args)
    assert out["summary"]["transactions.listLatest"]["pages"] == 8
    assert out["summary"]["transactions.listLatest"]["items"] == 30
    assert out["summary"]["utxos.listByAddresses"]["items"] == 15
