"""The three Helicon auto-renewed validator txs (type IDs 40-42, not in the reference's
PChainTransactionType) served in a P-chain page that the official SDK parses. The txs are
avalanchego's own (its fee-calculator test table, in /work/shared/vectors); their IDs and the
amounts checked are that file's (the IDs computed from the signed bytes, the amounts
avalanchejs decoded), not our codec's."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.decode.codec import api
from avadata.decode.codec.ids import bech32_address
from avadata.decode.codec.pchain_blocks import BanffStandardBlock
from avadata.indexer.primary.chain import index_chain
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.identity import record_primary_network
from avadata.store.migrate import migrate
from tests.api.http import TestClient
from tests.primary.test_index_api import _source
from tests.support.glacier_schema import conforms
from tests.support.server import TOOLS, run_node, serving

SDK_SCRIPT = Path(__file__).parents[1] / "client" / "primary.mjs"
VECTORS = Path("/work/shared/vectors/pchain_signed_txs.json")
TYPES = (
    "AddAutoRenewedValidatorTx",
    "SetAutoRenewedValidatorConfigTx",
    "RewardAutoRenewedValidatorTx",
)
TXS = "/v1/networks/fuji/blockchains/p-chain/transactions"


def _vectors() -> list[dict[str, Any]]:
    every = json.loads(VECTORS.read_text())["vectors"]
    return [next(v for v in every if v["tx_type"] == t) for t in TYPES]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path_factory.mktemp('renewed') / 'p.db'}"
    engine = make_engine(url)
    migrate(engine)
    blocks = [
        api.encode_p_block(
            BanffStandardBlock(
                time=1_720_000_000 + i,
                parent_id=bytes(32),
                height=i,
                transactions=(api.decode_p_tx(bytes.fromhex(v["hex"])),),
            )
        )
        for i, v in enumerate(_vectors())
    ]
    asyncio.run(index_chain(engine, _source(blocks, []), "P", "P"))
    record_primary_network(engine, 5)  # served as Fuji's (the route below names fuji)
    settings = Settings(db_url=url, page_token_secret="renewed-secret-0123")
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def test_auto_renewed_txs_are_served_as_unknown_with_their_amounts(client: TestClient) -> None:
    body = client.get(TXS, params={"pageSize": 10, "sortOrder": "asc"}).json()
    conforms(body, "ListPChainTransactionsResponse")
    txs = body["transactions"]
    vectors = _vectors()
    assert [t["txHash"] for t in txs] == [v["tx_id"] for v in vectors]
    assert [t["txType"] for t in txs] == ["UNKNOWN"] * 3
    add = vectors[0]["decoded"]["unsignedTx"]
    staked = sum(o["output"]["amount"] for o in add["stake"])
    unstaked = sum(o["output"]["amount"] for o in add["outputs"])
    assert [int(a["amount"]) for a in txs[0]["amountStaked"]] == [staked]
    assert [int(a["amount"]) for a in txs[0]["value"]] == [unstaked]
    assert [u["utxoType"] for u in txs[0]["emittedUtxos"]] == ["TRANSFER", "STAKE"]


def test_the_sdk_parses_a_page_holding_them(client: TestClient) -> None:
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "P-" + bech32_address(bytes(20), "fuji"),
        "blockchainId": "p-chain",
    }
    with serving(client.app) as base:
        out, stderr = run_node(SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    assert out["summary"]["transactions.listLatest(all)"]["items"] == 3
