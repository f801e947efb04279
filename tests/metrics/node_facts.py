"""Oracle facts read straight from a node over JSON-RPC: blocks with transactions, receipts,
eth_getLogs and debug_traceBlockByNumber (callTracer). Nothing from avadata's decode, store or
metrics is used, so the devnet test compares the API with the node itself.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.metrics.oracle import OBlock, OTx

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
CREATE_OPS = {"CREATE", "CREATE2", "CREATE3"}


def _topic_address(topic: str) -> str:
    return "0x" + topic[-40:].lower()


class Node:
    def __init__(self, url: str) -> None:
        self.url = url
        self.http = httpx.Client(timeout=60)
        self._id = 0

    def close(self) -> None:
        self.http.close()

    def batch(self, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        body = []
        for method, params in calls:
            self._id += 1
            body.append({"jsonrpc": "2.0", "id": self._id, "method": method, "params": params})
        answers = {a["id"]: a for a in self.http.post(self.url, json=body).json()}
        out = []
        for call in body:
            a = answers[call["id"]]
            if "error" in a:
                raise RuntimeError(f"{call['method']}: {a['error']}")
            out.append(a["result"])
        return out

    def call(self, method: str, *params: Any) -> Any:
        return self.batch([(method, list(params))])[0]


def facts(url: str, chain_id: int) -> list[OBlock]:
    """Every block 0..head of the node at `url` as oracle facts."""
    node = Node(url)
    try:
        head = int(node.call("eth_blockNumber"), 16)
        out: list[OBlock] = []
        for lo in range(0, head + 1, 50):
            numbers = list(range(lo, min(head, lo + 49) + 1))
            blocks = node.batch([("eth_getBlockByNumber", [hex(n), True]) for n in numbers])
            receipts = node.batch([("eth_getBlockReceipts", [hex(n)]) for n in numbers])
            traces = node.batch(
                [("debug_traceBlockByNumber", [hex(n), {"tracer": "callTracer"}]) for n in numbers]
            )
            for n, b, rs, tr in zip(numbers, blocks, receipts, traces, strict=True):
                ob = OBlock(chain_id, n, int(b["timestamp"], 16))
                by_hash = {r["transactionHash"]: r for r in rs}
                for t in b["transactions"]:
                    r = by_hash[t["hash"]]
                    ob.txs.append(
                        OTx(
                            sender=t["from"].lower(),
                            to=t["to"].lower() if t.get("to") else None,
                            gas_used=int(r["gasUsed"], 16),
                            gas_price=int(r["effectiveGasPrice"], 16),
                        )
                    )
                for item in tr:
                    _creators(item["result"], False, ob.creators)
                out.append(ob)
        by_number = {b.number: b for b in out}
        logs = node.call("eth_getLogs", {"fromBlock": "0x0", "toBlock": hex(head)})
        for lg in logs:
            pair = _transfer(lg)
            if pair is not None:
                by_number[int(lg["blockNumber"], 16)].transfers.append(pair)
        return out
    finally:
        node.close()


def _transfer(lg: dict[str, Any]) -> tuple[str, str] | None:
    """(from, to) of an ERC-20/721 Transfer or an ERC-1155 TransferSingle/Batch log."""
    topics = [t.lower() for t in lg["topics"]]
    data = lg["data"][2:]
    if not topics:
        return None
    if topics[0] == TRANSFER and len(topics) == 3 and len(data) == 64:  # ERC-20
        return _topic_address(topics[1]), _topic_address(topics[2])
    if topics[0] == TRANSFER and len(topics) == 4 and data == "":  # ERC-721
        return _topic_address(topics[1]), _topic_address(topics[2])
    if topics[0] in (TRANSFER_SINGLE, TRANSFER_BATCH) and len(topics) == 4:
        return _topic_address(topics[2]), _topic_address(topics[3])
    return None


def _creators(frame: dict[str, Any], failed: bool, out: list[str]) -> None:
    """`from` of every CREATE* frame that did not revert (nor any ancestor)."""
    failed = failed or bool(frame.get("error"))
    if frame.get("type", "").upper() in CREATE_OPS and not failed:
        out.append(frame["from"].lower())
    for child in frame.get("calls") or []:
        _creators(child, failed, out)
