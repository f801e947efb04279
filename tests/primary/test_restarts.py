"""The primary-network indexer killed at random points, end to end: the devnet's simulated P/X/C
network (C-chain atomic txs riding on a real anvil chain) behind our real Index API and platform
API; `avadata index --node URL --once` started as a subprocess and killed with SIGKILL soon after
it commits, several times, then run to the end. Every transaction and UTXO the API then serves
on P, X and C (every page) equals the simulators' ledger (their records and UTXO books: the
independent truth), and the store holds exactly the rows of a clean, uninterrupted run."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, select

from avadata.api.app import create_app
from avadata.decode.codec.ids import bech32_address, cb58_encode, utxo_id
from avadata.devnet.evm.traffic import TrafficConfig
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim
from avadata.devnet.primary.utxo_book import Coin
from avadata.indexer.primary.run import index_node
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.schema import primary_cursors
from tests.api.http import TestClient
from tests.primary.test_api import _all as every_page
from tests.support.devnet import start_seeded_chain
from tests.support.dump import assert_same_rows, dump
from tests.support.primary_world import served_node

pytestmark = pytest.mark.e2e

START = 1_767_225_600  # 2026-01-01
HISTORY = TrafficConfig(start_timestamp=START, days=8, blocks=40, txs_per_block=3, accounts=40)
CONFIG = PrimaryConfig(seed=9, start=START, days=8, p_blocks=300, x_blocks=80, history_blocks=40)
BATCH = 2  # containers per write: many commit points to be killed between
BASE = "/v1/networks/fuji/blockchains"
CHAINS = {"P": "p-chain", "X": "x-chain", "C": "c-chain"}


@dataclass
class Network:
    url: str
    sim: PrimarySim
    folder: Path


@pytest.fixture(scope="module")
def network(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Network]:
    folder: Path = tmp_path_factory.mktemp("restarts")
    chain = start_seeded_chain(43113, HISTORY)
    node = PrimaryNode(
        NodeOptions(CONFIG, data_dir=folder, c_rpc_url=chain.rpc_url, live_interval=None)
    )
    node.start()
    try:
        with served_node(node) as url:
            yield Network(url, node.sim, folder)
    finally:
        chain.stop()


def _store(path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    return engine


def _cursors(engine: Engine) -> dict[str, int]:
    c = primary_cursors.c
    with engine.connect() as conn:
        return {str(k): int(i) for k, i in conn.execute(select(c.blockchain_id, c.container_index))}


def _sizes(url: str) -> dict[str, int]:
    """Containers per index, by the indexer's cursor names, in the order it reads them."""
    out = {}
    for cursor, index in (("P", "P/block"), ("X/vtx", "X/vtx"), ("X", "X/block"), ("C", "C/block")):
        body = {"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted", "params": {}}
        answer = httpx.post(f"{url}/ext/index/{index}", json=body, timeout=30).json()
        out[cursor] = int(answer["result"]["index"]) + 1
    return out


def _done(engine: Engine) -> int:
    return sum(i + 1 for i in _cursors(engine).values())


@pytest.fixture(scope="module")
def killed(network: Network) -> Iterator[tuple[Engine, list[dict[str, int]], dict[str, int]]]:
    """A store filled by runs killed at random points, then one run to the end."""
    engine = _store(network.folder / "killed.db")
    args = [
        sys.executable,
        "-m",
        "avadata",
        "index",
        "--node",
        network.url,
        "--db",
        str(engine.url),
        "--once",
        "--node-batch",
        str(BATCH),
    ]
    env = {**os.environ, "COLUMNS": "120"}
    sizes = _sizes(network.url)
    # Random kill points in the order the indexer reads (P, X vertices, X blocks, C), drawn
    # per chain so X and C get some though P holds most containers.
    rng = random.Random(20261124)
    offset, targets = 0, []
    for cursor, draws in (("P", 6), ("X/vtx", 0), ("X", 3), ("C", 3)):
        targets += [offset + rng.randrange(1, sizes[cursor]) for _ in range(draws)]
        offset += sizes[cursor]
    positions: list[dict[str, int]] = []
    kills = 0
    # Polled through a read-only engine: a writer engine's BEGIN IMMEDIATE would queue behind
    # the indexer's commits, and on a loaded machine the kill then landed far past its target.
    watch = make_engine(str(engine.url), read_only=True)
    for target in sorted(targets):
        # A kill that landed late may have carried the store past this target: then kill
        # right after the next run's first commit, wherever that is, rather than skip it.
        target = max(target, _done(watch) + 1)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline and _done(watch) < target:
            time.sleep(0.005)
        # Not always right after a commit: anywhere in the next write cycle or two.
        time.sleep(rng.uniform(0.0, 0.02))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        positions.append(_cursors(engine))
    watch.dispose()
    final = subprocess.run(args, capture_output=True, env=env, timeout=120)
    assert final.returncode == 0, final.stderr.decode()[-2000:]
    assert kills >= len(targets) - 2, f"only {kills} runs were killed mid-backfill: {positions}"
    yield engine, positions, sizes
    engine.dispose()


@pytest.fixture(scope="module")
def client(network: Network, killed: tuple[Engine, Any, Any]) -> Iterator[TestClient]:
    engine, _, _ = killed
    settings = Settings(db_url=str(engine.url), page_token_secret="test-secret-0123456789")
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


def _all(c: TestClient, path: str, key: str, **q: Any) -> list[dict[str, Any]]:
    return every_page(c, path, key, pageSize=100, **q)


def test_kills_landed_in_every_chain(killed: tuple[Engine, list[dict[str, int]], Any]) -> None:
    _, positions, sizes = killed
    assert len({tuple(sorted(p.items())) for p in positions}) >= 5, positions
    # A kill mid-chain leaves that chain's cursor short of its last container.
    for chain in ("P", "X", "C"):
        assert any(chain in p and p[chain] + 1 < sizes[chain] for p in positions), (
            chain,
            positions,
        )


def test_same_rows_as_a_clean_run(network: Network, killed: tuple[Engine, Any, Any]) -> None:
    engine, _, _ = killed
    clean = _store(network.folder / "clean.db")
    asyncio.run(index_node(clean, network.url, once=True))
    want = dump(clean)
    clean.dispose()
    got = dump(engine)
    assert sum(len(v) for k, v in want.items() if k.startswith("primary_")) > 500
    assert_same_rows(got, want)


def test_every_transaction_equals_the_simulators_records(
    network: Network, client: TestClient
) -> None:
    for chain, name in CHAINS.items():
        served = _all(client, f"{BASE}/{name}/transactions", "transactions")
        hashes = [t["txHash"] for t in served]
        assert len(hashes) == len(set(hashes)), f"{chain}: a tx served twice"
        records = {r.tx_id: r for r in network.sim.records if r.chain == chain}
        assert records, chain
        assert set(hashes) == set(records), chain
        for t in served:
            r = records[t["txHash"]]
            assert t["txType"] == r.type, (chain, t["txHash"])
            assert t["blockTimestamp"] == r.time, (chain, t["txHash"])
            if r.index != "X/vtx":  # vertex txs: the vertex height, not a block's
                assert int(t["blockNumber"]) == r.height, (chain, t["txHash"])


def _truth(sim: PrimarySim) -> dict[str, dict[bytes, dict[str, int]]]:
    """Unspent UTXOs per chain and owner in the simulators' books, as utxoId -> amount: coins
    created by a tx of the ledger (genesis allocations come from no tx, and no index carries
    them), and on the P-chain the stake of current stakers (a UTXO of the staking tx from the
    start, as the store keeps it; returned to the book at the staker's end)."""
    known = {r.tx_id for r in sim.records}
    out: dict[str, dict[bytes, dict[str, int]]] = {"P": {}, "X": {}, "C": {}}

    def add(chain: str, coin: Coin) -> None:
        if cb58_encode(coin.tx_id) not in known:
            return
        for owner in coin.owners:
            out[chain].setdefault(owner, {})[cb58_encode(coin.utxo_id)] = coin.amount

    for coin in sim.p.utxos:
        add("P", coin)
    for coin in sim.x.utxos:
        add("X", coin)
    for s in sim.p.state.stakers.values():
        for i, o in enumerate(s.stake):
            stake = Coin(s.tx_id, s.n_outputs + i, o.asset_id, o.output)
            assert stake.utxo_id == utxo_id(s.tx_id, s.n_outputs + i)
            add("P", stake)
    return out


def test_every_utxo_equals_the_simulators_books(network: Network, client: TestClient) -> None:
    truth = _truth(network.sim)
    served_addresses: set[str] = set()
    for name in CHAINS.values():
        for t in _all(client, f"{BASE}/{name}/transactions", "transactions"):
            for u in t["emittedUtxos"]:
                served_addresses.update(u["addresses"])
    owners = {bech32_address(o, "fuji"): o for book in truth.values() for o in book}
    owners.update({a: b"" for a in served_addresses if a not in owners and not a.startswith("0x")})
    assert len(owners) > 20
    seen = {"P": 0, "X": 0, "C": 0}
    for address, raw in sorted(owners.items()):
        for chain, name in CHAINS.items():
            got = _all(client, f"{BASE}/{name}/utxos", "utxos", addresses=address)
            ids = [u["utxoId"] for u in got]
            assert len(ids) == len(set(ids)), (chain, address)
            want = truth[chain].get(raw, {}) if raw else {}
            assert {u["utxoId"]: int(u["amount"]) for u in got} == want, (chain, address)
            seen[chain] += len(got)
    assert seen["P"] > 50 and seen["X"] > 20, seen


def test_atomic_utxos_equal_the_simulators_shared_memory(
    network: Network, client: TestClient
) -> None:
    """Exported UTXOs are listed by no /utxos (docs/compatibility.md): they are the export's
    emitted UTXOs, consumed by the import. Those still waiting in the simulators' shared
    memory are served unconsumed, and every UTXO an import consumed has left it."""
    txs = {
        t["txHash"]: t
        for name in CHAINS.values()
        for t in _all(client, f"{BASE}/{name}/transactions", "transactions")
    }
    waiting = {
        cb58_encode(coin.utxo_id): coin
        for book in network.sim.shared.books.values()
        for coin in book
    }
    assert waiting
    for uid, coin in waiting.items():
        emitted = {u["utxoId"]: u for u in txs[cb58_encode(coin.tx_id)]["emittedUtxos"]}
        assert int(emitted[uid]["amount"]) == coin.amount
        assert "consumingTxHash" not in emitted[uid]
    imported = [u for t in txs.values() if t["txType"] == "ImportTx" for u in t["consumedUtxos"]]
    assert imported
    for u in imported:
        assert u["utxoId"] not in waiting
        exporter = txs[u["txHash"]]
        assert exporter["txType"] == "ExportTx"
        assert u["utxoId"] in {e["utxoId"] for e in exporter["emittedUtxos"]}
