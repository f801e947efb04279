"""The devnet node's Index API over HTTP: contents against an independent run of the simulators,
and every rule and error case of seed 002 and node-rpc.md section 2 (JSON-RPC conformance).

The node here has no C-chain anvil (C/block stays empty: the empty-index errors); the C-chain
containers are covered by test_index_devnet.py.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.decode.codec.ids import cb58_encode
from avadata.decode.codec.proposervm import decode_proposervm
from avadata.devnet.primary.containers import INDEXES, Container
from avadata.devnet.primary.index_store import IndexConfigError
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim
from tests.support.primary_world import served_node

CONFIG = PrimaryConfig(seed=11, start=1_767_225_600, days=12, p_blocks=60, x_blocks=40)
BAD_PARAMS = (
    "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
    "See documentation for example calls"
)
# Go's RFC3339Nano in UTC: fraction without trailing zeros, absent when zero
GO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$")


@pytest.fixture(scope="module")
def truth() -> dict[str, list[Container]]:
    """The same history built again by a separate simulator: what the index must hold."""
    by_index: dict[str, list[Container]] = {name: [] for name in INDEXES}
    for c in PrimarySim(CONFIG).history():
        by_index[c.index].append(c)
    return by_index


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("node")
    node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    node.start()
    with served_node(node) as served:
        yield served


def call(url: str, index: str, method: str, params: Any = None, id_: Any = 1) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        body["params"] = params
    r = httpx.post(f"{url}/ext/index/{index}", json=body)
    assert r.status_code == 200
    answer: dict[str, Any] = r.json()
    return answer


def result(url: str, index: str, method: str, params: Any = None) -> Any:
    answer = call(url, index, method, params)
    assert "error" not in answer, answer
    return answer["result"]


def error(url: str, index: str, method: str, params: Any = None) -> dict[str, Any]:
    answer = call(url, index, method, params)
    assert "result" not in answer, answer
    assert answer["id"] == 1 and answer["jsonrpc"] == "2.0"
    err: dict[str, Any] = answer["error"]
    assert err["data"] is None
    return err


def go_time(ns: int) -> datetime:
    return datetime.fromtimestamp(ns // 1_000_000_000, UTC)


def test_every_index_holds_the_simulated_containers_in_order(
    url: str, truth: dict[str, list[Container]]
) -> None:
    for name in ("P/block", "X/block", "X/tx", "X/vtx"):
        want = truth[name]
        assert want, name
        got: list[dict[str, Any]] = []
        while len(got) < len(want):
            page = result(
                url,
                name,
                "index.getContainerRange",
                {"startIndex": len(got), "numToFetch": 7, "encoding": "hex"},
            )
            got += page["containers"]
        assert [c["index"] for c in got] == [str(i) for i in range(len(want))]
        for c, w in zip(got, want, strict=True):
            raw = bytes.fromhex(c["bytes"][2:])
            assert raw[:-4] == w.bytes and raw[-4:] == hashlib.sha256(w.bytes).digest()[-4:]
            assert c["id"] == cb58_encode(w.id) and c["encoding"] == "hex"
            assert GO_TIME.match(c["timestamp"]), c["timestamp"]
            parsed = datetime.fromisoformat(c["timestamp"].replace("Z", "+00:00"))
            assert parsed.replace(microsecond=0) == go_time(w.accepted_ns)
            frac = c["timestamp"][20:-1] if "." in c["timestamp"] else ""
            assert int((frac + "0" * 9)[:9]) == w.accepted_ns % 1_000_000_000
        last = result(url, name, "index.getLastAccepted", {"encoding": "hex"})
        assert last == got[-1]


def test_lookups_by_index_and_id(url: str, truth: dict[str, list[Container]]) -> None:
    want = truth["P/block"]
    k = len(want) // 2
    cid = cb58_encode(want[k].id)
    for index in (k, str(k), [{"index": k}]):  # a number, a decimal string, the array form
        params = index if isinstance(index, list) else {"index": index}
        c = result(url, "P/block", "index.getContainerByIndex", params)
        assert c["id"] == cid and c["index"] == str(k)
    assert result(url, "P/block", "index.getContainerByID", {"id": cid})["index"] == str(k)
    assert result(url, "P/block", "index.getIndex", {"id": cid}) == {"index": str(k)}
    assert result(url, "P/block", "index.isAccepted", {"id": cid}) == {"isAccepted": True}
    # an ID of another index is not in this one
    other = cb58_encode(truth["X/block"][0].id)
    assert result(url, "P/block", "index.isAccepted", {"id": other}) == {"isAccepted": False}
    assert error(url, "P/block", "index.getIndex", {"id": other})["message"] == "not found"
    assert error(url, "P/block", "index.getContainerByID", {"id": other})["message"] == "not found"


def test_encodings(url: str, truth: dict[str, list[Container]]) -> None:
    w = truth["X/tx"][0]
    for enc in ("hex", "HEX", "hexc", None):
        params = {"index": 0} if enc is None else {"index": 0, "encoding": enc}
        c = result(url, "X/tx", "index.getContainerByIndex", params)
        assert bytes.fromhex(c["bytes"][2:])[:-4] == w.bytes
    c = result(url, "X/tx", "index.getContainerByIndex", {"index": 0, "encoding": "hexnc"})
    assert c["bytes"] == "0x" + w.bytes.hex() and c["encoding"] == "hexnc"
    unsupported = error(url, "X/tx", "index.getContainerByIndex", {"index": 0, "encoding": "json"})
    assert unsupported == {
        "code": -32000,
        "message": "unsupported encoding in method",
        "data": None,
    }
    for bad in ("base64", 5):
        e = error(url, "X/tx", "index.getContainerByIndex", {"index": 0, "encoding": bad})
        assert e["code"] == -32602 and e["message"] == BAD_PARAMS


def test_container_range_rules(url: str, truth: dict[str, list[Container]]) -> None:
    n = len(truth["P/block"])
    last = n - 1

    def rng(start: Any, count: Any) -> Any:
        return call(
            url,
            "P/block",
            "index.getContainerRange",
            {"startIndex": start, "numToFetch": count, "encoding": "hex"},
        )

    assert rng(0, 0)["result"] == {"containers": None}  # seed rule 2
    assert rng(n + 50, 0)["result"] == {"containers": None}
    full = rng(0, 1024)["result"]["containers"]  # the index runs out: what there is (rule 5)
    assert len(full) == n < 1024
    assert [c["index"] for c in rng(last - 1, 1024)["result"]["containers"]] == [
        str(last - 1),
        str(last),
    ]
    assert rng(str(last), "3")["result"]["containers"][0]["index"] == str(last)
    too_many = rng(0, 1025)["error"]
    assert too_many == {
        "code": -32000,
        "data": None,
        "message": "numToFetch must be in [1,1024] but is 1025",
    }
    beyond = rng(n, 1)["error"]
    assert beyond["message"] == f"start index ({n}) > last accepted index ({last})"
    for bad in (-1, 1.5, "x", None, True, 2**64):
        assert rng(bad, 1)["error"]["code"] == -32602, bad
        assert rng(0, bad)["error"]["code"] == -32602, bad


def test_out_of_range_and_empty_index(url: str, truth: dict[str, list[Container]]) -> None:
    n = len(truth["X/block"])
    e = error(url, "X/block", "index.getContainerByIndex", {"index": n})
    assert e == {"code": -32000, "message": f"no container at index {n}", "data": None}
    # no C-chain on this node: the C/block index is empty
    empty = "no containers have been accepted"
    assert error(url, "C/block", "index.getLastAccepted", {})["message"] == empty
    assert (
        error(url, "C/block", "index.getContainerRange", {"startIndex": 0, "numToFetch": 1})[
            "message"
        ]
        == empty
    )
    assert error(url, "C/block", "index.getContainerByIndex", {"index": 0})["message"] == (
        "no container at index 0"
    )


def test_bad_ids_are_invalid_params(url: str, truth: dict[str, list[Container]]) -> None:
    good = cb58_encode(truth["P/block"][0].id)
    for bad in (good[:-1] + ("1" if good[-1] != "1" else "2"), "0OIl", 7, None, good[:20]):
        for method in ("index.getContainerByID", "index.getIndex", "index.isAccepted"):
            e = error(url, "P/block", method, {"id": bad})
            assert e["code"] == -32602 and e["message"] == BAD_PARAMS, (method, bad)


def test_json_rpc_envelope_errors(url: str) -> None:
    post = f"{url}/ext/index/P/block"
    headers = {"content-type": "application/json"}
    r = httpx.post(post, content=b"{not json", headers=headers)
    assert r.status_code == 200 and r.json()["error"]["code"] == -32700
    r = httpx.post(post, json={"jsonrpc": "1.0", "id": 3, "method": "index.getLastAccepted"})
    e = r.json()
    assert e["id"] == 3 and e["error"]["code"] == -32600
    assert e["error"]["message"] == "jsonrpc must be 2.0"
    unknown = call(url, "P/block", "index.getFoo", {})["error"]
    assert unknown == {
        "code": -32601,
        "data": None,
        "message": 'rpc: can\'t find method "index.GetFoo"',
    }
    service = call(url, "P/block", "platform.getHeight", {})["error"]
    assert service["code"] == -32601 and "can't find service" in service["message"]
    upper = call(url, "P/block", "index.GetLastAccepted", {})["error"]
    assert upper["code"] == -32601
    assert upper["message"] == "method must start with a non-uppercase letter"
    wrong_params = call(url, "P/block", "index.getContainerByIndex", ["a", "b"])["error"]
    assert wrong_params["code"] == -32602 and wrong_params["message"] == BAD_PARAMS
    # a notification (no id) gets no body
    r = httpx.post(post, json={"jsonrpc": "2.0", "method": "index.getLastAccepted"})
    assert r.status_code == 200 and r.content == b""
    # transport rules of the node's RPC stack
    assert httpx.get(post).status_code == 405
    r = httpx.post(post, content=b"{}", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    # unknown index or chain: no such endpoint
    for path in ("/ext/index/P/tx", "/ext/index/Q/block", "/ext/index/C/vtx"):
        assert httpx.post(f"{url}{path}", json={}).status_code == 404


def test_batch_mixes_good_and_bad_calls_in_order(url: str) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "index.getLastAccepted", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "index.nope", "params": {}},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "index.getContainerByIndex",
            "params": {"index": "x"},
        },
        {"jsonrpc": "2.0", "method": "index.getLastAccepted", "params": {}},  # notification
        "not a request",
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "index.getContainerRange",
            "params": {"startIndex": 0, "numToFetch": 2},
        },
    ]
    answers = httpx.post(f"{url}/ext/index/X/block", json=batch).json()
    assert [a["id"] for a in answers] == [1, 2, 3, None, 5]
    assert "result" in answers[0] and answers[1]["error"]["code"] == -32601
    assert answers[2]["error"]["code"] == -32602 and answers[3]["error"]["code"] == -32600
    assert [c["index"] for c in answers[4]["result"]["containers"]] == ["0", "1"]
    assert httpx.post(f"{url}/ext/index/X/block", json=[]).json()["error"]["code"] == -32600


def test_index_flags_follow_rules_1_2_3_and_5(tmp_path: Path) -> None:
    small = PrimaryConfig(seed=3, start=CONFIG.start, days=3, p_blocks=8, x_blocks=6)
    clock = [float(CONFIG.start + 4 * 86_400)]  # the node's wall clock, moved by the test

    def node(enabled: bool, allow: bool = False) -> PrimaryNode:
        options = NodeOptions(small, tmp_path, None, enabled, allow, live_interval=60.0)
        return PrimaryNode(options, now=lambda: clock[0])

    first = node(True)
    first.start()
    assert first.index_store() is not None
    count = first.store.count("P/block")
    last_id = first.store.last("P/block")
    assert count > 0 and last_id is not None
    first.stop()
    # rule 5: indexing was on, now off: refuse to start unless incomplete indexes are allowed
    with pytest.raises(IndexConfigError):
        node(False).start()
    clock[0] += 3_600  # down for an hour: the restart accepts the blocks it missed (rule 3)
    off = node(False, allow=True)
    off.start()
    assert off.index_store() is None  # rule 1: no Index API without indexing
    produced_while_off = off.sim.p.state.height
    off.stop()
    # back on: the index is incomplete now, which needs --index-allow-incomplete too
    with pytest.raises(IndexConfigError):
        node(True).start()
    clock[0] += 3_600
    again = node(True, allow=True)
    restarted_ns = time.time_ns()
    again.start()
    store = again.store
    new = store.range("P/block", count, 10_000)
    assert new, "the restart after an hour down indexed nothing"
    # rule 2: the blocks accepted while indexing was off are not in the index: the first
    # container indexed after it does not follow the last one indexed before
    first_new = decode_proposervm(new[0].bytes)
    assert first_new.parent_id != last_id.id
    assert again.sim.p.state.height > produced_while_off
    # rule 4: accepted while bootstrapping, so stamped with the restart's time, not the block's
    for c in new:
        assert c.accepted_ns >= restarted_ns
        assert decode_proposervm(c.bytes).timestamp * 1_000_000_000 < restarted_ns
    again.stop()
