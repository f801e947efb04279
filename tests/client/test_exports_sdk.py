"""The official SDK (@avalanche-sdk/chainkit 0.3.13) drives the transaction exports (the EVM body
on a synthetic EVM store, the primary-network bodies on codec-built P-chain blocks) against
our server with its export worker running: the SDK's schemas parse every answer, glacier.json's
schemas of the two operations accept them, the file at the download URL holds the synthetic
chain's own records, another key's request is the SDK's NotFoundError and bad input its
BadRequestError."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address
from avadata.exports.worker import ExportWorker
from avadata.indexer.primary.chain import index_chain
from avadata.settings import Settings
from avadata.store.engine import make_engine, make_reader_engine
from avadata.store.identity import record_primary_network
from avadata.store.keys import create_key
from avadata.store.migrate import migrate
from tests.api.synthetic import ALICE, CHAIN_ID, Chain, write_store
from tests.exports import truth
from tests.primary.test_index_api import _source
from tests.primary.test_ingest import A, _chain
from tests.support import glacier
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("exports.mjs")

pytestmark = [pytest.mark.client]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, str, str, Chain]]:
    url, chain = write_store(tmp_path / "sdk.db")
    for base, key, other in _worker_and_server(url):
        yield base, key, other, chain


def _worker_and_server(url: str) -> Iterator[tuple[str, str, str]]:
    writer = create_engine(url)
    key, _ = create_key(writer, "sdk", None)
    other, _ = create_key(writer, "other", None)
    writer.dispose()
    settings = Settings(
        db_url=url, page_token_secret="sdk-exports-secret-0123", export_batch_rows=5
    )
    settings = settings.model_copy(update={"export_poll_s": 0.05})
    worker = ExportWorker(make_reader_engine(url), make_engine(url), settings)
    worker.start()
    try:
        with serving(create_app(settings)) as base:
            yield base, key, other
    finally:
        worker.stop()


@pytest.fixture
def primary_server(tmp_path: Path) -> Iterator[tuple[str, str, str, list[str]]]:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = make_engine(url)
    migrate(engine)
    blocks, ids = _chain(30)
    asyncio.run(index_chain(engine, _source(blocks, []), "P", "P"))
    record_primary_network(engine, 5)  # Fuji's blocks (addresses fuji1...)
    engine.dispose()
    for base, key, other in _worker_and_server(url):
        yield base, key, other, ids


def test_primary_network_exports_through_the_sdk(primary_server) -> None:
    base, key, other, ids = primary_server
    args = {
        "toolsDir": str(TOOLS),
        "key": key,
        "otherKey": other,
        "primary": True,
        "primaryAddresses": ["P-" + bech32_address(A, "fuji")],
    }
    out, stderr = run_node(SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    assert out["theirGet"] == "NotFoundError"
    for kind, columns in (
        ("TRANSACTION_EXPORT_PRIMARY_NETWORK", 8),
        ("TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE", 7),
    ):
        made, done = out["primaryExports"][kind]["made"], out["primaryExports"][kind]["done"]
        glacier.check(made, "/v1/operations/transactions:export", method="post", status="201")
        glacier.check(done, "/v1/operations/{operationId}")
        assert made["operationType"] == kind and done["operationStatus"] == "COMPLETED", done
        got = httpx.get(done["metadata"]["downloadUrl"], headers={"x-glacier-api-key": key})
        rows = truth.csv_rows(got.text)
        assert len(rows[0]) == columns and [r[1] for r in rows[1:]] == ids  # A is in every tx


def test_export_and_result_through_the_sdk(server) -> None:
    base, key, other, chain = server
    args: dict[str, Any] = {
        "toolsDir": str(TOOLS),
        "key": key,
        "otherKey": other,
        "chainId": str(CHAIN_ID),
        "addresses": [ALICE],
        "firstDate": "2023-11-14",
        "lastDate": "2023-11-14",
        "unknown": "aa22054a-cb7c-4a4e-9b83-59f2ede74138",
    }
    out, stderr = run_node(SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    made, done = out["created"], out["done"]
    glacier.check(made, "/v1/operations/transactions:export", method="post", status="201")
    glacier.check(done, "/v1/operations/{operationId}")
    assert made["operationType"] == "TRANSACTION_EXPORT_EVM"
    assert made["operationStatus"] == "RUNNING" and "downloadUrl" not in made["metadata"]
    assert done["operationId"] == made["operationId"]
    assert done["operationStatus"] == "COMPLETED", done
    assert done["createdAtTimestamp"] == made["createdAtTimestamp"]
    assert out["theirGet"] == "NotFoundError" and out["unknown"] == "NotFoundError"
    assert out["badDate"] == "BadRequestError" and out["unknownChain"] == "BadRequestError"
    assert out["primary"] == "BadRequestError"
    url = done["metadata"]["downloadUrl"]
    assert url.startswith(base)
    assert httpx.get(url, headers={"x-glacier-api-key": other}).status_code == 404
    got = httpx.get(url, headers={"x-glacier-api-key": key})
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/csv")
    want = [truth.evm_row(t) for t in truth.selected(chain.txs, [ALICE])]
    assert truth.csv_rows(got.text) == [truth.HEADER, *truth.as_csv(want)]
    assert len(want) > 10
