"""The Operations API over HTTP: an export's life (RUNNING, then COMPLETED with a download URL
once the worker ran), its file equal to the records the test wrote (EVM: the synthetic chain;
primary: codec-built P-chain blocks), each answer valid against glacier.json's schema of the
operation; another key's operation and file are 404s, a keyless request a 401; every bad body
or parameter a 400 in the seeds' shape naming the field."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from sqlalchemy import create_engine

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address
from avadata.exports.worker import ExportWorker
from avadata.indexer.primary.chain import index_chain
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.identity import record_primary_network
from avadata.store.keys import create_key
from avadata.store.migrate import migrate
from tests.api.http import TestClient
from tests.api.synthetic import ALICE, BLOCKCHAIN_ID, CHAIN_ID, ERC20
from tests.api.test_limits import _private_store
from tests.exports import truth
from tests.primary.test_index_api import _source
from tests.primary.test_ingest import A, _chain
from tests.support import glacier

EXPORT = "/v1/operations/transactions:export"
UNKNOWN = "aa22054a-cb7c-4a4e-9b83-59f2ede74138"
Keyed = tuple[TestClient, dict[str, str], dict[str, str], Settings]


def _serve(url: str, tmp_path: Path) -> Iterator[Keyed]:
    writer = create_engine(url)
    mine, _ = create_key(writer, "mine", None)
    theirs, _ = create_key(writer, "theirs", None)
    writer.dispose()
    settings = Settings(db_url=url, page_token_secret="exports-secret-0123", data_dir=tmp_path)
    settings = settings.model_copy(update={"export_batch_rows": 4})
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c, {"x-glacier-api-key": mine}, {"x-glacier-api-key": theirs}, settings


@pytest.fixture
def keyed(tmp_path: Path, store) -> Iterator[Keyed]:
    _db, url = _private_store(tmp_path, store[0])
    yield from _serve(url, tmp_path)


@pytest.fixture
def primary_keyed(tmp_path: Path) -> Iterator[tuple[Keyed, list[str]]]:
    url = f"sqlite:///{tmp_path / 'p.db'}"
    engine = make_engine(url)
    migrate(engine)
    blocks, ids = _chain(30)
    asyncio.run(index_chain(engine, _source(blocks, []), "P", "P"))
    record_primary_network(engine, 5)  # the blocks are Fuji's (addresses fuji1...)
    engine.dispose()
    for k in _serve(url, tmp_path):
        yield k, ids


def _run_worker(settings: Settings, operation_id: str) -> None:
    engine = make_engine(settings.db_url)
    try:
        ExportWorker(engine, engine, settings).run(operation_id)
    finally:
        engine.dispose()


def _created(c: TestClient, headers: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    r = c.post(EXPORT, json=body, headers=headers)
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    glacier.check(made, EXPORT, method="post", status="201", strict=False)
    assert made["operationStatus"] == "RUNNING" and made["operationType"] == body["type"]
    assert made["metadata"]["rowsWritten"] == 0 and "downloadUrl" not in made["metadata"]
    return made


def _completed(k: Keyed, body: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """Create, run the worker, read the operation and download its file."""
    c, mine, theirs, settings = k
    made = _created(c, mine, body)
    op = made["operationId"]
    _run_worker(settings, op)
    r = c.get(f"/v1/operations/{op}", headers=mine)
    assert r.status_code == 200, r.text
    done: dict[str, Any] = r.json()
    glacier.check(done, "/v1/operations/{operationId}", strict=False)
    assert done["operationStatus"] == "COMPLETED" and done["metadata"]["progressPercent"] == 100
    assert done["createdAtTimestamp"] == made["createdAtTimestamp"]
    assert done["updatedAtTimestamp"] >= made["updatedAtTimestamp"]
    url = done["metadata"]["downloadUrl"]
    assert url.endswith(f"/v1/operations/{op}/file")
    assert c.get(url, headers=theirs).status_code == 404
    assert c.get(f"/v1/operations/{op}", headers=theirs).status_code == 404
    got = c.get(url, headers=mine)
    assert got.status_code == 200, got.text
    return done, got.content


def _evm(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "TRANSACTION_EXPORT_EVM",
        "options": {"addresses": [], "includeChains": [str(CHAIN_ID)]},
    }
    body.update(over)
    return body


def test_a_chain_to_csv(keyed: Keyed, store) -> None:
    done, content = _completed(keyed, _evm())
    want = [truth.evm_row(t) for t in truth.selected(store[1].txs)]
    assert truth.csv_rows(content.decode()) == [truth.HEADER, *truth.as_csv(want)]
    assert done["metadata"]["rowsWritten"] == len(want) > 20


def test_a_chain_named_twice_is_exported_once(keyed: Keyed, store) -> None:
    opts = {"addresses": [], "includeChains": [str(CHAIN_ID), BLOCKCHAIN_ID]}
    _, content = _completed(keyed, _evm(options=opts))
    want = [truth.evm_row(t) for t in truth.selected(store[1].txs)]
    assert truth.csv_rows(content.decode()) == [truth.HEADER, *truth.as_csv(want)]


def test_addresses_and_a_block_range_to_parquet(keyed: Keyed, store) -> None:
    opts = {"addresses": [ALICE.upper().replace("0X", "0x"), ERC20], "includeChains": ["43112"]}
    body = _evm(options=opts, firstBlock=3, lastBlock=21, format="parquet")
    done, content = _completed(keyed, body)
    assert done["metadata"]["format"] == "parquet"
    want = [truth.evm_row(t) for t in truth.selected(store[1].txs, [ALICE, ERC20], 3, 21)]
    table = pq.read_table(io.BytesIO(content))
    assert table.column_names == truth.HEADER and table.to_pylist() == truth.as_parquet(want)


@pytest.mark.parametrize(
    ("dates", "blocks"),
    [
        ({"firstDate": "2023-11-14", "lastDate": "2023-11-14"}, (0, 29)),
        ({"startDate": "2023-11-01", "endDate": "2023-11-14"}, (0, 29)),
        ({"firstDate": "2023-11-15"}, (1, 0)),
        ({"lastDate": "2023-11-13"}, (1, 0)),
    ],
)
def test_a_date_range(keyed: Keyed, store, dates: dict[str, str], blocks: tuple[int, int]) -> None:
    # The synthetic chain's blocks are all of 2023-11-14 (UTC).
    done, content = _completed(keyed, _evm(**dates))
    want = [truth.evm_row(t) for t in truth.selected(store[1].txs, (), *blocks)]
    assert truth.csv_rows(content.decode()) == [truth.HEADER, *truth.as_csv(want)]


def test_an_operation_is_its_keys(keyed: Keyed) -> None:
    c, mine, theirs, _ = keyed
    op = _created(c, mine, _evm())["operationId"]
    assert c.get(f"/v1/operations/{op}", headers=mine).status_code == 200
    r = c.get(f"/v1/operations/{op}", headers=theirs)
    assert r.status_code == 404 and r.json()["statusCode"] == 404
    assert c.get(f"/v1/operations/{op}").status_code == 401
    assert c.post(EXPORT, json=_evm()).status_code == 401
    r = c.get(f"/v1/operations/{UNKNOWN}", headers=mine)
    assert r.status_code == 404 and "operationId" in r.json()["message"]
    # Not complete yet: no file.
    assert c.get(f"/v1/operations/{op}/file", headers=mine).status_code == 404


BAD: list[tuple[Any, str]] = [
    ([1], "body"),
    ({"options": {"addresses": [], "includeChains": ["43112"]}}, "type"),
    ({"type": "TRANSACTION_EXPORT_ALL", "options": {}}, "type"),
    (_evm(options={"includeChains": ["43112"]}), "options.addresses"),
    (_evm(options={"addresses": [], "includeChains": []}), "options.includeChains"),
    (_evm(options={"addresses": [], "includeChains": ["999"]}), "options.includeChains[0]"),
    (_evm(options={"addresses": ["0x12"], "includeChains": ["43112"]}), "options.addresses[0]"),
    (_evm(options={"addresses": [], "includeChains": "43112"}), "options.includeChains"),
    (_evm(firstDate="2023-13-01"), "firstDate"),
    (_evm(lastDate="yesterday"), "lastDate"),
    (_evm(startDate="2023-11-02", endDate="2023-11-01"), "startDate"),
    (_evm(firstBlock=-1), "firstBlock"),
    (_evm(firstBlock=5, lastBlock=4), "firstBlock"),
    (_evm(lastBlock="x"), "lastBlock"),
    (_evm(format="xlsx"), "format"),
    (
        _evm(options={"addresses": ["0x" + "a1" * 20] * 257, "includeChains": ["1"]}),
        "options.addresses",
    ),
]


@pytest.mark.parametrize(("body", "field"), BAD)
def test_bad_bodies_are_400s_naming_the_field(keyed: Keyed, body: Any, field: str) -> None:
    c, mine, _, _ = keyed
    r = c.post(EXPORT, json=body, headers=mine)
    assert r.status_code == 400, r.text
    err = r.json()
    assert set(err) == {"message", "error", "statusCode"} and err["statusCode"] == 400
    assert err["message"].startswith(field), err


def test_a_body_that_is_not_json_is_a_400_naming_the_body(keyed: Keyed) -> None:
    c, mine, _, _ = keyed
    r = c.post(EXPORT, content=b"{", headers={**mine, "content-type": "application/json"})
    assert r.status_code == 400 and r.json()["message"].startswith("body: must be valid JSON")


def test_a_malformed_operation_id_is_a_400(keyed: Keyed) -> None:
    c, mine, _, _ = keyed
    r = c.get("/v1/operations/not-a-uuid", headers=mine)
    assert r.status_code == 400 and "operationId" in r.json()["message"]


def _primary(kind: str = "TRANSACTION_EXPORT_PRIMARY_NETWORK", **options: Any) -> dict[str, Any]:
    return {"type": kind, "options": {"includeChains": ["p-chain"], **options}}


def test_the_p_chain_to_csv(primary_keyed) -> None:
    k, ids = primary_keyed
    p_chain = "11111111111111111111111111111111LpoYY"
    for body in (_primary(), _primary(addresses=["P-" + bech32_address(A, "fuji")])):
        _, content = _completed(k, body)
        rows = truth.csv_rows(content.decode())
        assert rows[0][:7] == [
            "blockchainId",
            "txHash",
            "txType",
            "blockNumber",
            "blockHash",
            "blockTimestamp",
            "txIndex",
        ]
        assert rows[0][7] == "details"
        assert [r[1] for r in rows[1:]] == ids  # A takes part in every one
        assert {r[0] for r in rows[1:]} == {p_chain} and {r[2] for r in rows[1:]} == {"BaseTx"}
        assert [int(r[5]) for r in rows[1:]] == [1_700_000_000 + i for i in range(30)]
    _, simple = _completed(k, _primary("TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE"))
    rows = truth.csv_rows(simple.decode())
    assert len(rows[0]) == 7 and [r[1] for r in rows[1:]] == ids
    _, staking = _completed(k, _primary("TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING"))
    assert len(truth.csv_rows(staking.decode())) == 1  # a header: no staking tx was made
    _, later = _completed(k, {**_primary(), "firstDate": "2023-11-15"})
    assert len(truth.csv_rows(later.decode())) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (_primary(includeChains=["q-chain"]), "options.includeChains[0]"),
        (_primary(addresses=["P-avax1nope"]), "options.addresses"),
        (_primary(cChainEvmAddresses=["0x12"]), "options.cChainEvmAddresses[0]"),
        ({**_primary(), "firstBlock": 1}, "firstBlock"),
        (
            {"type": "TRANSACTION_EXPORT_PRIMARY_NETWORK", "options": {"addresses": []}},
            "options.includeChains",
        ),
    ],
)
def test_bad_primary_bodies_are_400s(primary_keyed, body: dict[str, Any], field: str) -> None:
    (c, mine, _, _), _ids = primary_keyed
    r = c.post(EXPORT, json=body, headers=mine)
    assert r.status_code == 400, r.text
    assert r.json()["message"].startswith(field), r.json()
