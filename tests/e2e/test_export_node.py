"""Transaction exports of a seeded anvil chain, indexed by the real indexer, checked against
the node itself: every transaction of the chain (or of an address, or of a few days) is one
row, in chain order, each column equal to what eth_getBlockByNumber and eth_getBlockReceipts
say (CSV, and Parquet read back with pyarrow)."""

from __future__ import annotations

import asyncio
import io
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from avadata.api.app import create_app
from avadata.exports.worker import ExportWorker
from avadata.indexer.run import RunOptions, index_chains
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.keys import create_key
from avadata.store.migrate import migrate
from tests.api.http import TestClient
from tests.exports import truth
from tests.metrics.node_facts import Node

pytestmark = pytest.mark.e2e


def node_rows(url: str, chain_id: int) -> list[list[Any]]:
    """Every transaction as the export's columns (methodName aside: the node has no names),
    read from the node."""
    node = Node(url)
    try:
        head = int(node.call("eth_blockNumber"), 16)
        out = []
        for lo in range(0, head + 1, 50):
            numbers = list(range(lo, min(head, lo + 49) + 1))
            blocks = node.batch([("eth_getBlockByNumber", [hex(n), True]) for n in numbers])
            receipts = node.batch([("eth_getBlockReceipts", [hex(n)]) for n in numbers])
            for b, rs in zip(blocks, receipts, strict=True):
                for i, (t, r) in enumerate(zip(b["transactions"], rs, strict=True)):
                    data = t["input"]
                    out.append(
                        [
                            chain_id,
                            int(b["number"], 16),
                            int(b["timestamp"], 16),
                            b["hash"],
                            t["hash"],
                            i,
                            t["from"].lower(),
                            t["to"].lower() if t.get("to") else None,
                            int(t["value"], 16),
                            int(t["gas"], 16),
                            int(r["gasUsed"], 16),
                            int(r["effectiveGasPrice"], 16),
                            int(t["nonce"], 16),
                            int(t["type"], 16),
                            int(r["status"], 16),
                            data[:10] if t.get("to") and len(data) >= 10 else "",
                            None,  # methodName: compared apart
                            r["contractAddress"].lower() if r.get("contractAddress") else None,
                        ]
                    )
        return out
    finally:
        node.close()


_NAME = truth.HEADER.index("methodName")


def _without_names(rows: list[list[Any]]) -> list[list[Any]]:
    return [r[:_NAME] + r[_NAME + 1 :] for r in rows]


@pytest.fixture(scope="module")
def served(devnet_chain, tmp_path_factory) -> Iterator[tuple[TestClient, dict[str, str], Any]]:
    folder: Path = tmp_path_factory.mktemp("exports")
    db = f"sqlite:///{folder / 'x.db'}"
    engine = make_engine(db)
    migrate(engine)
    asyncio.run(
        index_chains(engine, [devnet_chain.rpc_url], RunOptions(once=True, chunk_blocks=50))
    )
    key, _ = create_key(engine, "exports", None)
    settings = Settings(db_url=db, data_dir=folder, export_batch_rows=500)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:

        def export(body: dict[str, Any]) -> bytes:
            r = c.post("/v1/operations/transactions:export", json=body, headers=headers)
            assert r.status_code == 201, r.text
            op = r.json()["operationId"]
            ExportWorker(engine, engine, settings).run(op)
            done = c.get(f"/v1/operations/{op}", headers=headers).json()
            assert done["operationStatus"] == "COMPLETED", done
            got = c.get(done["metadata"]["downloadUrl"], headers=headers)
            assert got.status_code == 200
            return got.content

        headers = {"x-glacier-api-key": key}
        yield c, headers, export
    engine.dispose()


def _body(chain_id: int, **over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "TRANSACTION_EXPORT_EVM",
        "options": {"addresses": [], "includeChains": [str(chain_id)]},
    }
    body.update(over)
    return body


def _csv(content: bytes) -> list[list[str]]:
    rows = truth.csv_rows(content.decode())
    assert rows[0] == truth.HEADER
    return rows[1:]


def test_the_whole_chain_is_the_nodes(devnet_chain, served) -> None:
    _, _, export = served
    want = node_rows(devnet_chain.rpc_url, devnet_chain.chain_id)
    rows = _csv(export(_body(devnet_chain.chain_id)))
    assert len(rows) == len(want) > 1000
    assert _without_names(rows) == _without_names(truth.as_csv(want))
    assert {r[_NAME] for r in rows if r[truth.HEADER.index("methodId")]} - {""}  # some named


def test_an_address_and_a_few_days_are_the_nodes(devnet_chain, served) -> None:
    _, _, export = served
    every = node_rows(devnet_chain.rpc_url, devnet_chain.chain_id)
    busiest = Counter(r[6] for r in every).most_common(1)[0][0]
    mine = [r for r in every if busiest in (r[6], r[7])]
    got = pq.read_table(
        io.BytesIO(
            export(
                _body(
                    devnet_chain.chain_id,
                    format="parquet",
                    options={"addresses": [busiest], "includeChains": [str(devnet_chain.chain_id)]},
                )
            )
        )
    ).to_pylist()
    assert len(got) == len(mine) > 10
    names = [{k: v for k, v in r.items() if k != "methodName"} for r in got]
    want = [{k: v for k, v in r.items() if k != "methodName"} for r in truth.as_parquet(mine)]
    assert names == want
    # A few whole days (UTC) in the middle of the chain's 45.
    days = sorted({datetime.fromtimestamp(r[2], UTC).date() for r in every})
    first, last = days[len(days) // 3], days[len(days) // 3 + 2]
    in_days = [r for r in every if first <= datetime.fromtimestamp(r[2], UTC).date() <= last]
    rows = _csv(
        export(_body(devnet_chain.chain_id, firstDate=first.isoformat(), lastDate=last.isoformat()))
    )
    assert 0 < len(rows) == len(in_days) < len(every)
    assert _without_names(rows) == _without_names(truth.as_csv(in_days))
