"""The official SDK (@avalanche-sdk/chainkit 0.3.13) drives the transaction exports against our
server with its export worker running: the SDK's schemas parse every answer, glacier.json's
schemas of the two operations accept them, the file at the download URL holds the synthetic
chain's own records, another key's request is the SDK's NotFoundError and bad input its
BadRequestError."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from avadata.api.app import create_app
from avadata.exports.worker import ExportWorker
from avadata.settings import Settings
from avadata.store.engine import make_engine, make_reader_engine
from avadata.store.keys import create_key
from tests.api.synthetic import ALICE, CHAIN_ID, Chain, write_store
from tests.exports import truth
from tests.support import glacier
from tests.support.server import TOOLS, run_node, serving

SCRIPT = Path(__file__).with_name("exports.mjs")

pytestmark = [pytest.mark.client]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, str, str, Chain]]:
    url, chain = write_store(tmp_path / "sdk.db")
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
            yield base, key, other, chain
    finally:
        worker.stop()


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
