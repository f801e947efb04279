"""`avadata bench primary`: the primary-network indexer's ingest rate from the devnet's Index API,
and the latency of the primary transactions and UTXO endpoints for one address holding
>= 100,000 UTXOs, page 1 beside a deep page, served by a real `avadata serve`.

Stage: bench. Ingest: the devnet node (simulated P/X history behind our Index API and platform
API) runs in a child process, so it does not share the indexer's interpreter (and GIL), and
`index_node` reads it over HTTP into a fresh SQLite store; only that call is timed. API: a store
of codec-built P-chain blocks, decoded and written by the real indexer and writer (through an
in-memory Index API source: no HTTP in the build), in which one address receives one output per
transaction, then the staking history of bench/staking_history.py (validators, delegators,
rewards, an L1) so the staking lists are timed beside that many txs. The deep page starts
`(page - 1) * 100` rows in: its token is the server's own page-1 token with the position moved
there (found by one OFFSET query of the bench) and signed again with the server's secret, so
the bench need not know which filters a route hashes and walking 999 pages first is not
needed. Following the server's tokens reaches the same row
(`check_walk`, used by the tiny-size test).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from pathlib import Path
from typing import Any

import httpx

# The token layout is paging.py's; the bench re-signs a token, it does not invent one.
from avadata.api.paging import PageCodec
from avadata.bench import api_load, staking_history
from avadata.bench.staking_history import StakingShape
from avadata.decode.codec import api
from avadata.decode.codec.components import (
    AvaxBaseTx,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from avadata.decode.codec.ids import bech32_address, cb58_encode
from avadata.decode.codec.pchain import BaseTx, PChainTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, BanffStandardBlock
from avadata.devnet.primary.network_ids import AVAX_ASSET_ID
from avadata.indexer.primary.chain import index_chain
from avadata.indexer.primary.run import index_node
from avadata.indexer.primary.snapshots import (
    snapshot_l1_validators,
    snapshot_stakers,
    snapshot_supply,
)
from avadata.indexer.primary.supply import estimate_rewards
from avadata.networks import FUJI_ID
from avadata.sources.index_api import IndexApiSource, IndexedContainer
from avadata.store.engine import make_engine
from avadata.store.identity import record_primary_network
from avadata.store.keys import read_secret
from avadata.store.migrate import migrate
from avadata.store.queries import offsets

BASE = "/v1/networks/fuji/blockchains/p-chain"
HOT = hashlib.sha256(b"avadata bench primary: hot").digest()[:20]
FUNDER = hashlib.sha256(b"avadata bench primary: funder").digest()[:20]
OTHERS = 1_000  # third outputs rotate over this many addresses, so the hot one is not alone
TXS_PER_BLOCK = 100
WALK_PAGE = 100  # the largest pageSize: reaches the deep page in the fewest requests
P99_MS = 50.0  # the API target `avadata bench api` judges every endpoint by
DEEP_WITHIN = 0.2


# -- ingest from the devnet ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IngestResult:
    seconds: float
    containers: dict[str, int]  # per cursor of the store (a chain, or X/vtx), cursor + 1
    txs: dict[str, int]  # per chain, rows in primary_txs
    sim_txs: dict[str, int]  # per chain, txs the simulators produced
    build_seconds: float
    db: str

    @property
    def total_containers(self) -> int:
        return sum(self.containers.values())

    @property
    def total_txs(self) -> int:
        return sum(self.txs.values())


def _serve_node(conn: Pipe, p_blocks: int, x_blocks: int, seed: int, folder: str) -> None:
    from avadata.devnet.facade.index_api import index_routes
    from avadata.devnet.facade.pnode_routes import node_routes
    from avadata.devnet.facade.server import FacadeServer
    from avadata.devnet.primary.node import NodeOptions, PrimaryNode
    from avadata.devnet.primary.simulator import PrimaryConfig

    config = PrimaryConfig(
        seed=seed, start=1_767_225_600, days=90, p_blocks=p_blocks, x_blocks=x_blocks
    )
    t0 = time.perf_counter()
    node = PrimaryNode(NodeOptions(config, data_dir=Path(folder), live_interval=None))
    node.start()
    routes = [*index_routes(node.index_store), *node_routes(lambda: node.sim, node.lock)]
    server = FacadeServer([], port=0, extra_routes=routes)
    server.start()
    built = time.perf_counter() - t0
    counts: dict[str, int] = {}
    for r in node.sim.records:
        counts[r.chain] = counts.get(r.chain, 0) + 1
    conn.send((server.url, built, counts))
    try:
        conn.recv()  # until the bench is done with it
    finally:
        server.stop()
        node.stop()


def measure_ingest(p_blocks: int, x_blocks: int, seed: int = 1) -> IngestResult:
    folder = Path(tempfile.mkdtemp(prefix="avadata-bench-primary-"))
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(
        target=_serve_node, args=(child, p_blocks, x_blocks, seed, str(folder)), daemon=True
    )
    proc.start()
    try:
        if not parent.poll(600):
            raise SystemExit("the devnet node did not come up")
        url, built, sim_txs = parent.recv()
        db = f"sqlite:///{folder / 'ingest.db'}"
        engine = make_engine(db)
        migrate(engine)
        t0 = time.perf_counter()
        asyncio.run(index_node(engine, url, once=True))
        seconds = time.perf_counter() - t0
        with engine.connect() as conn:
            containers = offsets.primary_containers(conn)
            txs = offsets.primary_tx_counts(conn)
        engine.dispose()
    finally:
        with contextlib.suppress(OSError):  # a node that died has no pipe left to read it
            parent.send("stop")
        proc.join(60)
        if proc.is_alive():
            proc.terminate()
    return IngestResult(seconds, containers, txs, sim_txs, built, db)


# -- a store with one address of >= 100,000 UTXOs -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Store:
    db: str
    hot: str  # bech32 (fuji)
    hot_utxos: int  # counted in the store
    txs: int  # counted in the store
    build_seconds: float


def _tx(spend: tuple[bytes, int], balance: int, n: int) -> tuple[PChainTx, int]:
    """Tx n: one output to the hot address, change to the funder (spent by tx n+1), one to
    a rotating other address."""
    pay, other, fee = 1_000 + n % 997, 500, 1_000
    change = balance - pay - other - fee
    other_addr = _other_bytes(n)
    outs = (
        TransferableOutput(AVAX_ASSET_ID, TransferOutput(pay, 0, 1, (HOT,))),
        TransferableOutput(AVAX_ASSET_ID, TransferOutput(change, 0, 1, (FUNDER,))),
        TransferableOutput(AVAX_ASSET_ID, TransferOutput(other, 0, 1, (other_addr,))),
    )
    base = AvaxBaseTx(
        network_id=5,
        blockchain_id=bytes(32),
        outputs=outs,
        inputs=(
            TransferableInput(spend[0], spend[1], AVAX_ASSET_ID, TransferInput(balance, (0,))),
        ),
        memo=b"",
    )
    return PChainTx(unsigned=BaseTx(base=base), credentials=()), change


def _other_bytes(n: int) -> bytes:
    return hashlib.sha256(f"other {n % OTHERS}".encode()).digest()[:20]


def _other(n: int) -> str:
    return bech32_address(_other_bytes(n), "fuji")


def build_blocks(utxos: int, start: int = 1_767_225_600) -> Iterator[bytes]:
    spend, balance = (hashlib.sha256(b"avadata bench primary: genesis").digest(), 0), 10**18
    n = height = 0
    while n < utxos:
        txs = []
        for _ in range(min(TXS_PER_BLOCK, utxos - n)):
            tx, balance = _tx(spend, balance, n)
            spend = (tx.id_bytes(PCHAIN_TABLE), 1)
            txs.append(tx)
            n += 1
        block = BanffStandardBlock(
            time=start + 10 * height, parent_id=bytes(32), height=height, transactions=tuple(txs)
        )
        yield api.encode_p_block(block)
        height += 1


class _MemoryIndex(IndexApiSource):
    """An Index API source over blocks held in memory: the build measures nothing over HTTP."""

    def __init__(self, blocks: list[bytes]) -> None:
        self.blocks = blocks

    async def last_accepted_index(self) -> int | None:
        return len(self.blocks) - 1 if self.blocks else None

    async def range(self, start: int, count: int) -> list[IndexedContainer]:
        return [
            IndexedContainer(i, cb58_encode(hashlib.sha256(raw).digest()), raw, "")
            for i, raw in enumerate(self.blocks[start : start + count], start)
        ]


def build_store(
    utxos: int, db: str | None = None, stakers: StakingShape | None = StakingShape()
) -> Store:
    """The API store: the hot address's `utxos` txs, then (unless `stakers` is None) the
    staking history of bench/staking_history.py in the blocks after them. A store at `db`
    that holds both already is used as it is."""
    url = db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='avadata-bench-primary-')) / 'api.db'}"
    engine = make_engine(url)
    migrate(engine)
    record_primary_network(engine, FUJI_ID)  # the blocks are Fuji's (fuji1... addresses)
    hot = bech32_address(HOT, "fuji")
    t0 = time.perf_counter()
    hot_blocks = -(-utxos // TXS_PER_BLOCK)
    with engine.connect() as conn:
        have = offsets.primary_containers(conn).get("P", 0)
    staked = stakers is None or have > hot_blocks
    if _hot_utxos(engine, hot) < utxos or not staked:
        blocks = list(build_blocks(utxos))
        platform = None
        if stakers is not None:
            start = 1_767_225_600 + 10 * len(blocks) + 3_600  # an hour after the hot history
            more, sim = staking_history.history(len(blocks), start, stakers)
            blocks += more
            platform = staking_history.SimPlatform(sim)
        # 20 blocks (2,000 txs) per write, as a backfill commits.
        asyncio.run(_index(engine, blocks, platform))
    seconds = time.perf_counter() - t0
    with engine.connect() as conn:
        txs = sum(offsets.primary_tx_counts(conn).values())
    count = _hot_utxos(engine, hot)
    engine.dispose()
    return Store(url, hot, count, txs, seconds)


async def _index(engine: Any, blocks: list[bytes], platform: Any) -> None:
    """The blocks through the indexer's own path; with the stakers' platform, what the
    indexer asks a node after a pass too (supply, current validators, L1 balances)."""
    if platform is not None:
        await snapshot_supply(engine, platform)
    await index_chain(engine, _MemoryIndex(blocks), "P", "P", batch=20, platform=platform)
    if platform is not None:
        estimate_rewards(engine)
        await snapshot_stakers(engine, platform)
        await snapshot_l1_validators(engine, platform)


def _hot_utxos(engine: Any, hot: str) -> int:
    with engine.connect() as conn:
        return offsets.address_utxo_count(conn, hot)


# -- the endpoints under load -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    path: str
    body: dict[str, Any] | None = None  # a POST's JSON body (timed by httpx, never by wrk)


@dataclass(slots=True)
class ApiResult:
    tool: str  # "wrk -t1 -cN -dSs" or "httpx, N requests"
    results: list[api_load.Result]
    deep_first: dict[str, str]  # first row ID served on the deep page
    deep_rows_in: int
    walked: dict[str, bool] | None  # with check_walk: the walked deep page equals ours
    load_before: float
    load_after: float
    store: Store
    cases: list[Case] = field(default_factory=list)


def _deep_token(first_token: str, secret: bytes, position: tuple[int | str, ...]) -> str:
    """The server's own page-1 token moved to `position` (same query digest, so the filters
    the route hashes need not be known here), signed with the server's secret."""
    try:
        return PageCodec(secret).moved(first_token, position)
    except ValueError as exc:
        raise SystemExit(f"the server's page-1 token: {exc}") from None


def _deep_positions(store: Store, rows_in: int) -> dict[str, tuple[int | str, ...]]:
    """The keyset position of the last row before the deep page, in the routes' order
    (newest first), found by one OFFSET query each, never by the server."""
    engine = make_engine(store.db)
    with engine.connect() as conn:
        tx = offsets.address_tx_at(conn, store.hot, "P", rows_in - 1)
        utxo = offsets.address_utxo_at(conn, store.hot, "P", rows_in - 1)
    engine.dispose()
    return {"transactions": tx, "utxos": utxo}


def _walk_first(client: httpx.Client, path: str, address: str, key: str, pages: int) -> Any:
    """The first row of page `pages + 1` of WALK_PAGE rows, following the server's tokens."""
    token = None
    for _ in range(pages):
        params: dict[str, Any] = {"addresses": address, "pageSize": WALK_PAGE}
        if token:
            params["pageToken"] = token
        body = client.get(path, params=params).json()
        token = body.get("nextPageToken")
        if token is None:
            return None
    return client.get(path, params={"addresses": address, "pageToken": token}).json()[key][0]


def deep_name(endpoint: str, rows_in: int) -> str:
    return f"{endpoint}, {rows_in:,} rows in"


def _call(client: httpx.Client, c: Case) -> httpx.Response:
    return client.get(c.path) if c.body is None else client.post(c.path, json=c.body)


def _timed(client: httpx.Client, c: Case, rounds: int) -> api_load.Result:
    took: list[float] = []
    errors = 0
    t0 = time.perf_counter()
    for _ in range(rounds):
        s = time.perf_counter()
        r = _call(client, c)
        took.append((time.perf_counter() - s) * 1000)
        errors += r.status_code != 200
    total = time.perf_counter() - t0
    took.sort()
    p99 = took[min(len(took) - 1, round(0.99 * (len(took) - 1)))]
    return api_load.Result(c.name, rounds / total, statistics.median(took), p99, errors)


@dataclass(frozen=True, slots=True)
class Load:
    """How each case is measured: wrk for `seconds` over `connections`, or `rounds` requests."""

    use_wrk: bool
    seconds: float
    connections: int
    rounds: int

    @property
    def tool(self) -> str:
        if self.use_wrk:
            return f"`wrk -t1 -c{self.connections} -d{self.seconds:g}s` after 3 untimed requests"
        return f"one keep-alive httpx client, {self.rounds} requests after up to 20 untimed ones"


def _run_cases(
    client: httpx.Client, base: str, cases: list[Case], load: Load
) -> list[api_load.Result]:
    results = []
    for c in cases:
        # wrk stops sending at its deadline, but the server still finishes the requests in
        # flight: one /healthz waits them out (routes run inline on the event loop), so no case
        # inherits the previous case's queue.
        client.get(api_load.TRIVIAL)
        for _ in range(3 if load.use_wrk else min(20, load.rounds)):
            _call(client, c)
        if load.use_wrk and c.body is None:
            results.append(api_load.wrk(c.name, base + c.path, load.connections, load.seconds))
        else:
            results.append(_timed(client, c, load.rounds))
    return results


def measure_api(
    store: Store,
    page: int,
    *,
    use_wrk: bool,
    seconds: float,
    connections: int,
    rounds: int,
    check_walk: bool = False,
) -> ApiResult:
    """`page` counts pages of WALK_PAGE rows: the deep page starts (page - 1) * 100 rows in."""
    if page < 2:
        raise SystemExit("--page must be at least 2")
    rows_in = (page - 1) * WALK_PAGE
    if rows_in >= store.hot_utxos:
        raise SystemExit(f"page {page:,} is past the {store.hot_utxos:,} UTXOs: more --utxos")
    with api_load.served(store.db) as base:
        engine = make_engine(store.db)
        with engine.connect() as conn:
            secret = read_secret(conn)
        engine.dispose()
        assert secret is not None, "avadata serve creates the secret at start"
        positions = _deep_positions(store, rows_in)
        with httpx.Client(base_url=base, timeout=120) as client:
            cases = _cases(client, store, secret, positions, rows_in)
            deep_rows = {
                "transactions": client.get(cases[2].path).json()["transactions"][0],
                "utxos": client.get(cases[4].path).json()["utxos"][0],
            }
            walked = None
            if check_walk:
                walked = {
                    key: _walk_first(client, f"{BASE}/{key}", store.hot, key, page - 1)
                    == deep_rows[key]
                    for key in deep_rows
                }
            load_before = os.getloadavg()[0]
            load = Load(use_wrk, seconds, connections, rounds)
            results = _run_cases(client, base, cases, load)
            load_after = os.getloadavg()[0]
    tool = load.tool
    deep_first = {
        "transactions": deep_rows["transactions"]["txHash"],
        "utxos": deep_rows["utxos"]["utxoId"],
    }
    return ApiResult(
        tool, results, deep_first, rows_in, walked, load_before, load_after, store, cases
    )


def _cases(
    client: httpx.Client,
    store: Store,
    secret: bytes,
    positions: dict[str, tuple[int | str, ...]],
    rows_in: int,
) -> list[Case]:
    """The endpoints under load, each fetched once (a warm-up, and an early failure on any
    error); the deep pages' tokens are the server's page-1 tokens moved to `positions`."""
    q = f"addresses={store.hot}"
    txs_path, utxos_path = f"{BASE}/transactions?{q}", f"{BASE}/utxos?{q}"
    # Several addresses: each one's first page, merged (the hot one's 100,000 links unsorted).
    qs = "addresses=" + ",".join([store.hot, *(_other(n) for n in range(2))])
    deep = {}
    for key, path in (("transactions", txs_path), ("utxos", utxos_path)):
        first = client.get(path).json()["nextPageToken"]
        deep[key] = _deep_token(first, secret, positions[key])
    cases = [
        Case(f"trivial ({api_load.TRIVIAL})", api_load.TRIVIAL),
        Case("transactions, page 1", txs_path),
        Case(deep_name("transactions", rows_in), f"{txs_path}&pageToken={deep['transactions']}"),
        Case("utxos, page 1", utxos_path),
        Case(deep_name("utxos", rows_in), f"{utxos_path}&pageToken={deep['utxos']}"),
        Case("transactions, hot + 2 other addresses, page 1", f"{BASE}/transactions?{qs}"),
        Case("utxos, hot + 2 other addresses, page 1", f"{BASE}/utxos?{qs}"),
        *_address_cases(store.hot, _other(0)),
    ]
    return _checked(client, cases)


# -- the staking lists ---------------------------------------------------------------------------

PRIMARY_SUBNET = "11111111111111111111111111111111LpoYY"


@dataclass(frozen=True, slots=True)
class StakingResult:
    store: str  # what the served store holds, in words
    results: list[api_load.Result]


def _network_of(db: str) -> tuple[str, int]:
    """The network the store holds (its name in the routes) and its P-chain tx count."""
    from avadata import networks
    from avadata.store.queries import chains as chain_queries

    engine = make_engine(db)
    with engine.connect() as conn:
        found = chain_queries.primary_network(conn)
        counts = offsets.primary_tx_counts(conn)
    engine.dispose()
    if found is None:
        raise SystemExit(f"{db}: no primary network recorded")
    return networks.by_id(found).name, counts.get("P", 0)


def _last_page(client: httpx.Client, path: str) -> str:
    """`path` with the page token of its last page of 10, found by following the tokens."""
    token, last = None, path
    while True:
        body = client.get(path, params={"pageToken": token} if token else {}).json()
        token = body.get("nextPageToken")
        if token is None:
            return last
        last = f"{path}{'&' if '?' in path else '?'}pageToken={token}"


def staking_cases(client: httpx.Client, net: str, address: str | None) -> list[Case]:
    """listValidators (page 1, the last page, filtered and sorted in the store and here),
    listDelegators, listL1Validators and the rewards lists of up to five nodes (or `address`,
    when the store holds no validator; else `address`'s historical rewards too)."""
    base = f"/v1/networks/{net}"
    every = client.get(f"{base}/validators", params={"pageSize": 100}).json()["validators"]
    nodes = ",".join(sorted({v["nodeId"] for v in every})[:5])
    who = f"nodeIds={nodes}" if nodes else f"addresses={address}"
    active = f"validationStatus=active&subnetId={PRIMARY_SUBNET}"
    cases = [
        Case("listValidators, page 1", f"{base}/validators"),
        Case("listValidators, last page", _last_page(client, f"{base}/validators")),
        Case(
            "listValidators, time and fee bounds, sortBy=timeRemaining",
            f"{base}/validators?minTimeRemaining=1&minFeePercentage=2&sortBy=timeRemaining",
        ),
        Case(
            "listValidators, active, sortBy=delegationCapacity",
            f"{base}/validators?{active}&sortBy=delegationCapacity",
        ),
        Case("listDelegators, page 1", f"{base}/delegators"),
        Case(
            "listL1Validators, with inactive ones",
            f"{base}/l1Validators?includeInactiveL1Validators=true",
        ),
        Case("listPendingPrimaryNetworkRewards", f"{base}/rewards:listPending?{who}"),
        Case("listHistoricalPrimaryNetworkRewards", f"{base}/rewards?{who}"),
    ]
    if address is not None and nodes:
        # An address of many txs and no reward: the list reads its keys, not its history.
        name = "listHistoricalPrimaryNetworkRewards, an address of no reward"
        cases.append(Case(name, f"{base}/rewards?addresses={address}"))
    return _checked(client, cases)


def measure_staking(db: str, load: Load, address: str | None = None) -> StakingResult:
    """The staking lists of the store at `db`, served by a real `avadata serve`."""
    net, p_txs = _network_of(db)
    with api_load.served(db) as base, httpx.Client(base_url=base, timeout=120) as client:
        cases = staking_cases(client, net, address)
        every = client.get(f"/v1/networks/{net}/validators", params={"pageSize": 100}).json()
        l1 = client.get(
            f"/v1/networks/{net}/l1Validators",
            params={"pageSize": 100, "includeInactiveL1Validators": "true"},
        ).json()
        held = (
            f"{p_txs:,} P-chain txs, {len(every['validators'])}"
            f"{'+' if 'nextPageToken' in every else ''} validation periods, "
            f"{len(l1['validators'])} L1 validations"
        )
        return StakingResult(held, _run_cases(client, base, cases, load))


def staking_report(results: list[StakingResult]) -> str:
    lines = [
        "| store | endpoint | req/s | p50 ms | p99 ms | non-2xx |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for res in results:
        for r in res.results:
            lines.append(
                f"| {res.store} | {r.name} | {r.rps:,.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} "
                f"| {r.errors} |"
            )
    worst = max((r.p99_ms for res in results for r in res.results), default=0.0)
    return (
        "### Staking lists\n\nThe devnet's ingest store (validators, delegators, rewards, L1 "
        "validators) and the API store (the hot address's P-chain txs, then the staking "
        "history of bench/staking_history.py: validators rotating over a pool of nodes, "
        "delegators, reward blocks and UTXOs, an L1 of a few hundred validations), default "
        "pageSize (10).\n\n"
        + "\n".join(lines)
        + f"\n\n- p99 under {P99_MS:.0f} ms on every staking list: "
        + f"{'yes' if worst < P99_MS else 'NO'} (worst {worst:.1f} ms)"
    )


def _checked(client: httpx.Client, cases: list[Case]) -> list[Case]:
    """`cases`, each fetched once: a warm-up, and an early failure on any error."""
    for c in cases:
        r = _call(client, c)
        if r.status_code != 200:
            raise SystemExit(f"{c.path}: HTTP {r.status_code} {r.text[:200]}")
    return cases


def _address_cases(hot: str, other: str) -> list[Case]:
    """The address routes and the supply. The hot address holds every bench UTXO: its last
    activity, its chain IDs and a POST V2 page of its UTXOs cost an index probe or a keyset
    page whatever its history; a balance sums every UTXO of its addresses, so it is measured
    on another address (about a thousandth of the history)."""
    network = BASE.rsplit("/blockchains/", 1)[0]
    last = f"{BASE}/lastActivityTimestampByAddresses"
    return [
        Case("utxos V2 (POST), page 1", f"{BASE}/utxos", {"addresses": hot}),
        Case("lastActivityTimestampByAddresses", f"{last}?addresses={hot}"),
        Case("lastActivityTimestampByAddresses V2 (POST)", last, {"addresses": hot}),
        Case("addresses:listChainIds", f"{network}/addresses:listChainIds?addresses={hot}"),
        Case("balances, one other address", f"{BASE}/balances?addresses={other}"),
        Case("avax/supply", "/v1/avax/supply"),
    ]


def wrk_available(install: bool) -> bool:
    if shutil.which("wrk") is None and install:
        api_load.ensure_wrk()
    return shutil.which("wrk") is not None


# -- the report ---------------------------------------------------------------------------------


def report(
    ingest: IngestResult,
    served: ApiResult,
    page: int,
    machine: str,
    command: str,
    staking: list[StakingResult] | None = None,
) -> str:
    s = ingest.seconds
    rows = [
        "| index read (store cursor) | containers | txs of the chain | containers/s | txs/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for cursor in sorted(ingest.containers):
        n = ingest.containers[cursor]
        # X/vtx has a cursor of its own; its txs are X-chain rows, counted on the X line.
        t = ingest.txs.get(cursor)
        txs = ("-", "-") if t is None else (f"{t:,}", f"{t / s:,.0f}")
        rows.append(f"| {cursor} | {n:,} | {txs[0]} | {n / s:,.0f} | {txs[1]} |")
    rows.append(
        f"| all | {ingest.total_containers:,} | {ingest.total_txs:,} | "
        f"{ingest.total_containers / s:,.0f} | {ingest.total_txs / s:,.0f} |"
    )
    same = ingest.txs == ingest.sim_txs
    ingest_text = (
        "### Ingest from the devnet's Index API\n\n"
        f"`index_node` (P/block, X/vtx, X/block and C/block, empty here: no C-chain anvil; "
        f"reward UTXOs and the current validators from the platform API) against the devnet "
        f"node in another process over HTTP, into a fresh "
        f"SQLite store: {s:.1f} s for the whole pass (the node's history was built in "
        f"{ingest.build_seconds:.1f} s before, not timed). Per-chain rates divide that chain's "
        f"count by the whole pass's time.\n\n"
        + "\n".join(rows)
        + "\n\nTxs stored per chain equal the txs the simulators produced: "
        f"{'yes' if same else 'NO ' + repr(ingest.sim_txs)}."
    )
    st = served.store
    lines = [
        "| endpoint | req/s | p50 ms | p99 ms | non-2xx |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in served.results:
        lines.append(f"| {r.name} | {r.rps:,.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | {r.errors} |")
    by = {r.name: r for r in served.results}
    listed = served.results[1:]
    worst = max(r.p99_ms for r in listed)
    checks = [
        f"- p99 under {P99_MS:.0f} ms on every primary endpoint: "
        f"{'yes' if worst < P99_MS else 'NO'} (worst {worst:.1f} ms)"
    ]
    for name in ("transactions", "utxos"):
        p1, pn = by[f"{name}, page 1"], by[deep_name(name, served.deep_rows_in)]
        # Judged on req/s as `avadata bench api` judges its deep pages; p99 tails of a few
        # hundred requests are too noisy to compare at 20%.
        within = pn.rps >= (1 - DEEP_WITHIN) * p1.rps
        checks.append(
            f"- {name}: {served.deep_rows_in:,} rows in at {100 * pn.rps / p1.rps:.0f}% of "
            f"page 1's req/s (p99 {pn.p99_ms:.1f} against {p1.p99_ms:.1f} ms): within "
            f"{100 * DEEP_WITHIN:.0f}% of page 1: {'yes' if within else 'NO'}"
        )
    api_text = (
        "### Transactions and UTXOs of one address\n\n"
        f"Store: SQLite, {st.txs:,} P-chain transactions: {st.hot_utxos:,} in codec-built "
        f"Banff blocks of {TXS_PER_BLOCK}, then the staking history (below), decoded and "
        f"written by the indexer's own path (`index_chain`, `write_blocks`) in "
        f"{st.build_seconds:.1f} s; the address `{st.hot}` holds {st.hot_utxos:,} unspent "
        f"UTXOs and is in {st.hot_utxos:,} transactions. One `avadata serve` "
        f"on 127.0.0.1; {served.tool} per endpoint, one after another (each once the "
        f"previous one's requests in flight are answered), default pageSize (10). "
        f"Page {page:,} starts {served.deep_rows_in:,} rows in (page {page:,} of pages of "
        f"{WALK_PAGE}): its token is the server's own page-1 token (same query digest) with "
        f"the position of row {served.deep_rows_in:,}, found by one OFFSET query of the bench, "
        f"signed with the server's secret. The two rows after them ask for that address and "
        f"two others (about {st.hot_utxos // OTHERS:,} UTXOs each) at once; then the address "
        f"routes (the POST rows timed by httpx, never by wrk): the hot address's POST V2 "
        f"page and last activity, its chain IDs, one other address's balance (a sum over "
        f"all its UTXOs), and the AVAX supply."
        + (
            f" Following the server's tokens page by page reaches the same first row: "
            f"{'yes' if all(served.walked.values()) else 'NO'}."
            if served.walked is not None
            else ""
        )
        + "\n\n"
        + "\n".join(lines)
        + "\n\n"
        + "\n".join(checks)
        + f"\n\nMachine load average (1 min) {served.load_before:.1f} before and "
        f"{served.load_after:.1f} after the measurements, on {os.cpu_count()} CPUs."
    )
    lists = "\n\n" + staking_report(staking) if staking else ""
    return (
        ingest_text + "\n\n" + api_text + lists + f"\n\nMachine: {machine}\n\nCommand: `{command}`"
    )
