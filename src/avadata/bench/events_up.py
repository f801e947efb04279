"""`avadata bench events --up`: how soon a block the node accepted is visible in the Data API,
read from the event stream and POSTed to a webhook, on the stack `avadata up` runs, as it runs it.

Stage: bench. Starts `avadata up` itself (its devnet mining a live block on each chain every
3 s, its indexer following the node facade with its default --poll and its eth_subscribe
through the facade's /ext/bc/<chain>/ws, its `serve` delivering), in a temporary data dir on
free ports, with nothing set but those. Then, `txs` times: just after a live block of the
C-chain, one transfer from an anvil dev account the devnet's traffic never uses goes into the
node's pool, so the next live block holds it. A block's acceptance is the moment the node's
newHeads notification reaches this process (subscribed through the facade as the indexer is,
sources/heads.py); from then a poller asks the Data API for the transaction every 10 ms, an
SSE client (ad hoc filter: the sender) and a webhook's receiver stamp their arrivals.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from avadata.bench import events
from avadata.sources.heads import HeadWatcher
from avadata.store.engine import make_engine
from avadata.store.keys import create_key
from avadata.store.webhooks import events as stored_events

# The chain the transfers go to (the devnet's C-chain).
CHAIN = "C"

NOTE = [
    "Stack: `avadata up` as a user starts it (devnet live blocks every 3 s; `index` with its "
    "default --poll, subscribed to newHeads through the facade's /ext/bc/C/ws; `serve` "
    "delivering; no setting changed); one transfer per live block of the C-chain; a block's "
    "acceptance: the node's newHeads notification through the facade.",
    "",
]


class Heads:
    """The arrival time of each new head's notification, by block number (its own thread)."""

    def __init__(self, rpc_url: str) -> None:
        self.rpc_url = rpc_url
        self.at: dict[int, float] = {}
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self.live = False

    def start(self) -> None:
        threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True).start()

    async def _main(self) -> None:
        watcher = HeadWatcher(self.rpc_url)
        task = asyncio.create_task(watcher.run())
        try:
            while not self.stop.is_set():
                try:
                    await asyncio.wait_for(watcher.moved.wait(), 0.5)
                except TimeoutError:
                    continue
                now = time.time()
                watcher.moved.clear()
                with self.changed:
                    self.live = watcher.live
                    if watcher.head is not None:
                        self.at.setdefault(watcher.head, now)
                    self.changed.notify_all()
        finally:
            task.cancel()

    def next_after(self, number: int, timeout: float) -> int:
        """The first head above `number` (waits for it)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                above = [n for n in self.at if n > number]
                if above:
                    return min(above)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"no block after {number} within {timeout:.0f} s")
                self.changed.wait(left)


def run(txs: int) -> events.Result:
    stamps = events.Stamps()
    path = f"/hook/{secrets.token_hex(8)}"
    receiver = events.start_receiver(stamps, path)
    hook_url = f"http://127.0.0.1:{receiver.server_address[1]}{path}"
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as tmp:
        port, node_port = events.free_port(), events.free_port()
        up = _start_up(Path(tmp), port, node_port)
        try:
            api, node = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{node_port}"
            rpc, chain_id = _c_chain(node, up)
            db = f"sqlite:///{Path(tmp) / 'avadata.db'}"
            _caught_up(db, chain_id, rpc, up)
            key = _key(db)
            accounts = events.rpc_call(rpc, "eth_accounts", [])
            sender, to = str(accounts[-1]).lower(), str(accounts[-2]).lower()
            events._hooks(api, key, hook_url, sender, 1, chain_id)
            args = (api, key, sender, stamps, stop, chain_id)
            threading.Thread(target=events._stream, args=args, daemon=True).start()
            heads = Heads(rpc)
            heads.start()
            _rounds(txs, rpc, api, key, chain_id, (sender, to), heads, stamps)
            events._wait_all(stamps, txs, time.time() + 10)
            stop.set()
            heads.stop.set()
        finally:
            _stop_up(up)
    receiver.shutdown()
    return events.Result(
        txs,
        1,
        events._lags(stamps.accepted, stamps.webhook),
        events._lags(stamps.accepted, stamps.stream),
        events._lags(stamps.accepted, stamps.api),
        len(stamps.posts),
        0.0,
    )


def _rounds(
    txs: int,
    rpc: str,
    api: str,
    key: str,
    chain_id: int,
    pair: tuple[str, str],
    heads: Heads,
    stamps: events.Stamps,
) -> None:
    """`txs` transfers, one per live block: each sent just after a block (the first after
    the first block seen; then once the last one is visible, well inside a live interval),
    stamped when the next block, which holds it, is announced, then looked for in the Data
    API."""
    last = heads.next_after(-1, 30)
    for _ in range(txs):
        tx = str(events.rpc_call(rpc, "eth_sendTransaction", [{"from": pair[0], "to": pair[1]}]))
        last = heads.next_after(last, 30)
        receipt = events.rpc_call(rpc, "eth_getTransactionReceipt", [tx])
        block = None if receipt is None else int(receipt["blockNumber"], 16)
        if block is None or block not in heads.at:
            continue  # not in the announced block: not measured (the report's "seen" says so)
        stamps.accepted[tx.lower()] = heads.at[block]
        deadline = time.time() + 30
        events._poll_api(api, tx.lower(), stamps, deadline, chain_id, key)


def _start_up(folder: Path, port: int, node_port: int) -> subprocess.Popen[bytes]:
    """`avadata up` as a user starts it (its own process group: stopped as Ctrl-C would)."""
    args = ["up", "--data-dir", str(folder), "--port", str(port), "--node-port", str(node_port)]
    return subprocess.Popen(
        [sys.executable, "-m", "avadata", *args],
        stdout=(folder / "up.log").open("wb"),
        stderr=subprocess.STDOUT,
        process_group=0,
    )


def _stop_up(up: subprocess.Popen[bytes]) -> None:
    if up.poll() is None:
        up.send_signal(signal.SIGTERM)  # as a service manager stops it (SIGINT may be ignored)
    try:
        up.wait(90)
    except subprocess.TimeoutExpired:
        os.killpg(up.pid, signal.SIGKILL)
        up.wait()


def _alive(up: subprocess.Popen[bytes]) -> None:
    if up.poll() is not None:
        raise RuntimeError(f"avadata up exited ({up.returncode}); see up.log in its data dir")


def _c_chain(node: str, up: subprocess.Popen[bytes]) -> tuple[str, int]:
    """The facade's C-chain RPC URL and chain ID, once the devnet answers."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        _alive(up)
        try:
            listed = httpx.get(f"{node}/ext/devnet/chains", timeout=2).json()
            chain = next(c for c in listed if c["name"] == CHAIN)
            return str(chain["rpc"]), int(chain["chainId"])
        except (httpx.HTTPError, ValueError, StopIteration):
            time.sleep(0.5)
    raise RuntimeError("the devnet did not come up in 600 s")


def _caught_up(db: str, chain_id: int, rpc: str, up: subprocess.Popen[bytes]) -> None:
    """Until the indexer has the node's head of the C-chain (the history backfilled)."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        _alive(up)
        head = int(events.rpc_call(rpc, "eth_blockNumber", []), 16)
        indexed = None
        if Path(db.removeprefix("sqlite:///")).exists():
            reader = make_engine(db, read_only=True)
            try:
                with reader.connect() as conn:
                    indexed = stored_events.indexed_head(conn, chain_id)
            finally:
                reader.dispose()
        if indexed is not None and indexed >= head:
            return
        time.sleep(1)
    raise RuntimeError("the indexer did not catch up with the devnet in 600 s")


def _key(db: str) -> str:
    engine = make_engine(db)
    try:
        return create_key(engine, "bench", None)[0]
    finally:
        engine.dispose()
