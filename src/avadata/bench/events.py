"""`avadata bench events`: how soon an accepted block reaches a webhook's receiver, the event
stream and the Data API, and how many webhook messages a second one store delivers.

Stage: bench. Runs what `avadata up` runs, as processes: an anvil that mines each sent
transaction into a block at once (live blocks), `avadata index` following it and `avadata
serve`. A receiver on 127.0.0.1 (standard library, its own thread) stamps each POST's arrival,
an SSE client stamps each stream event, a poller stamps the Data API's first 200 for the tx.
Then `txs` transfers are sent one every `interval` seconds; a block's acceptance is the first
moment its receipt answers (polled every 5 ms, so latencies read at most that much short).
With `hooks` > 1 every extra webhook watches the same sender: the messages per second they all
get is the delivery throughput. What the deliveries cost the ingest is events_ingest.py's;
the same latencies on the stack `avadata up` runs, events_up.py's.
"""

from __future__ import annotations

import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from avadata.devnet.evm.anvil import AnvilOptions, start_anvil
from avadata.store.engine import make_engine
from avadata.store.keys import create_key
from avadata.store.migrate import migrate

CHAIN_ID = 99951


@dataclass
class Stamps:
    """Arrival times (time.time()) by tx hash, for each path; POST counts for throughput."""

    accepted: dict[str, float] = field(default_factory=dict)
    webhook: dict[str, float] = field(default_factory=dict)
    stream: dict[str, float] = field(default_factory=dict)
    api: dict[str, float] = field(default_factory=dict)
    posts: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # False: count POSTs only (the ingest runs, where the receiver must cost little).
    latency: bool = True


def start_receiver(stamps: Stamps, path: str) -> ThreadingHTTPServer:
    """A receiver of POSTs to `path` only: a stray sender that reuses a freed port (another
    store's worker retrying its own dead receiver) is not counted."""

    class Handler(BaseHTTPRequestHandler):
        # Keep-alive: a sender's connections are reused, as a production receiver's would be.
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            if self.path != path:
                self._answer(404)
                return
            now = time.time()
            if stamps.latency:
                tx = json.loads(body)["event"]["transaction"]["txHash"]
            with stamps.lock:
                stamps.posts.append(now)
                if stamps.latency:
                    stamps.webhook.setdefault(tx.lower(), now)
            self._answer(200)

        def _answer(self, status: int) -> None:
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            return

    class Server(ThreadingHTTPServer):
        # The standard library's backlog of 5 drops connections a sender opens together (each
        # drop costs the sender a SYN retransmission, a second or more): not the receiver
        # under test.
        request_queue_size = 1024
        daemon_threads = True

    def serve() -> None:
        if not stamps.latency:
            # The ingest runs: a production receiver runs on another machine; here it takes
            # what the indexer and the worker leave (its connections' threads inherit this).
            _lower_this_thread(19)
        server.serve_forever()

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=serve, daemon=True).start()
    return server


def _stream(
    api: str,
    key: str,
    sender: str,
    stamps: Stamps,
    stop: threading.Event,
    chain_id: int = CHAIN_ID,
) -> None:
    try:
        _read_stream(api, key, sender, stamps, stop, chain_id)
    except httpx.HTTPError:
        if not stop.is_set():
            raise


def _read_stream(
    api: str, key: str, sender: str, stamps: Stamps, stop: threading.Event, chain_id: int
) -> None:
    params = {"chainId": str(chain_id), "addresses": sender}
    with httpx.stream(
        "GET",
        f"{api}/v1/events/stream",
        params=params,
        headers={"x-glacier-api-key": key},
        timeout=None,
    ) as answer:
        for line in answer.iter_lines():
            if stop.is_set():
                return
            if line.startswith("data:"):
                tx = json.loads(line[5:])["event"]["transaction"]["txHash"]
                with stamps.lock:
                    stamps.stream.setdefault(tx.lower(), time.time())


def _poll_api(
    api: str,
    tx: str,
    stamps: Stamps,
    deadline: float,
    chain_id: int = CHAIN_ID,
    key: str | None = None,
) -> None:
    url = f"{api}/v1/chains/{chain_id}/transactions/{tx}"
    headers = {} if key is None else {"x-glacier-api-key": key}
    with httpx.Client(timeout=5, headers=headers) as client:
        while time.time() < deadline:
            if client.get(url).status_code == 200:
                stamps.api[tx] = time.time()
                return
            time.sleep(0.01)


def rpc_call(url: str, method: str, params: list[object]) -> Any:
    answer = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    return answer.json()["result"]


def _send(rpc: str, sender: str, to: str, api: str, stamps: Stamps) -> threading.Thread:
    """One transfer: its acceptance stamped, and a poller of the Data API started."""
    tx = str(rpc_call(rpc, "eth_sendTransaction", [{"from": sender, "to": to, "value": "0x1"}]))
    while rpc_call(rpc, "eth_getTransactionReceipt", [tx]) is None:
        time.sleep(0.005)
    stamps.accepted[tx.lower()] = time.time()
    poller = threading.Thread(target=_poll_api, args=(api, tx.lower(), stamps, time.time() + 30))
    poller.start()
    return poller


@contextmanager
def _stack(poll: float, folder: Path) -> Iterator[tuple[str, str, str, str]]:
    """anvil, a migrated store with a key, `index` and `serve`: (rpc URL, API URL, key, store
    URL)."""
    anvil = start_anvil(AnvilOptions(chain_id=CHAIN_ID, automine=True))
    db = f"sqlite:///{folder / 'events.db'}"
    engine = make_engine(db)
    migrate(engine)
    key, _ = create_key(engine, "bench", None)
    engine.dispose()
    port = free_port()
    env = dict(os.environ, AVADATA_WEBHOOK_POLL_S="0.05")
    exe = [sys.executable, "-m", "avadata"]
    procs = [
        subprocess.Popen(
            [*exe, "index", "--rpc", anvil.rpc_url, "--db", db, "--poll", str(poll)],
            env=env,
            stdout=(folder / "index.log").open("wb"),
            stderr=subprocess.STDOUT,
        ),
        subprocess.Popen(
            [*exe, "serve", "--db", db, "--port", str(port)],
            env=env,
            stdout=(folder / "serve.log").open("wb"),
            stderr=subprocess.STDOUT,
        ),
    ]
    try:
        api = f"http://127.0.0.1:{port}"
        _wait_up(api, anvil.rpc_url, procs)
        yield anvil.rpc_url, api, key, db
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        anvil.stop()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(api: str, rpc: str, procs: list[subprocess.Popen[bytes]]) -> None:
    """Until the server answers and the chain is in the store (its identity: a webhook's
    chainId must be known)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("avadata index or serve exited (see the logs beside the store)")
        try:
            if httpx.get(f"{api}/v1/chains/{CHAIN_ID}", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the stack did not come up in 120 s")


def _hooks(api: str, key: str, url: str, sender: str, n: int, chain_id: int = CHAIN_ID) -> None:
    headers = {"x-glacier-api-key": key}
    body = {
        "eventType": "address_activity",
        "url": url,
        "chainId": str(chain_id),
        "metadata": {"addresses": [sender]},
    }
    with httpx.Client(timeout=30) as client:
        for _ in range(n):
            made = client.post(f"{api}/v1/webhooks", json=body, headers=headers)
            made.raise_for_status()


@dataclass(frozen=True)
class Result:
    txs: int
    hooks: int
    webhook_ms: list[float]
    stream_ms: list[float]
    api_ms: list[float]
    messages: int
    messages_per_s: float


def run(txs: int, interval: float, hooks: int, poll: float) -> Result:
    stamps = Stamps()
    path = f"/hook/{secrets.token_hex(8)}"
    receiver = start_receiver(stamps, path)
    hook_url = f"http://127.0.0.1:{receiver.server_address[1]}{path}"
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as tmp, _stack(poll, Path(tmp)) as (rpc, api, key, _db):
        accounts = rpc_call(rpc, "eth_accounts", [])
        sender, to = str(accounts[0]).lower(), str(accounts[1]).lower()
        _hooks(api, key, hook_url, sender, hooks)
        threading.Thread(target=_stream, args=(api, key, sender, stamps, stop), daemon=True).start()
        time.sleep(1.0)  # the webhooks and the stream are in place
        t0 = time.time()
        pollers = []
        for _ in range(txs):
            pollers.append(_send(rpc, sender, to, api, stamps))
            time.sleep(interval)
        _wait_all(stamps, txs * hooks, time.time() + 60 + txs * hooks / 100)
        for p in pollers:
            p.join()
        stop.set()
        elapsed = max(stamps.posts) - t0 if stamps.posts else 0.0
    receiver.shutdown()
    return Result(
        txs,
        hooks,
        _lags(stamps.accepted, stamps.webhook),
        _lags(stamps.accepted, stamps.stream),
        _lags(stamps.accepted, stamps.api),
        len(stamps.posts),
        len(stamps.posts) / elapsed if elapsed > 0 else 0.0,
    )


def _wait_all(stamps: Stamps, messages: int, deadline: float) -> None:
    while time.time() < deadline:
        with stamps.lock:
            if len(stamps.posts) >= messages and len(stamps.stream) >= len(stamps.accepted):
                return
        time.sleep(0.05)


def _lags(start: dict[str, float], end: dict[str, float]) -> list[float]:
    return sorted((end[t] - s) * 1000 for t, s in start.items() if t in end)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def report(r: Result, machine: str, command: str, extra: Sequence[str] = ()) -> str:
    """The section of docs/benchmarks.md; `extra`: lines before the machine's (the ingest
    runs' table)."""
    rows = []
    for name, lags in (
        ("block accepted → webhook POST received", r.webhook_ms),
        ("block accepted → SSE event read", r.stream_ms),
        ("block accepted → Data API GET /transactions/{hash} 200", r.api_ms),
    ):
        median = statistics.median(lags) if lags else float("nan")
        rows.append(
            f"| {name} | {len(lags)}/{r.txs} | {median:.0f} | {_pct(lags, 0.99):.0f} "
            f"| {max(lags, default=float('nan')):.0f} |"
        )
    return "\n".join(
        [
            "| path | seen | p50 ms | p99 ms | max ms |",
            "|---|---|---|---|---|",
            *rows,
            "",
            f"Webhooks watching the sender: {r.hooks}; messages received: {r.messages}"
            + (
                f" ({r.messages_per_s:.0f}/s from the first send to the last POST)."
                if r.messages_per_s
                else "."
            ),
            "",
            *extra,
            f"Machine: {machine}",
            "",
            f"Command: `{command}`",
        ]
    )


def _lower_this_thread(nice: int) -> None:
    """The calling thread (and the threads it starts) at `nice` (Linux: a thread's own)."""
    if sys.platform.startswith("linux"):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
