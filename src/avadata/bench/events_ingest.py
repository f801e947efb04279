"""`avadata bench events --ingest-blocks N`: the indexer's ingest rate while `hooks` webhooks
are delivered, beside its rate with none (the issue holds the first to 90% of the second).

Stage: bench. The processes and settings of `avadata up` (and of a deployment): `avadata serve`
delivers (it holds the store's delivery lease; a following `avadata index` leaves it to serve),
`avadata index` backfills and follows, both with their default settings. An anvil holds N blocks
of TRANSFERS_PER_BLOCK transfers between two accounts (a block of a busy chain, so that the
backfill lasts long enough to be measured); every webhook watches both, so every transfer is a
message to each of them. `serve` starts first, with the webhooks made from block 0, and holds
the lease before `index` starts: from the indexer's first commit on, every webhook has messages
waiting, and the worker delivers as fast as it can while the rest of the backfill is written.
The window runs from the first commit the store shows to the last block; its blocks per second,
the messages POSTed in it and the CPU-seconds each process (index with its fetch process; serve)
spent in it are the result. A window under half the chain (most of it in the first commit) is
flagged: give more blocks. The receiver runs in this process at nice 19 (a production one runs
elsewhere: here it takes what is left).
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil

from avadata.bench.events import CHAIN_ID, Stamps, free_port, rpc_call, start_receiver
from avadata.devnet.evm.anvil import AnvilOptions, start_anvil
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.types import Engine
from avadata.store.webhooks import events as stored_events
from avadata.store.webhooks import lease, registry

TRANSFERS_PER_BLOCK = 20


@dataclass(frozen=True)
class Ingest:
    """One backfill: the blocks in the window and their rate, with `hooks` webhooks delivering
    every block meanwhile; the messages POSTed in the window; CPU-seconds in it by process."""

    hooks: int
    blocks: int
    chain: int
    blocks_per_s: float
    messages: int
    cpu_index: float
    cpu_serve: float

    @property
    def valid(self) -> bool:
        """The window covers at least half the chain."""
        return self.blocks * 2 >= self.chain


def _fill(rpc: str, blocks: int) -> tuple[tuple[str, str], int]:
    """A chain of `blocks` blocks of TRANSFERS_PER_BLOCK transfers each between the first two
    accounts, mined one batch at a time: (both accounts, the last block)."""
    accounts = rpc_call(rpc, "eth_accounts", [])
    sender, to = str(accounts[0]).lower(), str(accounts[1]).lower()
    # Explicit nonces: anvil handles a batch's sends concurrently and would give some the same.
    nonce = int(rpc_call(rpc, "eth_getTransactionCount", [sender, "pending"]), 16)
    mine = {"jsonrpc": "2.0", "id": 0, "method": "evm_mine", "params": []}
    with httpx.Client(timeout=120) as client:
        for _ in range(blocks):
            sends = [
                {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "eth_sendTransaction",
                    "params": [{"from": sender, "to": to, "value": "0x1", "nonce": hex(nonce + i)}],
                }
                for i in range(TRANSFERS_PER_BLOCK)
            ]
            answers = client.post(rpc, json=sends).json()
            if any("error" in a for a in answers):
                raise RuntimeError(f"anvil refused a transfer: {answers}")
            nonce += TRANSFERS_PER_BLOCK
            client.post(rpc, json=mine).raise_for_status()
    return (sender, to), int(rpc_call(rpc, "eth_blockNumber", []), 16)


def _store(folder: Path, watched: tuple[str, ...], url: str, hooks: int) -> str:
    """A migrated store holding `hooks` webhooks of `watched`, from block 0."""
    db = f"sqlite:///{folder / 'events.db'}"
    engine = make_engine(db)
    try:
        migrate(engine)
        new = registry.NewWebhook(
            "address_activity", CHAIN_ID, url, "", "", False, False, (), watched
        )
        for i in range(hooks):
            registry.create(engine, "bench", new, f"bench-{i:05d}")
    finally:
        engine.dispose()
    return db


def _start(folder: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "avadata", *args],
        stdout=(folder / f"{args[0]}.log").open("wb"),
        stderr=subprocess.STDOUT,
    )


def _end(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _serving(api: str, db: str, hooks: int, serve: subprocess.Popen[bytes]) -> None:
    """Until serve answers and, with webhooks, holds the delivery lease."""
    reader = make_engine(db, read_only=True)
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if serve.poll() is not None:
                raise RuntimeError("avadata serve exited (see serve.log beside the store)")
            try:
                up = httpx.get(f"{api}/v1/chains", timeout=1).status_code == 200
            except httpx.HTTPError:
                up = False
            if up and (hooks == 0 or lease.holder(reader, lease.DELIVERY) is not None):
                return
            time.sleep(0.1)
    finally:
        reader.dispose()
    raise RuntimeError("avadata serve did not come up in 120 s")


def _cpu(proc: subprocess.Popen[bytes]) -> float:
    """CPU-seconds (user and system) of `proc` and its live descendants so far."""
    total = 0.0
    try:
        root = psutil.Process(proc.pid)
        for p in [root, *root.children(recursive=True)]:
            times = p.cpu_times()
            total += times.user + times.system
    except psutil.Error:
        pass
    return total


Mark = tuple[int, float, float, float]  # head, time, index CPU-s, serve CPU-s


def _watch(
    reader: Engine, last: int, index: subprocess.Popen[bytes], serve: subprocess.Popen[bytes]
) -> tuple[Mark, Mark]:
    """(head, time, CPU-s of index, of serve) when the store first shows an indexed head, and
    when it reaches `last`."""
    first: Mark | None = None
    deadline = time.monotonic() + 1200
    while time.monotonic() < deadline:
        if index.poll() is not None or serve.poll() is not None:
            raise RuntimeError("avadata index or serve exited (see the logs beside the store)")
        with reader.connect() as conn:
            head = stored_events.indexed_head(conn, CHAIN_ID)
        if head is not None:
            mark = (head, time.time(), _cpu(index), _cpu(serve))
            first = first or mark
            if head >= last:
                return first, mark
        time.sleep(0.02)
    raise RuntimeError(f"the indexer did not reach block {last} in 1200 s")


def ingest(blocks: int, hooks: int, poll: float) -> Ingest:
    """Backfill `blocks` blocks with `avadata index` while `avadata serve` delivers each block
    to `hooks` webhooks (module doc)."""
    stamps = Stamps(latency=False)
    path = f"/hook/{secrets.token_hex(8)}"
    receiver = start_receiver(stamps, path)
    hook_url = f"http://127.0.0.1:{receiver.server_address[1]}{path}"
    anvil = start_anvil(AnvilOptions(chain_id=CHAIN_ID))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            watched, last = _fill(anvil.rpc_url, blocks)
            db = _store(Path(tmp), watched, hook_url, hooks)
            port = free_port()
            serve = _start(Path(tmp), "serve", "--db", db, "--port", str(port))
            try:
                _serving(f"http://127.0.0.1:{port}", db, hooks, serve)
                rpc = ["--rpc", anvil.rpc_url]
                index = _start(Path(tmp), "index", *rpc, "--db", db, "--poll", str(poll))
                reader = make_engine(db, read_only=True)
                try:
                    a, b = _watch(reader, last, index, serve)
                finally:
                    reader.dispose()
                    _end(index)
            finally:
                _end(serve)
    finally:
        anvil.stop()
    receiver.shutdown()
    with stamps.lock:
        during = sum(1 for at in stamps.posts if a[1] <= at <= b[1])
    seconds = b[1] - a[1]
    rate = (b[0] - a[0]) / seconds if seconds > 0 else 0.0
    return Ingest(hooks, b[0] - a[0], last, rate, during, b[2] - a[2], b[3] - a[3])


def rows(runs: tuple[Ingest, ...]) -> list[str]:
    """The ingest runs' table, and the rate with webhooks as a share of the rate without."""
    if not runs:
        return []
    out = [
        "| webhooks delivering | blocks in the window (of the chain) | blocks/s "
        "| messages POSTed in the window | CPU-s index (+ fetch) | CPU-s serve |",
        "|---|---|---|---|---|---|",
        *(
            f"| {i.hooks} | {i.blocks} (of {i.chain}) | {i.blocks_per_s:.0f} | {i.messages} "
            f"| {i.cpu_index:.1f} | {i.cpu_serve:.1f} |"
            for i in runs
        ),
        "",
    ]
    base, with_hooks = runs[0], runs[-1]
    if not all(i.valid for i in runs):
        out += [
            "NOT a valid measurement: a window under half the chain (most of it in the first "
            "commit: give more --ingest-blocks).",
            "",
        ]
        return out
    if with_hooks.hooks and not with_hooks.messages:
        out += [
            "No message was POSTed in the window: the deliveries, below the indexer's CPU "
            "priority (AVADATA_WEBHOOK_NICE, default 19), waited for the backfill, which took "
            "the cores.",
            "",
        ]
    if base.blocks_per_s > 0:
        out += [
            f"Ingest with {with_hooks.hooks} webhooks delivering: "
            f"{with_hooks.blocks_per_s / base.blocks_per_s:.0%} of the rate with none "
            f"({with_hooks.messages / max(with_hooks.blocks / with_hooks.blocks_per_s, 1e-9):.0f} "
            "messages/s meanwhile).",
            "",
        ]
    return out
