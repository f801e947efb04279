"""Webhook delivery end to end: a seeded anvil chain indexed, `avadata serve` delivering to a
flaky receiver (errors, timeouts, slow answers: a real aiohttp server on 127.0.0.1), killed
with SIGKILL in the middle and started again. Every event arrives, none is lost, a repeat
carries the same messageId, the first arrivals come in chain order, and a rewind sends them
again under the same ids. The event stream (`GET /v1/events/stream`) sends the same messages;
a client that comes back with Last-Event-ID gets exactly the events after it.

Truth: which transactions touch the watched addresses, and what each one holds, is read from
the node (blocks, receipts, eth_getLogs, callTracer traces); the signatures are checked by a
second implementation of the documented scheme, written here.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.api.app import create_app
from avadata.indexer.run import RunOptions, index_chains
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.keys import create_key
from tests.metrics.node_facts import TRANSFER, TRANSFER_BATCH, TRANSFER_SINGLE, Node
from tests.support.receiver import Arrival, Receiver, receiving
from tests.support.server import free_port, serving

pytestmark = pytest.mark.e2e

_CALLS = {"CALL", "CALLCODE"}
_CREATES = {"CREATE", "CREATE2"}


# -- the truth, from the node ---------------------------------------------------------------


@dataclass
class NodeTx:
    tx: dict[str, Any]
    receipt: dict[str, Any]
    position: tuple[int, int]
    parties: set[str] = field(default_factory=set)
    transfers: Counter[str] = field(default_factory=Counter)
    internals: int = 0


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:].lower()


def _frames(frame: dict[str, Any], depth: int, tx: NodeTx) -> None:
    if depth > 0:
        tx.internals += 1
        kind = frame.get("type", "").upper()
        value = int(frame.get("value") or "0x0", 16)
        if (kind in _CALLS and value) or kind in _CREATES:
            tx.parties.add(frame["from"].lower())
            if frame.get("to"):
                tx.parties.add(frame["to"].lower())
    for child in frame.get("calls") or []:
        _frames(child, depth + 1, tx)


def node_truth(url: str) -> dict[str, NodeTx]:
    """Every transaction of the chain by hash, with the addresses it touches (the documented
    rule: sender, recipient, transfer parties, token contract, listed internal-call parties)."""
    node = Node(url)
    try:
        head = int(node.call("eth_blockNumber"), 16)
        out: dict[str, NodeTx] = {}
        for lo in range(0, head + 1, 50):
            numbers = list(range(lo, min(head, lo + 49) + 1))
            blocks = node.batch([("eth_getBlockByNumber", [hex(n), True]) for n in numbers])
            receipts = node.batch([("eth_getBlockReceipts", [hex(n)]) for n in numbers])
            traces = node.batch(
                [("debug_traceBlockByNumber", [hex(n), {"tracer": "callTracer"}]) for n in numbers]
            )
            for b, rs, tr in zip(blocks, receipts, traces, strict=True):
                for i, (t, r, item) in enumerate(zip(b["transactions"], rs, tr, strict=True)):
                    tx = NodeTx(t, r, (int(b["number"], 16), i))
                    tx.parties.add(t["from"].lower())
                    if t.get("to"):
                        tx.parties.add(t["to"].lower())
                    _frames(item["result"], 0, tx)
                    out[t["hash"]] = tx
        for lg in node.call("eth_getLogs", {"fromBlock": "0x0", "toBlock": hex(head)}):
            _transfer_log(lg, out[lg["transactionHash"]])
        return out
    finally:
        node.close()


def _transfer_log(lg: dict[str, Any], tx: NodeTx) -> None:
    topics = [t.lower() for t in lg["topics"]]
    if not topics:
        return
    data = lg["data"][2:]
    if topics[0] == TRANSFER and len(topics) == 3 and len(data) == 64:
        pair, count, kind = (topics[1], topics[2]), 1, "erc20"
    elif topics[0] == TRANSFER and len(topics) == 4 and data == "":
        pair, count, kind = (topics[1], topics[2]), 1, "erc721"
    elif topics[0] == TRANSFER_SINGLE and len(topics) == 4:
        pair, count, kind = (topics[2], topics[3]), 1, "erc1155"
    elif topics[0] == TRANSFER_BATCH and len(topics) == 4:
        # Two uint256[] of one length n: 2 offsets, then each array's length and n words.
        count = (len(data) // 64 - 4) // 2
        pair, kind = (topics[2], topics[3]), "erc1155"
    else:
        return
    tx.parties.update(_topic_address(t) for t in pair)
    tx.parties.add(lg["address"].lower())
    tx.transfers[kind] += count


def pick_addresses(truth: dict[str, NodeTx]) -> list[str]:
    """A few addresses whose transactions add up to a delivery of moderate size."""
    per: Counter[str] = Counter()
    for tx in truth.values():
        per.update(tx.parties)
    chosen: list[str] = []
    total: set[str] = set()
    for address, count in sorted(per.items(), key=lambda kv: (-kv[1], kv[0])):
        if count > 60 or len(total) >= 60:
            continue
        chosen.append(address)
        total |= {h for h, tx in truth.items() if address in tx.parties}
    return chosen


# -- the signature, a second implementation ---------------------------------------------------


def jcs(value: Any) -> str:
    """RFC 8785 for what the messages hold (objects, arrays, strings, integers, booleans,
    null), written out by hand rather than through json.dumps' options."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-16-be"))
    return "{" + ",".join(f"{jcs(k)}:{jcs(v)}" for k, v in items) + "}"


def verify(secret_hex: str, raw: bytes, headers: dict[str, str]) -> None:
    key = bytes.fromhex(secret_hex)
    text = jcs(json.loads(raw)).encode()
    assert raw == text  # the body is the canonical JSON: raw-body verifiers agree too
    expected = base64.b64encode(hmac.new(key, text, hashlib.sha256).digest()).decode()
    assert hmac.compare_digest(headers["x-signature"], expected)
    ts = headers["x-avadata-timestamp"]
    assert abs(int(ts) - time.time()) < 600
    timed = hmac.new(key, ts.encode() + b"." + text, hashlib.sha256).digest()
    assert hmac.compare_digest(headers["x-avadata-signature"], base64.b64encode(timed).decode())


# -- the flaky receiver -----------------------------------------------------------------------


def flaky(n: int, _message: dict[str, Any]) -> int | tuple[str, float, int]:
    """503 to every 5th request, every 7th held past the sender's timeout (then a 200 nobody
    reads), every 4th answered slowly but in time."""
    if n % 5 == 2:
        return 503
    if n % 7 == 3:
        return ("sleep", 1.5, 200)
    if n % 4 == 1:
        return ("sleep", 0.2, 200)
    return 200


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    with receiving(flaky) as got:
        yield got


# -- the server -------------------------------------------------------------------------------


def _serve(db: str, port: int, log: Any = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    env = dict(
        os.environ,
        AVADATA_WEBHOOK_TIMEOUT_S="0.5",
        AVADATA_WEBHOOK_RETRY_BASE_S="0.05",
        AVADATA_WEBHOOK_RETRY_MAX_S="0.4",
        AVADATA_WEBHOOK_POLL_S="0.05",
    )
    cmd = [sys.executable, "-m", "avadata", "serve", "--db", db, "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "avadata serve exited"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("avadata serve did not start")


def _wait(until: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def indexed(devnet_chain, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, str, str]:
    db = f"sqlite:///{tmp_path_factory.mktemp('hooks') / 'hooks.db'}"
    engine = make_engine(db)
    from avadata.store.migrate import migrate

    migrate(engine)
    asyncio.run(
        index_chains(engine, [devnet_chain.rpc_url], RunOptions(once=True, chunk_blocks=50))
    )
    key, _ = create_key(engine, "hooks", None)
    engine.dispose()
    return devnet_chain, db, key


def test_every_event_arrives_through_faults_and_a_kill(indexed, receiver) -> None:
    chain, db, key = indexed
    rec, hook_url = receiver
    truth = node_truth(chain.rpc_url)
    watched = pick_addresses(truth)
    expected = {h for h, tx in truth.items() if tx.parties & set(watched)}
    assert len(expected) >= 20, (watched, len(expected))

    port = free_port()
    api = f"http://127.0.0.1:{port}"
    headers = {"x-glacier-api-key": key}
    proc = _serve(db, port)
    try:
        body = {
            "eventType": "address_activity",
            "url": hook_url,
            "chainId": str(chain.chain_id),
            "includeInternalTxs": True,
            "includeLogs": True,
            "metadata": {"addresses": watched},
        }
        made = httpx.post(f"{api}/v1/webhooks", json=body, headers=headers)
        assert made.status_code == 201, made.text
        wid = made.json()["id"]
        secret = httpx.get(f"{api}/v1/webhooks:getSharedSecret", headers=headers).json()["secret"]
        # A new webhook reports what comes after the indexed head; reach back to the start.
        r = httpx.post(f"{api}/v1/webhooks/{wid}/rewind", json={"blockNumber": 0}, headers=headers)
        assert r.status_code == 200, r.text

        _wait(lambda: len(rec.hashes()) >= len(expected) // 3, 120, "a third of the events")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        killed_at = len(rec.hashes())
        assert killed_at < len(expected), "the kill came after the last event"
        log_path = Path(db.removeprefix("sqlite:///")).with_suffix(".log")
        proc = _serve(db, port, log_path.open("wb"))
        try:
            _wait(lambda: rec.hashes() >= expected, 120, "every event after the restart")
        except AssertionError:
            missing = sorted(truth[h].position for h in expected - rec.hashes())
            log = log_path.read_text()[-2000:]
            msg = f"{len(missing)} of {len(expected)} missing: {missing[:8]}\n{log}"
            raise AssertionError(msg) from None
        time.sleep(0.5)  # nothing else may come

        arrivals = list(rec.answered)
        assert rec.hashes() == expected
        _check_ids_order_and_signatures(arrivals, truth, wid, secret)
        for a in arrivals:
            _check_against_the_node(a.message, truth, chain.chain_id)

        # A rewind sends the events of the later blocks again, under the same messageIds.
        ids = {
            a.message["event"]["transaction"]["txHash"]: a.message["messageId"] for a in arrivals
        }
        last_block = max(truth[h].position[0] for h in expected)
        again = {h for h in expected if truth[h].position[0] >= last_block - 50}
        before = len(rec.answered)
        r = httpx.post(
            f"{api}/v1/webhooks/{wid}/rewind",
            json={"blockNumber": last_block - 50},
            headers=headers,
        )
        assert r.status_code == 200
        _wait(
            lambda: (
                {a.message["event"]["transaction"]["txHash"] for a in rec.answered[before:]}
                >= again
            ),
            60,
            "the rewind",
        )
        for a in rec.answered[before:]:
            assert a.message["messageId"] == ids[a.message["event"]["transaction"]["txHash"]]
    finally:
        proc.kill()
        proc.wait(10)


def _check_ids_order_and_signatures(
    arrivals: list[Arrival], truth: dict[str, NodeTx], wid: str, secret: str
) -> None:
    by_hash: dict[str, str] = {}
    firsts: list[tuple[int, int]] = []
    for a in arrivals:
        msg = a.message
        assert msg["webhookId"] == wid and msg["eventType"] == "address_activity"
        h = msg["event"]["transaction"]["txHash"]
        if h in by_hash:
            assert by_hash[h] == msg["messageId"]  # a repeat carries the same id
        else:
            by_hash[h] = msg["messageId"]
            firsts.append(truth[h].position)
        verify(secret, a.raw, a.headers)
    assert firsts == sorted(firsts)  # first arrivals in chain order
    assert len(set(by_hash.values())) == len(by_hash)  # one id per transaction


def _check_against_the_node(msg: dict[str, Any], truth: dict[str, NodeTx], chain_id: int) -> None:
    got = msg["event"]["transaction"]
    node = truth[got["txHash"]]
    t, r = node.tx, node.receipt
    assert got["blockHash"] == t["blockHash"]
    assert got["blockNumber"] == str(int(t["blockNumber"], 16))
    assert got["transactionIndex"] == int(t["transactionIndex"], 16)
    assert got["from"] == t["from"].lower()
    assert got["to"] == (t["to"] or "").lower()
    assert got["value"] == str(int(t["value"], 16))
    assert got["nonce"] == str(int(t["nonce"], 16))
    assert got["gas"] == str(int(t["gas"], 16))
    assert got["type"] == int(t["type"], 16)
    assert got["txStatus"] == str(int(r["status"], 16))
    assert got["receiptGasUsed"] == str(int(r["gasUsed"], 16))
    assert got["gasPrice"] == str(int(r["effectiveGasPrice"], 16))
    assert got["chainId"] == str(chain_id)
    assert got["input"] == (t["input"][:10] if len(t["input"]) >= 10 else "0x")
    for kind in ("erc20", "erc721", "erc1155"):
        assert len(got[f"{kind}Transfers"]) == node.transfers[kind], kind
        for x in got[f"{kind}Transfers"]:
            assert x["type"] == kind.upper() and x[f"{kind}Token"]["address"]
    transfers = got["erc20Transfers"] + got["erc721Transfers"] + got["erc1155Transfers"]
    assert all(x["transactionHash"] == got["txHash"] for x in transfers)
    assert len(got["internalTransactions"]) == node.internals
    assert len(msg["event"]["logs"]) == len(r["logs"])
    assert [lg["logIndex"] for lg in msg["event"]["logs"]] == [
        int(lg["logIndex"], 16) for lg in r["logs"]
    ]


# -- the event stream ---------------------------------------------------------------------


def _read(
    client: httpx.Client, url: str, count: int, headers: dict[str, str]
) -> list[tuple[str, Any]]:
    """The first `count` events of the stream at `url`, as (id, message); then disconnect."""
    out: list[tuple[str, Any]] = []
    event_id, data = "", ""
    with client.stream("GET", url, headers=headers) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if line.startswith("id: "):
                event_id = line[4:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line == "" and data:
                out.append((event_id, json.loads(data)))
                data = ""
                if len(out) == count:
                    break
    return out


def test_stream_resumes_after_a_disconnect(indexed) -> None:
    chain, db, _key = indexed
    truth = node_truth(chain.rpc_url)
    watched = pick_addresses(truth)
    expected = sorted((tx.position, h) for h, tx in truth.items() if tx.parties & set(watched))
    settings = Settings(db_url=db, page_token_secret="stream-secret-0123456", webhook_poll_s=0.05)
    query = f"chainId={chain.chain_id}&addresses={','.join(watched)}&fromBlock=0"
    with serving(create_app(settings)) as base, httpx.Client(timeout=30) as client:
        url = f"{base}/v1/events/stream?{query}"
        first = _read(client, url, len(expected) // 2, {})
        rest = _read(client, url, len(expected) - len(first), {"Last-Event-ID": first[-1][0]})
        got = first + rest
        assert [m["event"]["transaction"]["txHash"] for _, m in got] == [h for _, h in expected]
        assert [i for i, _ in got] == [f"{b}-{t}" for (b, t), _ in expected]
        for _, m in got:
            assert m["eventType"] == "address_activity"
            tx = m["event"]["transaction"]
            assert int(tx["blockNumber"]) == truth[tx["txHash"]].position[0]
        bad = client.get(f"{base}/v1/events/stream?{query}", headers={"Last-Event-ID": "x"})
        assert bad.status_code == 400 and bad.json()["message"].startswith("Last-Event-ID:")
        none = client.get(f"{base}/v1/events/stream?addresses={watched[0]}")
        assert none.status_code == 400 and none.json()["message"].startswith("chainId:")
