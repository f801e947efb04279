"""Two processes deliver from one store: `avadata index` (following the seeded anvil chain)
and `avadata serve`, both hosting a delivery worker, on SQLite and on PostgreSQL. The
delivery lease lets one send: every event arrives exactly once. Then the holder is killed with
SIGKILL and the webhook rewound: the other process takes the lease over once it expires and
sends every event again, exactly once, under the same messageIds.

Truth: which transactions touch the watched addresses is read from the node (tests/e2e/
test_webhook_delivery.node_truth); signatures are checked by the second implementation there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.store.engine import make_engine
from avadata.store.keys import create_key
from avadata.store.migrate import migrate
from avadata.store.webhooks import events, lease, registry
from tests.e2e.test_webhook_delivery import node_truth, pick_addresses, verify
from tests.support import pg_cluster as pgc
from tests.support.receiver import Arrival, receiving
from tests.support.server import free_port

pytestmark = pytest.mark.e2e

LEASE_S = 2.0
ENV = {
    "AVADATA_WEBHOOK_TIMEOUT_S": "2",
    "AVADATA_WEBHOOK_RETRY_BASE_S": "0.05",
    "AVADATA_WEBHOOK_RETRY_MAX_S": "0.4",
    "AVADATA_WEBHOOK_POLL_S": "0.05",
    "AVADATA_WEBHOOK_LEASE_S": str(LEASE_S),
}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'lease.db'}"
        return
    assert pgc.available(), "PostgreSQL 15 binaries (initdb, pg_ctl) not found"
    with pgc.PgCluster() as cluster:
        yield cluster.url(cluster.create_database("lease"))


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    out = log.open("wb")
    cmd = [sys.executable, "-m", "avadata", *args]
    return subprocess.Popen(cmd, env=dict(os.environ, **ENV), stdout=out, stderr=out)


def _wait(until: Any, timeout: float, what: str, procs: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        for p in procs:
            assert p.poll() is None or p.returncode == -signal.SIGKILL, f"{p.args} exited"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def test_two_processes_deliver_each_event_once_and_fail_over(
    devnet_chain: Any, store_url: str, tmp_path: Path
) -> None:
    truth = node_truth(devnet_chain.rpc_url)
    watched = pick_addresses(truth)
    expected = {h for h, tx in truth.items() if tx.parties & set(watched)}
    head = max(tx.position[0] for tx in truth.values())
    writer = make_engine(store_url)
    migrate(writer)
    key, _ = create_key(writer, "lease", None)
    port = free_port()
    procs = [
        _start(
            ["index", "--rpc", devnet_chain.rpc_url, "--db", store_url, "--poll", "0.2"],
            tmp_path / "index.log",
        ),
        _start(["serve", "--db", store_url, "--port", str(port)], tmp_path / "serve.log"),
    ]
    try:
        with receiving(lambda n, _m: 200) as (rec, hook_url):

            def indexed() -> bool:
                with writer.connect() as conn:
                    return (events.indexed_head(conn, devnet_chain.chain_id) or -1) >= head

            _wait(lambda: _healthy(port) and indexed(), 120, "the backfill and the server", procs)
            api, headers = f"http://127.0.0.1:{port}", {"x-glacier-api-key": key}
            body = {
                "eventType": "address_activity",
                "url": hook_url,
                "chainId": str(devnet_chain.chain_id),
                "metadata": {"addresses": watched},
            }
            made = httpx.post(f"{api}/v1/webhooks", json=body, headers=headers)
            assert made.status_code == 201, made.text
            wid = made.json()["id"]
            secret = httpx.get(f"{api}/v1/webhooks:getSharedSecret", headers=headers).json()[
                "secret"
            ]
            # A new webhook reports what comes after the indexed head; reach back to the start.
            assert registry.rewind(writer, _owner(writer, wid), wid, 0) is not None

            def mine() -> list[Arrival]:  # a port reused by another store's worker: not ours
                return [a for a in rec.arrivals() if a.message["webhookId"] == wid]

            _wait(lambda: {a.tx_hash for a in mine()} >= expected, 120, "every event", procs)
            time.sleep(1.0)  # nothing else may come, from either process
            first = mine()
            assert {a.tx_hash for a in first} == expected
            counts = Counter(a.message["messageId"] for a in first)
            assert len(counts) == len(expected) and set(counts.values()) == {1}, counts.most_common(
                2
            )
            for a in first:
                verify(secret, a.raw, a.headers)
            ids = {a.tx_hash: a.message["messageId"] for a in first}

            held = lease.holder(writer, lease.DELIVERY)
            assert held is not None
            # The holder is a command's delivery process (delivery/host.py): kill the command.
            pid = _host_of(int(held[0].split(":")[1]))
            holder = next(p for p in procs if p.pid == pid)
            os.kill(pid, signal.SIGKILL)
            holder.wait(10)
            survivor = next(p for p in procs if p.pid != pid)
            registry.rewind(writer, _owner(writer, wid), wid, 0)
            mark = len(mine())

            def again() -> set[str]:
                return {a.tx_hash for a in mine()[mark:]}

            _wait(lambda: again() >= expected, 60 + LEASE_S, "every event again", [survivor])
            time.sleep(1.0)
            second = mine()[mark:]
            assert Counter(a.tx_hash for a in second) == Counter(expected)  # once each
            for a in second:
                assert a.message["messageId"] == ids[a.tx_hash]
            now = lease.holder(writer, lease.DELIVERY)
            assert now is not None and _host_of(int(now[0].split(":")[1])) == survivor.pid
    finally:
        for p in procs:
            p.kill()
            p.wait(10)
        writer.dispose()


def _host_of(pid: int) -> int:
    """The parent of process `pid` (its fourth field in /proc/<pid>/stat)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _owner(writer: Any, wid: str) -> str:
    hook = registry.get(writer, None, wid)
    assert hook is not None
    return hook.owner
