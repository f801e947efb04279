"""The X-chain txs of avalanchego's published Index API examples (indexer/service.md, in
/work/shared/vectors/index_api_examples.json), indexed in X-chain blocks and served by
getTxByHash: the IDs are avalanchego's, and the mainnet BaseTx's outputs are those of its
published avm.getTx JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.decode.codec import api, xchain
from avadata.indexer.primary.chain import index_chain
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.identity import record_primary_network
from avadata.store.migrate import migrate
from tests.api.http import TestClient
from tests.primary.test_index_api import _source
from tests.support.glacier_schema import conforms

EXAMPLES = Path("/work/shared/vectors/index_api_examples.json")


def _examples() -> tuple[dict[str, bytes], dict[str, Any]]:
    """(container ID -> tx bytes without the checksum, the published getTx JSON)."""
    responses = json.loads(EXAMPLES.read_text())["responses"]
    txs: dict[str, bytes] = {}
    get_tx: dict[str, Any] = {}
    for r in responses:
        result = r.get("result")
        if isinstance(result, dict) and "bytes" in result:
            txs[result["id"]] = bytes.fromhex(result["bytes"][2:])[:-4]
        elif isinstance(result, dict) and "tx" in result:
            get_tx = result["tx"]
    return txs, get_tx


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('examples') / 'x.db'}"
    engine = make_engine(url)
    migrate(engine)
    txs, _ = _examples()
    blocks = [
        api.encode_x_block(
            xchain.StandardBlock(
                bytes(32), i, 1_617_000_000 + i, bytes(32), (api.decode_x_tx(raw),)
            )
        )
        for i, raw in enumerate(txs.values())
    ]
    asyncio.run(index_chain(engine, _source(blocks, []), "X", "X"))
    record_primary_network(engine, 1)  # avalanchego's published mainnet txs
    settings = Settings(db_url=url, page_token_secret="examples-secret-0123")
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def test_the_published_txs_are_served_by_their_published_ids(client: TestClient) -> None:
    txs, get_tx = _examples()
    assert len(txs) == 2
    served = {}
    for tx_id in txs:
        r = client.get(f"/v1/networks/mainnet/blockchains/x-chain/transactions/{tx_id}")
        assert r.status_code == 200, r.text
        conforms(r.json(), "XChainLinearTransaction")
        assert r.json()["txHash"] == tx_id  # our ID of the bytes is avalanchego's
        served[tx_id] = r.json()
    # The mainnet BaseTx: its outputs as avalanchego's avm.getTx printed them.
    (base,) = [t for t in served.values() if t["txType"] == "BaseTx"]
    published = [
        (o["output"]["amount"], [a.removeprefix("X-") for a in o["output"]["addresses"]])
        for o in get_tx["unsignedTx"]["outputs"]
    ]
    mine = [(int(u["amount"]), u["addresses"]) for u in base["emittedUtxos"]]
    assert sorted(mine) == sorted(published)
