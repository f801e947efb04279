"""The indexer under a faulty node, and killed at random points: the same rows as a clean run."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from avadata.errors import SourceError
from avadata.indexer.run import RunOptions, index_chains
from avadata.indexer.sink import StoreSink
from avadata.store import cursors, schema
from tests.support.dump import IDENTITY, VOLATILE, assert_same_rows, dump
from tests.support.fault_proxy import FaultProxy

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def clean(devnet_chain, engine_factory):
    engine = engine_factory()
    asyncio.run(
        index_chains(engine, [devnet_chain.rpc_url], RunOptions(once=True, chunk_blocks=20))
    )
    return dump(engine)


def test_faulty_node_gives_the_same_rows(devnet_chain, engine_factory, clean) -> None:
    engine = engine_factory()
    with FaultProxy(devnet_chain.rpc_url, seed=11, rate=0.25, delay=1.5) as proxy:
        options = RunOptions(once=True, chunk_blocks=20, timeout=1.0)
        asyncio.run(index_chains(engine, [proxy.url], options))
    assert set(proxy.injected) == {"timeout", "429", "500", "truncate"}, proxy.injected
    assert_same_rows(dump(engine), clean)


def test_one_process_gives_the_same_rows(devnet_chain, engine_factory, clean) -> None:
    """The front half run in the writing process (LocalFeed) writes what the child process does."""
    engine = engine_factory()
    options = RunOptions(once=True, chunk_blocks=20, fetch_process=False)
    asyncio.run(index_chains(engine, [devnet_chain.rpc_url], options))
    assert_same_rows(dump(engine), clean)


def test_fetch_process_death_stops_the_indexer_and_a_rerun_resumes(
    devnet_chain, engine_factory, clean, monkeypatch
) -> None:
    """The fetch process killed mid-range (OOM killer, kill -9 of the child alone): the indexer
    stops with an error naming it instead of waiting, keeps what it wrote (whole chunks), and a
    rerun completes the same rows as a clean run."""
    engine = engine_factory()
    real_write = StoreSink.write

    def write_then_kill_the_child(self, batches):
        real_write(self, batches)
        for child in multiprocessing.active_children():
            if child.name.startswith("avadata-fetch-"):
                os.kill(child.pid, signal.SIGKILL)
                child.join(10)

    monkeypatch.setattr(StoreSink, "write", write_then_kill_the_child)
    # 10-block chunks: the child cannot have finished the ~300 blocks by the first write.
    options = RunOptions(once=True, chunk_blocks=10)
    with pytest.raises(SourceError, match="the fetch process ended"):
        asyncio.run(index_chains(engine, [devnet_chain.rpc_url], options))
    cur = cursors.get_cursor(engine, devnet_chain.chain_id)
    assert cur is not None and cur.block_number < devnet_chain.head
    monkeypatch.undo()
    asyncio.run(index_chains(engine, [devnet_chain.rpc_url], options))
    assert_same_rows(dump(engine), clean)


def _children(pid: int) -> set[int]:
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found.update(int(c) for c in f.read().split())
        except FileNotFoundError:
            pass
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def slow_node(devnet_chain):
    """The devnet behind a proxy that answers after 0.1 s: the indexer cannot outrun the kill
    test's polling on a loaded machine (unthrottled, one run once wrote 100 blocks between the
    first commit seen and the kill, and the chain was indexed before 20 kills)."""
    with FaultProxy(devnet_chain.rpc_url, rate=0.0, latency=0.05) as proxy:
        yield proxy


def test_kill_nine_at_random_points_loses_and_duplicates_nothing(
    devnet_chain, engine_factory, clean, slow_node
) -> None:
    engine = engine_factory()
    url = str(engine.url)
    rng = random.Random(20261122)
    args = [
        sys.executable,
        "-m",
        "avadata",
        "index",
        "--rpc",
        slow_node.url,
        "--db",
        url,
        "--once",
        "--chunk-blocks",
        "1",
        # A few blocks per commit, each transaction holding several writes: kills land inside
        # one, and each run still commits a little before its kill.
        "--commit-seconds",
        "0.3",
    ]
    env = {**os.environ, "COLUMNS": "120"}
    kills = 0
    positions: list[int | None] = []
    for _ in range(20):
        before = cursors.get_cursor(engine, devnet_chain.chain_id)
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        # Kill at a random moment after this run has committed at least one chunk, so each kill
        # lands mid-backfill (start-up alone takes seconds on a loaded machine).
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if cursors.get_cursor(engine, devnet_chain.chain_id) != before:
                break
            time.sleep(0.05)
        # Up to a few chunks' time (each waits on the slow node for at least two round trips),
        # so kills land while fetching, writing or committing, not only just after a commit.
        time.sleep(rng.uniform(0.0, 0.3))
        children = _children(proc.pid) if proc.poll() is None else set()
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        # The fetch process dies with the indexer: nothing keeps pulling from the node.
        gone_by = time.monotonic() + 10
        while any(_alive(c) for c in children) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not any(_alive(c) for c in children), f"orphans after kill -9: {children}"
        cur = cursors.get_cursor(engine, devnet_chain.chain_id)
        positions.append(None if cur is None else cur.block_number)
    final = subprocess.run(args, capture_output=True, env=env, timeout=300)
    assert final.returncode == 0, final.stderr.decode()[-2000:]
    assert kills >= 15, f"only {kills} runs were killed mid-backfill: {positions}"
    assert len(set(positions)) >= 10, positions
    # The command line labels the chain (its identity); the clean run is a library call.
    assert_same_rows(dump(engine, identity=False), _unlabelled(clean))


def _unlabelled(rows: dict[str, list[tuple[object, ...]]]) -> dict[str, list[tuple[object, ...]]]:
    """A dump(identity=True) of a store whose chains carry no labels, as dump(identity=False)
    shows it: the chains' unset identity columns dropped."""
    kept = [c.name for c in schema.chains.columns if ("chains", c.name) not in VOLATILE]
    keep = [i for i, name in enumerate(kept) if ("chains", name) not in IDENTITY]
    out = {name: r for name, r in rows.items() if name != "networks"}
    return {**out, "chains": [tuple(r[i] for i in keep) for r in rows["chains"]]}
