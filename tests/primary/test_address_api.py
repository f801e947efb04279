"""Balances, last activity, chain IDs, the UTXO list's POST form and the AVAX supply, on stores
(SQLite and PostgreSQL) the indexer filled from the devnet node, checked against the node's
own state: its platform.getUTXOs answer and the simulator's UTXO books, shared memory,
stakers, supply and L1 validator balances. Every body is checked against the reference's
JSON Schema for the operation, and the official SDK parses each one (tests/client)."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.api.app import create_app
from avadata.decode.codec import api
from avadata.decode.codec.components import LockOut
from avadata.decode.codec.ids import bech32_address, cb58_encode
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.devnet.primary import node as primary_node
from avadata.devnet.primary.network_ids import AVAX_ASSET_ID, C_CHAIN_ID, P_CHAIN_ID, X_CHAIN_ID
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import (
    GENESIS_SUPPLY,
    P_ALLOCATION,
    X_ALLOCATION,
    PrimarySim,
)
from avadata.devnet.primary.utxo_book import Coin
from avadata.indexer.primary.run import index_node
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from tests.api.http import TestClient
from tests.primary.test_tx_shapes import CONFIG, FakeAnvil, every_tx
from tests.support import pg_cluster as pgc
from tests.support.glacier_schema import conforms
from tests.support.primary_world import served_node
from tests.support.server import TOOLS, run_node, serving

BASE = "/v1/networks/fuji/blockchains/{}/"
SDK_SCRIPT = Path(__file__).parents[1] / "client" / "addresses.mjs"
BALANCE_SCHEMAS = {
    "p-chain": "ListPChainBalancesResponse",
    "x-chain": "ListXChainBalancesResponse",
    "c-chain": "ListCChainAtomicBalancesResponse",
}
IDS = {"p-chain": P_CHAIN_ID, "x-chain": X_CHAIN_ID, "c-chain": C_CHAIN_ID}
SECRET = "test-secret-0123456789"


@dataclass
class Node:
    sim: PrimarySim
    url: str


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    folder: Path = tmp_path_factory.mktemp("address-api")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(primary_node, "Rpc", FakeAnvil)
        options = NodeOptions(CONFIG, data_dir=folder, c_rpc_url="fake", live_interval=None)
        started = PrimaryNode(options)
        started.start()
    with served_node(started) as url:
        yield Node(started.sim, url)


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def db_url(
    request: pytest.FixtureRequest, node: Node, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('address-api-db') / 'store.db'}"
        cluster = None
    else:
        cluster = pgc.PgCluster().start()
        url = cluster.url(cluster.create_database("avadata_addresses"))
    try:
        engine = make_engine(url)
        migrate(engine)
        asyncio.run(index_node(engine, node.url, once=True))
        engine.dispose()
        yield url
    finally:
        if cluster is not None:
            cluster.stop()


@pytest.fixture(scope="module")
def client(db_url: str) -> Iterator[TestClient]:
    settings = Settings(db_url=db_url, page_token_secret=SECRET)
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def fuji(address: bytes) -> str:
    return bech32_address(address, "fuji")


def node_utxos(url: str, address: str) -> list[Any]:
    """The node's own answer: platform.getUTXOs, every page, decoded."""
    out, start = [], None
    while True:
        params: dict[str, Any] = {"addresses": ["P-" + address], "limit": 100}
        if start:
            params["startIndex"] = start
        body = {"jsonrpc": "2.0", "id": 1, "method": "platform.getUTXOs", "params": params}
        reply = httpx.post(url + "/ext/bc/P", json=body, timeout=30).json()["result"]
        raw = [bytes.fromhex(h[2:])[:-4] for h in reply["utxos"]]
        out += [api.decode_utxo(b, PCHAIN_TABLE) for b in raw]
        if int(reply["numFetched"]) < 100:
            return out
        start = reply["endIndex"]


def _sums(items: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """(asset, shared chain) -> (amount, UTXO count) of one balance class as served."""
    return {
        (i["assetId"], i.get("sharedWithChainId", "")): (int(i["amount"]), int(i["utxoCount"]))
        for i in items
    }


class Expected:
    """What a class should hold, built from the node's side."""

    def __init__(self) -> None:
        self.by_class: dict[str, dict[tuple[str, str], list[int]]] = defaultdict(
            lambda: defaultdict(lambda: [0, 0])
        )

    def add(self, cls: str, asset: bytes, amount: int, shared: bytes | None = None) -> None:
        entry = self.by_class[cls][(cb58_encode(asset), cb58_encode(shared) if shared else "")]
        entry[0] += amount
        entry[1] += 1

    def of(self, cls: str) -> dict[tuple[str, str], tuple[int, int]]:
        return {k: (v[0], v[1]) for k, v in self.by_class[cls].items()}


def _locks(output: Any, now: int) -> tuple[bool, bool]:
    """(under a stakeable lock, under a platform locktime) of an output at `now`."""
    stakeable = isinstance(output, LockOut) and output.locktime > now
    inner = output.output if isinstance(output, LockOut) else output
    return stakeable, int(getattr(inner, "locktime", 0)) > now


def _atomic(
    sim: PrimarySim, want: Expected, destination: bytes, owners: set[bytes], now: int
) -> None:
    coins = {c.utxo_id: c for o in owners for c in sim.shared.book(destination).owned(o)}
    for coin in coins.values():
        locked = _locks(coin.output, now)[1]
        cls = "atomicMemoryLocked" if locked else "atomicMemoryUnlocked"
        want.add(cls, coin.asset, coin.amount, sim.shared.source[coin.utxo_id])


def expected_p(node: Node, owners: set[bytes], now: int) -> Expected:
    """The P-chain classes from the node's getUTXOs (less the genesis UTXOs no index holds),
    its current stakers' stake outputs and its shared memory; a UTXO of several owners once."""
    want = Expected()
    found = {(u.tx_id, u.output_index): u for o in owners for u in node_utxos(node.url, fuji(o))}
    for u in found.values():
        if u.tx_id == node.sim.p.genesis_tx:
            continue
        stakeable, platform = _locks(u.output, now)
        cls = "lockedPlatform" if platform else "lockedStakeable" if stakeable else None
        amount = Coin(u.tx_id, 0, u.asset_id, u.output).amount
        want.add(cls or "unlockedUnstaked", u.asset_id, amount)
    for s in node.sim.p.state.stakers.values():
        for out in s.stake if s.kind in ("validator", "delegator") else ():
            coin = Coin(s.tx_id, 0, out.asset_id, out.output)
            if not owners.intersection(coin.owners):
                continue
            if s.start > now:
                cls = "pendingStaked"
            else:
                cls = "lockedStaked" if _locks(out.output, now)[0] else "unlockedStaked"
            want.add(cls, out.asset_id, coin.amount)
    _atomic(node.sim, want, P_CHAIN_ID, owners, now)
    return want


def expected_x(sim: PrimarySim, owner: bytes, now: int) -> Expected:
    want = Expected()
    for coin in sim.x.utxos.owned(owner):
        if coin.tx_id == AVAX_ASSET_ID:  # the X genesis (its CreateAssetTx's ID is AVAX's)
            continue
        want.add("locked" if _locks(coin.output, now)[1] else "unlocked", coin.asset, coin.amount)
    _atomic(sim, want, X_CHAIN_ID, {owner}, now)
    return want


def expected_c(sim: PrimarySim, owner: bytes, now: int) -> Expected:
    want = Expected()
    _atomic(sim, want, C_CHAIN_ID, {owner}, now)
    return want


def get(c: TestClient, path: str, **params: Any) -> Any:
    r = c.get(path, params=params)
    assert r.status_code == 200, r.text
    return r.json()


def test_balances_equal_the_nodes_utxos_stakes_and_shared_memory(
    client: TestClient, node: Node
) -> None:
    sim = node.sim
    now = sim.p.state.time
    seen: set[str] = set()
    for user in sim.keys.users:
        address = fuji(user.address)
        for chain, want in (
            ("p-chain", expected_p(node, {user.address}, now)),
            ("x-chain", expected_x(sim, user.address, now)),
            ("c-chain", expected_c(sim, user.address, now)),
        ):
            body = get(client, BASE.format(chain) + "balances", addresses=address)
            conforms(body, BALANCE_SCHEMAS[chain])
            assert body["chainInfo"] == {"chainName": chain, "network": "fuji"}
            for cls, items in body["balances"].items():
                assert _sums(items) == want.of(cls), (chain, cls, address)
                if items:
                    seen.add(f"{chain}:{cls}")
    # The history exercises the classes that matter: spendable, staked, X assets, atomic.
    assert {"p-chain:unlockedUnstaked", "p-chain:unlockedStaked", "x-chain:unlocked"} <= seen
    assert any(s.endswith("atomicMemoryUnlocked") for s in seen), seen


def test_balances_of_several_addresses_count_each_utxo_once(client: TestClient, node: Node) -> None:
    owners = {u.address for u in node.sim.keys.users[:3]}
    want = expected_p(node, owners, node.sim.p.state.time)
    given = ",".join(fuji(o) for o in sorted(owners))
    body = get(client, BASE.format("p-chain") + "balances", addresses=given)
    for cls, items in body["balances"].items():
        assert _sums(items) == want.of(cls), cls


def test_balance_at_a_past_time_replays_the_utxos(client: TestClient, node: Node) -> None:
    """blockTimestamp: the UTXOs created by then and not consumed by then, recomputed here from
    the UTXO list (spent ones included) of the same addresses."""
    address = fuji(node.sim.keys.users[0].address)
    utxos: list[dict[str, Any]] = []
    token = None
    while True:
        q: dict[str, Any] = {"addresses": address, "includeSpent": "true", "pageSize": 100}
        if token:
            q["pageToken"] = token
        page = get(client, BASE.format("x-chain") + "utxos", **q)
        utxos += page["utxos"]
        token = page.get("nextPageToken")
        if token is None:
            break
    times = sorted({int(u["blockTimestamp"]) for u in utxos})
    for at in times[:: max(1, len(times) // 5)]:
        want: dict[str, int] = defaultdict(int)
        for u in utxos:
            spent = u.get("consumingBlockTimestamp")
            if int(u["blockTimestamp"]) <= at and (spent is None or int(spent) > at):
                want[u["assetId"]] += int(u["amount"])
        body = get(
            client, BASE.format("x-chain") + "balances", addresses=address, blockTimestamp=at
        )
        conforms(body, "ListXChainBalancesResponse")
        got: dict[str, int] = defaultdict(int)
        for item in body["balances"]["locked"] + body["balances"]["unlocked"]:
            got[item["assetId"]] += int(item["amount"])
        assert {a: v for a, v in got.items() if v} == {a: v for a, v in want.items() if v}, at


def test_last_activity_is_the_newest_tx_of_the_addresses(client: TestClient, node: Node) -> None:
    records = {r.tx_id: r for r in node.sim.records}
    for user in node.sim.keys.users[:4]:
        address = fuji(user.address)
        for chain in ("p-chain", "x-chain", "c-chain"):
            txs = every_tx(client, chain, addresses=address)
            path = BASE.format(chain) + "lastActivityTimestampByAddresses"
            r = client.get(path, params={"addresses": address})
            if not txs:
                assert r.status_code == 404, r.text
                continue
            body = r.json()
            conforms(body, "LastActivityTimestamp")
            newest = txs[0]
            assert body["txHash"] == newest["txHash"]
            assert body["timestamp"] == newest["blockTimestamp"] == records[newest["txHash"]].time
            assert body["blockNumber"] == newest["blockNumber"]
            assert body["chainName"] == chain and body["network"] == "fuji"
            moved = newest["consumedUtxos"] if body["isConsumed"] else newest["emittedUtxos"]
            assert body["utxoId"] in {u["utxoId"] for u in moved}
            posted = client.post(path, json={"addresses": address})
            assert posted.status_code == 200 and posted.json() == body


def test_chain_ids_name_the_chains_with_a_tx_of_the_address(client: TestClient, node: Node) -> None:
    users = [fuji(u.address) for u in node.sim.keys.users]
    given = ",".join(["P-" + users[0], *users[1:]])
    body = get(client, "/v1/networks/fuji/addresses:listChainIds", addresses=given)
    conforms(body, "ChainAddressChainIdMapListResponse")
    assert [a["address"] for a in body["addresses"]] == given.split(",")
    for entry, address in zip(body["addresses"], users, strict=True):
        want = [
            cb58_encode(IDS[chain])
            for chain in ("p-chain", "x-chain", "c-chain")
            if every_tx(client, chain, addresses=address)
        ]
        assert entry["blockchainIds"] == want
    assert any(len(e["blockchainIds"]) == 3 for e in body["addresses"])


def test_utxos_v2_pages_as_the_get_form_does(client: TestClient, node: Node) -> None:
    addresses = ",".join(fuji(u.address) for u in node.sim.keys.users[:3])
    for chain in ("p-chain", "x-chain"):
        path = BASE.format(chain) + "utxos"
        got, token = [], None
        while True:
            q: dict[str, Any] = {"pageSize": 7, "includeSpent": "true"}
            if token:
                q["pageToken"] = token
            r = client.post(path, params=q, json={"addresses": addresses})
            assert r.status_code == 200, r.text
            conforms(
                r.json(), "ListPChainUtxosResponse" if chain == "p-chain" else "ListUtxosResponse"
            )
            got += r.json()["utxos"]
            token = r.json().get("nextPageToken")
            if token is None:
                break
        whole = get(client, path, addresses=addresses, includeSpent="true", pageSize=100)
        assert "nextPageToken" not in whole
        assert got == whole["utxos"] and got
    big = client.post(
        BASE.format("p-chain") + "utxos", params={"pageSize": 1024}, json={"addresses": addresses}
    )
    assert big.status_code == 200


def test_supply_adds_up_against_the_node(client: TestClient, node: Node) -> None:
    state = node.sim.p.state
    body = get(client, "/v1/avax/supply")
    conforms(body, "AvaxSupplyResponse")
    nano = {k: int(Decimal(v) * 10**9) for k, v in body.items() if k != "lastUpdated"}
    assert nano["genesisUnlock"] + nano["totalRewards"] == state.supply
    assert nano["genesisUnlock"] == GENESIS_SUPPLY
    # L1 validator fees: what the txs put into L1 balances (the listings' own
    # amountL1ValidatorBalanceBurned) minus what the node's validators hold and refunded.
    deposits = sum(
        int(a["amount"])
        for tx in every_tx(client, "p-chain")
        for a in tx.get("amountL1ValidatorBalanceBurned", [])
    )
    held = sum(v.remaining(state.time) for v in state.l1_validators.values())
    refunded = sum(amount for _, amount, _ in state.refunds.values())
    l1_fees = deposits - held - refunded
    assert l1_fees > 0
    assert nano["l1ValidatorFees"] == l1_fees
    # Every nAVAX of the genesis allocations and of the rewards paid is somewhere in the
    # node's state, or burned: the three burns (the P-chain's with the L1 fees) add up to
    # what is missing.
    sim = node.sim
    users = len(sim.keys.users)
    minted = (P_ALLOCATION + X_ALLOCATION) * users
    minted += sum(a for paid in state.reward_utxos.values() for _, a, _ in paid)
    books = [sim.p.utxos, sim.x.utxos, *sim.shared.books.values()]
    held_utxos = sum(c.amount for book in books for c in book if c.asset == AVAX_ASSET_ID)
    staked = sum(s.weight for s in state.stakers.values() if s.kind != "subnet_validator")
    missing = minted - held_utxos - staked - sum(sim.c.balances.values()) - held
    burns = nano["totalPBurned"] + nano["totalXBurned"] + nano["totalCBurned"]
    assert burns == missing
    assert min(nano["totalPBurned"] - l1_fees, nano["totalXBurned"], nano["totalCBurned"]) > 0
    assert nano["totalSupply"] == nano["circulatingSupply"] == state.supply - burns
    active = [
        s
        for s in state.stakers.values()
        if s.kind in ("validator", "delegator") and s.start <= state.time
    ]
    assert nano["totalStaked"] == sum(s.weight for s in active)
    locked = sum(
        c.amount
        for book in books
        for c in book
        if c.asset == AVAX_ASSET_ID and any(_locks(c.output, state.time))
    )
    assert nano["totalLocked"] == locked
    assert body["lastUpdated"].endswith("Z")


def test_bad_input_is_a_400_naming_the_parameter(client: TestClient, node: Node) -> None:
    good = fuji(node.sim.keys.users[0].address)
    cases = [
        ("get", BASE.format("p-chain") + "balances", {"addresses": "fuji1bad"}, None, "addresses"),
        ("get", BASE.format("p-chain") + "balances", {}, None, "addresses"),
        (
            "get",
            BASE.format("p-chain") + "balances",
            {"addresses": good, "blockTimestamp": "x"},
            None,
            "blockTimestamp",
        ),
        ("get", BASE.format("q-chain") + "balances", {"addresses": good}, None, "blockchainId"),
        (
            "get",
            BASE.format("p-chain") + "lastActivityTimestampByAddresses",
            {"addresses": "avax1" + good[5:]},
            None,
            "addresses",
        ),
        ("post", BASE.format("p-chain") + "lastActivityTimestampByAddresses", {}, {}, "addresses"),
        (
            "post",
            BASE.format("p-chain") + "utxos",
            {"pageSize": 1025},
            {"addresses": good},
            "pageSize",
        ),
        ("post", BASE.format("p-chain") + "utxos", {}, {"addresses": 5}, "addresses"),
        ("get", "/v1/networks/fuji/addresses:listChainIds", {}, None, "addresses"),
        (
            "get",
            "/v1/networks/fuji/addresses:listChainIds",
            {"addresses": good[:-1] + "q"},
            None,
            "addresses",
        ),
    ]
    for verb, path, params, body, name in cases:
        if verb == "get":
            r = client.get(path, params=params)
        else:
            r = client.post(path, params=params, json=body)
        assert r.status_code == 400, (path, params, r.text)
        assert r.json()["message"].startswith(name) or name in r.json()["message"], r.text
    # An address without any tx has no last activity: 404; a network not indexed: 404.
    fresh = bech32_address(bytes(20), "fuji")
    r = client.get(
        BASE.format("p-chain") + "lastActivityTimestampByAddresses", params={"addresses": fresh}
    )
    assert r.status_code == 404
    r = client.get("/v1/networks/mainnet/blockchains/p-chain/balances", params={"addresses": good})
    assert r.status_code == 404


def test_the_sdk_parses_every_answer(db_url: str, node: Node) -> None:
    users = [fuji(u.address) for u in node.sim.keys.users[:2]]
    settings = Settings(db_url=db_url, page_token_secret=SECRET)
    args = {
        "toolsDir": str(TOOLS),
        "addresses": {
            "p-chain": ",".join("P-" + a for a in users),
            "x-chain": ",".join("X-" + a for a in users),
            "c-chain": ",".join(users),
        },
    }
    with serving(create_app(settings)) as base:
        out, stderr = run_node(SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    # What the SDK parsed is what the API served (the SDK keeps the union branch it took).
    assert set(out["balances"]["p-chain"]["balances"]) >= {"unlockedUnstaked", "pendingStaked"}
    assert set(out["balances"]["x-chain"]["balances"]) == {
        "locked",
        "unlocked",
        "atomicMemoryUnlocked",
        "atomicMemoryLocked",
    }
    assert out["lastActivity"] == out["lastActivityV2"]
    assert out["utxosV2"]["p-chain"]["pages"] > 1
    assert len(out["chainIds"]["addresses"]) == 2
    assert Decimal(out["supply"]["totalSupply"]) > 0


def test_the_reads_follow_the_addresses_keys_not_the_utxo_set(tmp_path: Path) -> None:
    """SQLite's plans (no statistics, as a store has): every read starts from an address's
    links, a primary key or a partial index, never from a scan of the UTXOs or their
    consuming_tx_hash index (every unspent UTXO)."""
    from sqlalchemy import event

    from avadata.store.primary.queries import addresses as queries
    from avadata.store.primary.queries import supply as supply_queries

    engine = make_engine(f"sqlite:///{tmp_path / 'plans.db'}")
    migrate(engine)
    seen: list[tuple[str, Any]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def capture(conn: Any, cursor: Any, sql: str, args: Any, *_: Any) -> None:
        if sql.startswith("SELECT"):
            seen.append((sql, args))

    with engine.connect() as conn:
        for at in (None, 5):
            queries.owned_utxos(conn, "P", ["fuji1a", "fuji1b"], at)
            queries.exported_utxos(conn, ["fuji1a", "fuji1b"], at)
        queries.newest_links(conn, "P", ["fuji1a"])
        queries.utxos_moved_by(conn, "P", "tx")
        queries.chains_touched(conn, "fuji1a", ["P"])
        supply_queries.locked_utxos(conn, 10)
        supply_queries.l1_refunded(conn)
        supply_queries.burns(conn, "asset")
        event.remove(engine, "before_cursor_execute", capture)
        for sql, args in seen:
            plan = [str(r[3]) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, args)]
            for step in plan:
                assert not step.startswith("SCAN primary_"), (sql, plan)
                assert "consuming_tx_hash_utxo_id (consuming_tx_hash=?)" not in step or (
                    "consuming_tx_hash = ?" in sql
                ), (sql, plan)
    engine.dispose()


def test_locked_utxos_are_classed_by_their_locktimes(tmp_path: Path) -> None:
    """A codec-built P-chain tx pays one address four outputs: under a platform locktime
    ahead, under a stakeable lock ahead, without a lock, and under a locktime already passed.
    Each lands in its class now; once both locks pass (blockTimestamp) all are spendable; the
    supply counts the two locked ones and the one nAVAX the tx burned (the store's AVAX is
    this chain's asset: the P-chain holds no other)."""
    from avadata.decode.codec.components import (
        AvaxBaseTx,
        TransferableInput,
        TransferableOutput,
        TransferInput,
        TransferOutput,
    )
    from avadata.decode.codec.pchain import BaseTx, PChainTx
    from avadata.decode.codec.pchain_blocks import BanffStandardBlock
    from avadata.indexer.primary.chain import index_chain
    from avadata.store.identity import record_primary_network
    from tests.primary.test_index_api import _source

    asset, owner, t0 = bytes([7]) * 32, bytes([1]) * 20, 1_700_000_000
    far = t0 + 10_000

    def out(amount: int, locktime: int = 0, stakeable: int = 0) -> TransferableOutput:
        inner = TransferOutput(amount, locktime, 1, (owner,))
        return TransferableOutput(asset, LockOut(stakeable, inner) if stakeable else inner)

    outs = (out(100, locktime=far), out(200, stakeable=far), out(300), out(400, locktime=t0 - 1))
    spend = TransferableInput(bytes([9]) * 32, 0, asset, TransferInput(1_001, (0,)))
    tx = PChainTx(
        unsigned=BaseTx(base=AvaxBaseTx(5, bytes(32), outs, (spend,), b"")), credentials=()
    )
    block = api.encode_p_block(BanffStandardBlock(t0, bytes(32), 0, (tx,)))
    engine = make_engine(f"sqlite:///{tmp_path / 'locks.db'}")
    migrate(engine)
    asyncio.run(index_chain(engine, _source([block], []), "P", "P"))
    record_primary_network(engine, 5)
    settings = Settings(db_url=str(engine.url), page_token_secret=SECRET)
    a = cb58_encode(asset)
    with TestClient(create_app(settings)) as c:
        path = BASE.format("p-chain") + "balances"
        now = get(c, path, addresses=fuji(owner))["balances"]
        assert _sums(now["lockedPlatform"]) == {(a, ""): (100, 1)}
        assert _sums(now["lockedStakeable"]) == {(a, ""): (200, 1)}
        assert _sums(now["unlockedUnstaked"]) == {(a, ""): (700, 2)}
        later = get(c, path, addresses=fuji(owner), blockTimestamp=far + 1)["balances"]
        assert _sums(later["unlockedUnstaked"]) == {(a, ""): (1_000, 4)}
        assert not later["lockedPlatform"] and not later["lockedStakeable"]
        before = get(c, path, addresses=fuji(owner), blockTimestamp=t0 - 1)["balances"]
        assert all(not items for items in before.values())
        supply = get(c, "/v1/avax/supply")
        conforms(supply, "AvaxSupplyResponse")
        assert supply["totalLocked"] == "0.0000003"
        assert supply["totalPBurned"] == "0.000000001"
    engine.dispose()
