"""Primary-network routes on a store ingested from codec-built P-chain blocks: values equal
what the test built (tx IDs, owners, spends), paging, and the seed's 400s."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from sqlalchemy import event

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address
from avadata.indexer.primary.chain import index_chain
from avadata.settings import Settings
from avadata.store.engine import make_engine, make_reader_engine
from avadata.store.identity import record_primary_network
from avadata.store.migrate import migrate
from tests.api.http import TestClient
from tests.primary.test_index_api import _source
from tests.primary.test_ingest import A, B, _chain

BASE = "/v1/networks/fuji/blockchains"
AVAX_FUJI = "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, list[str]]]:
    path: Path = tmp_path_factory.mktemp("primary") / "p.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    blocks, ids = _chain(30)
    asyncio.run(index_chain(engine, _source(blocks, []), "P", "P"))
    record_primary_network(engine, 5)  # the blocks are Fuji's (addresses fuji1...)
    settings = Settings(db_url=f"sqlite:///{path}", page_token_secret="test-secret-0123456789")
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c, ids


def _all(c: TestClient, url: str, key: str, **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    while True:
        params = dict(q, **({"pageToken": token} if token else {}))
        r = c.get(url, params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        out += body[key]
        token = body.get("nextPageToken")
        if token is None:
            return out


def test_transactions_of_address(built: tuple[TestClient, list[str]]) -> None:
    c, ids = built
    a = "P-" + bech32_address(A, "fuji")
    txs = _all(c, f"{BASE}/p-chain/transactions", "transactions", addresses=a, pageSize=4)
    assert [t["txHash"] for t in txs] == list(reversed(ids))  # received in even, spent in odd
    first = txs[-1]
    assert first["blockNumber"] == "0" and first["blockTimestamp"] == 1_700_000_000
    assert [u["consumingTxHash"] for u in first["emittedUtxos"]] == [ids[1]]
    asc = _all(c, f"{BASE}/p-chain/transactions", "transactions", addresses=a, sortOrder="asc")
    assert [t["txHash"] for t in asc] == ids
    every = _all(c, f"{BASE}/11111111111111111111111111111111LpoYY/transactions", "transactions")
    assert len(every) == 30


def test_utxos(built: tuple[TestClient, list[str]]) -> None:
    c, ids = built
    b = bech32_address(B, "fuji")
    unspent = _all(c, f"{BASE}/p-chain/utxos", "utxos", addresses=b)
    assert [u["txHash"] for u in unspent] == [ids[29]]
    assert unspent[0]["amount"] == str(1_000_000 - 29) and unspent[0]["addresses"] == [b]
    assert unspent[0]["createdOnChainId"] == "11111111111111111111111111111111LpoYY"
    spent = _all(c, f"{BASE}/p-chain/utxos", "utxos", addresses=b, includeSpent="true", pageSize=3)
    assert sorted(u["txHash"] for u in spent) == sorted(ids[1::2])


@pytest.mark.parametrize(
    ("path", "params", "named"),
    [
        ("p-chain/transactions", {"addresses": bech32_address(A, "avax")}, "addresses"),
        ("p-chain/transactions", {"addresses": bech32_address(A, "fuji")[:-1] + "q"}, "addresses"),
        ("p-chain/transactions", {"txTypes": "BaseTx"}, "txTypes"),
        ("p-chain/transactions", {"startTimestamp": "5"}, "startTimestamp"),
        ("q-chain/transactions", {}, "blockchainId"),
        ("p-chain/transactions", {"pageSize": "101"}, "pageSize"),
        ("p-chain/transactions", {"pageSize": "0"}, "pageSize"),
        (
            "x-chain/transactions:listStaking",
            {"addresses": bech32_address(A, "fuji")},
            "blockchainId",
        ),
        ("p-chain/utxos", {"addresses": bech32_address(A, "fuji"), "assetId": "x"}, "assetId"),
        ("x-chain/utxos", {"addresses": bech32_address(A, "fuji"), "assetId": "zzz"}, "assetId"),
        (
            "p-chain/transactions",
            {"addresses": bech32_address(A, "fuji"), "txTypes": "NoSuchTx"},
            "txTypes",
        ),
        ("p-chain/transactions", {"l1ValidationId": "x" * 5000}, "l1ValidationId"),
        (
            "p-chain/utxos",
            {"addresses": bech32_address(A, "fuji"), "minUtxoAmount": "-1"},
            "minUtxoAmount",
        ),
        *(
            (
                "p-chain/utxos",
                {"addresses": bech32_address(A, "fuji"), "minUtxoAmount": v},
                "minUtxoAmount",
            )
            for v in ("-0.5", "ten", "nan", "inf", "")
        ),
    ],
)
def test_bad_requests(
    built: tuple[TestClient, list[str]], path: str, params: dict[str, str], named: str
) -> None:
    c, _ = built
    r = c.get(f"{BASE}/{path}", params=params)
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["statusCode"] == 400 and body["error"] == "Bad Request"
    assert named in body["message"]
    if named == "addresses":
        assert params["addresses"] in body["message"]
    assert len(body["message"]) < 300  # a long bad value is quoted cut, not whole


@pytest.mark.parametrize("route", ["transactions", "utxos"])
def test_too_many_addresses(built: tuple[TestClient, list[str]], route: str) -> None:
    """More addresses than a page can merge is a 400 naming the parameter (at 501 SQLite's
    compound-SELECT limit made it a 500); the most allowed still answers."""
    from avadata.api.primary.params import MAX_ADDRESSES

    c, _ = built
    owners = [bech32_address(i.to_bytes(2, "big") * 10, "fuji") for i in range(MAX_ADDRESSES + 1)]
    url = f"{BASE}/p-chain/{route}"
    too_many = c.get(url, params={"addresses": ",".join(owners)})
    assert too_many.status_code == 400, too_many.text
    assert "addresses" in too_many.json()["message"]
    most = c.get(url, params={"addresses": ",".join(owners[:MAX_ADDRESSES])})
    assert most.status_code == 200, most.text


def test_bad_network(built: tuple[TestClient, list[str]]) -> None:
    c, _ = built
    r = c.get("/v1/networks/devnet/blockchains/p-chain/transactions")
    assert r.status_code == 400 and "network" in r.json()["message"]


@pytest.mark.parametrize("network", ["mainnet", "local", "network-1337"])
@pytest.mark.parametrize(
    "route", ["blockchains/p-chain/transactions", "validators/NodeID-111111111111111111116DBWJs"]
)
def test_another_network_is_not_served(
    built: tuple[TestClient, list[str]], network: str, route: str
) -> None:
    """The store holds Fuji's primary network: mainnet (or any other) is a 404 naming the
    parameter, never Fuji's rows relabelled."""
    c, _ = built
    r = c.get(f"/v1/networks/{network}/{route}")
    assert r.status_code == 404, r.text
    body = r.json()
    assert body["statusCode"] == 404 and body["message"].startswith("network:")
    assert "fuji" in body["message"]
    for same in ("fuji", "testnet", "5"):  # Fuji's names and ID all name the one indexed
        ok = c.get(f"/v1/networks/{same}/blockchains/p-chain/transactions")
        assert ok.status_code == 200, ok.text


def test_ids_and_addresses_round_trip_through_avalanchejs(
    built: tuple[TestClient, list[str]],
) -> None:
    import json
    import shutil
    import subprocess

    tools = Path(__file__).resolve().parents[2] / "tools"
    # A missing install (scripts/setup.sh) fails here rather than skipping the check.
    assert shutil.which("node") and (tools / "node_modules/@avalabs/avalanchejs").is_dir()
    c, _ = built
    a = "P-" + bech32_address(A, "fuji")
    txs = _all(c, f"{BASE}/p-chain/transactions", "transactions", addresses=a, pageSize=50)
    ids = [t["txHash"] for t in txs] + [
        u[k] for t in txs for u in t["emittedUtxos"] for k in ("utxoId", "createdOnChainId")
    ]
    addrs = [a] + [x for t in txs for u in t["emittedUtxos"] for x in u["addresses"]]
    run = subprocess.run(
        ["node", str(Path(__file__).with_name("roundtrip.cjs")), str(tools)],
        input=json.dumps({"ids": ids, "addresses": addrs}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    out = json.loads(run.stdout)
    assert out["ids"] == ids and set(out["idLengths"]) == {32}
    assert out["addresses"] == addrs


def test_utxo_threshold_shortens_pages(
    built: tuple[TestClient, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from avadata.api.primary import routes as primary_routes

    c, ids = built
    monkeypatch.setattr(primary_routes, "UTXO_THRESHOLD", 3)  # each tx: 1 emitted + 1 consumed
    a = bech32_address(A, "fuji")
    first = c.get(f"{BASE}/p-chain/transactions", params={"addresses": a, "pageSize": 10}).json()
    assert len(first["transactions"]) == 2 and "nextPageToken" in first
    txs = _all(c, f"{BASE}/p-chain/transactions", "transactions", addresses=a, pageSize=10)
    assert [t["txHash"] for t in txs] == list(reversed(ids))  # nothing lost or repeated


def test_utxos_by_amount(built: tuple[TestClient, list[str]]) -> None:
    c, _ = built
    a = bech32_address(A, "fuji")
    for order in ("asc", "desc"):
        got = _all(
            c,
            f"{BASE}/p-chain/utxos",
            "utxos",
            addresses=a,
            includeSpent="true",
            sortBy="amount",
            sortOrder=order,
            pageSize=4,
        )
        amounts = [int(u["amount"]) for u in got]
        # A received 1_000_000 - i in every even tx i (15 UTXOs).
        assert amounts == sorted((1_000_000 - i for i in range(0, 30, 2)), reverse=order == "desc")
    few = _all(
        c, f"{BASE}/p-chain/utxos", "utxos", addresses=a, includeSpent="true", minUtxoAmount=999_990
    )
    assert sorted(int(u["amount"]) for u in few) == [
        999_990,
        999_992,
        999_994,
        999_996,
        999_998,
        1_000_000,
    ]
    # minUtxoAmount is any number >= 0 (the spec's `number`): a fraction needs the next whole
    # amount, an exponent is read as written, beyond uint256 nothing reaches it.
    for spelled in ("999989.5", "9.9999e5", "999990.0"):
        got = _all(
            c,
            f"{BASE}/p-chain/utxos",
            "utxos",
            addresses=a,
            includeSpent="true",
            minUtxoAmount=spelled,
        )
        assert got == few, spelled
    for beyond in ("1e80", str(2**64), str(2**300)):
        r = c.get(f"{BASE}/p-chain/utxos", params={"addresses": a, "minUtxoAmount": beyond})
        assert r.status_code == 200 and r.json()["utxos"] == [], (beyond, r.text)


@pytest.mark.parametrize(
    "route,key",
    [("transactions", "transactions"), ("utxos", "utxos")],
)
@pytest.mark.parametrize("several", [False, True])
def test_one_address_pages_use_index_ranges(
    tmp_path_factory: pytest.TempPathFactory, route: str, key: str, several: bool
) -> None:
    """Page 2 of one address's txs (with the UTXOs each emitted and consumed) and UTXOs: no
    full scan of a primary table and no temp B-tree sort, whatever the store's size (SQLite's
    EXPLAIN QUERY PLAN of the statements the route actually ran). Several addresses: still no
    full scan; the only sort is of the union of each one's first page."""
    path: Path = tmp_path_factory.mktemp("plans") / "p.db"
    writer = make_engine(f"sqlite:///{path}")
    migrate(writer)
    blocks, _ = _chain(12)
    asyncio.run(index_chain(writer, _source(blocks, []), "P", "P"))
    record_primary_network(writer, 5)
    writer.dispose()
    engine = make_reader_engine(f"sqlite:///{path}")
    seen: list[tuple[str, Any]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _capture(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    settings = Settings(db_url=f"sqlite:///{path}", page_token_secret="plans-secret-0123")
    url = f"{BASE}/p-chain/{route}"
    owners = [A, B] if several else [A]
    params: dict[str, Any] = {
        "addresses": ",".join("P-" + bech32_address(o, "fuji") for o in owners),
        "pageSize": 2,
    }
    if route == "utxos":
        params["includeSpent"] = "true"  # all but the newest are spent
    with TestClient(create_app(settings, engine=engine)) as c:
        first = c.get(url, params=params).json()
        seen.clear()
        second = c.get(url, params={**params, "pageToken": first["nextPageToken"]}).json()
        assert second[key]
    with engine.connect() as conn:
        for sql, args in seen:
            plan = [str(r[3]) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, args)]
            for step in plan:
                assert several or "TEMP B-TREE" not in step, (sql, plan)
                assert not (step.startswith("SCAN ") and "primary_" in step), (sql, plan)
    engine.dispose()


def test_the_openapi_document_describes_every_primary_success_body(
    built: tuple[TestClient, list[str]],
) -> None:
    """Each primary route's 200 in /openapi.json is the reference's schema, and what the
    route answers validates against the document's own schema (a JSON Schema validator)."""
    c, ids = built
    doc = c.get("/openapi.json").json()
    a = "P-" + bech32_address(A, "fuji")
    asked = {
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions": [
            f"{BASE}/p-chain/transactions?addresses={a}",
            f"{BASE}/p-chain/transactions",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions:listStaking": [
            f"{BASE}/p-chain/transactions:listStaking?addresses={a}",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/utxos": [
            f"{BASE}/p-chain/utxos?addresses={a}&includeSpent=true",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/transactions/{txHash}": [
            f"{BASE}/p-chain/transactions/{ids[0]}",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}": [
            f"{BASE}/x-chain/assets/{AVAX_FUJI}",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/assets/{assetId}/transactions": [
            f"{BASE}/x-chain/assets/{AVAX_FUJI}/transactions",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/blocks": [f"{BASE}/p-chain/blocks"],
        "/v1/networks/{network}/blockchains/{blockchainId}/blocks/{blockId}": [
            f"{BASE}/p-chain/blocks/0",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/nodes/{nodeId}/blocks": [
            f"{BASE}/p-chain/nodes/NodeID-111111111111111111116DBWJs/blocks",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices": [f"{BASE}/x-chain/vertices"],
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices:listByHeight": [
            f"{BASE}/x-chain/vertices:listByHeight?vertexHeight=0",
        ],
        # This store holds no vertex (test_tx_shapes validates one against XChainVertex).
        "/v1/networks/{network}/blockchains/{blockchainId}/vertices/{vertexHash}": [],
        "/v1/networks/{network}/subnets": [f"{BASE.rpartition('/')[0]}/subnets"],
        "/v1/networks/{network}/blockchains": [BASE],
        # No subnet or chain in this store (test_tx_shapes validates them).
        "/v1/networks/{network}/subnets/{subnetId}": [],
        "/v1/networks/{network}/blockchains/{blockchainId}": [],
        "/v1/networks/{network}": ["/v1/networks/fuji"],
        "/v1/networks/{network}/validators/{nodeId}": [
            "/v1/networks/fuji/validators/NodeID-111111111111111111116DBWJs",
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/balances": [
            f"{BASE}/{chain}/balances?addresses={a}" for chain in ("p-chain", "x-chain", "c-chain")
        ],
        "/v1/networks/{network}/blockchains/{blockchainId}/lastActivityTimestampByAddresses": [
            f"{BASE}/p-chain/lastActivityTimestampByAddresses?addresses={a}",
        ],
        "/v1/networks/{network}/addresses:listChainIds": [
            f"{BASE.rpartition('/')[0]}/addresses:listChainIds?addresses={a}",
        ],
        # This store holds no staker (test_staking_lists validates every list's pages).
        "/v1/networks/{network}/validators": ["/v1/networks/fuji/validators"],
        "/v1/networks/{network}/delegators": ["/v1/networks/fuji/delegators"],
        "/v1/networks/{network}/l1Validators": ["/v1/networks/fuji/l1Validators"],
        "/v1/networks/{network}/rewards:listPending": [
            f"/v1/networks/fuji/rewards:listPending?addresses={a}",
        ],
        "/v1/networks/{network}/rewards": [f"/v1/networks/fuji/rewards?addresses={a}"],
    }
    primary = {p: ops for p, ops in doc["paths"].items() if p.startswith("/v1/networks/")}
    assert set(primary) == set(asked)
    for path, ops in primary.items():
        schema = ops["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        check = jsonschema_rs.Draft202012Validator({**schema, "components": doc["components"]})
        for url in asked[path]:
            r = c.get(url)
            assert r.status_code == 200, (url, r.text)
            errors = [f"{list(e.instance_path)}: {e.message}" for e in check.iter_errors(r.json())]
            assert not errors, (url, errors[:5])
