"""Ask the node directly: the independent truth e2e tests compare our store with."""

from __future__ import annotations

from typing import Any

import httpx
from eth_abi.abi import decode, encode
from eth_utils.abi import event_signature_to_log_topic

TRANSFER = "0x" + event_signature_to_log_topic("Transfer(address,address,uint256)").hex()
SINGLE = (
    "0x"
    + event_signature_to_log_topic("TransferSingle(address,address,address,uint256,uint256)").hex()
)
BATCH = (
    "0x"
    + event_signature_to_log_topic(
        "TransferBatch(address,address,address,uint256[],uint256[])"
    ).hex()
)


class Node:
    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(timeout=60)
        self._id = 0

    def call(self, method: str, params: list[Any]) -> Any:
        self._id += 1
        r = self.client.post(
            self.url, json={"jsonrpc": "2.0", "id": self._id, "method": method, "params": params}
        )
        body = r.json()
        if "error" in body:
            raise RuntimeError(f"{method}: {body['error']}")
        return body["result"]

    def batch(self, calls: list[tuple[str, list[Any]]]) -> list[Any]:
        out: list[Any] = []
        for i in range(0, len(calls), 200):
            part = calls[i : i + 200]
            payload = [
                {"jsonrpc": "2.0", "id": j, "method": m, "params": p}
                for j, (m, p) in enumerate(part)
            ]
            answers = sorted(self.client.post(self.url, json=payload).json(), key=lambda a: a["id"])
            for a in answers:
                if "error" in a:
                    raise RuntimeError(str(a["error"]))
                out.append(a["result"])
        return out

    def head(self) -> int:
        return int(self.call("eth_blockNumber", []), 16)

    def blocks(self, last: int, full: bool = False) -> list[dict[str, Any]]:
        return self.batch([("eth_getBlockByNumber", [hex(n), full]) for n in range(last + 1)])

    def token_transfers(self, last: int) -> set[tuple[Any, ...]]:
        """(block, logIndex, batchIndex, token, from, to, tokenId, value) for every transfer log."""
        logs = self.call(
            "eth_getLogs",
            [{"fromBlock": "0x0", "toBlock": hex(last), "topics": [[TRANSFER, SINGLE, BATCH]]}],
        )
        out: set[tuple[Any, ...]] = set()
        for lg in logs:
            t = lg["topics"]
            key = (int(lg["blockNumber"], 16), int(lg["logIndex"], 16))
            token = lg["address"].lower()
            data = bytes.fromhex(lg["data"][2:])
            addr = lambda x: "0x" + x[-40:].lower()  # noqa: E731
            if t[0] == TRANSFER and len(t) == 3:
                out.add((*key, 0, token, addr(t[1]), addr(t[2]), None, int.from_bytes(data, "big")))
            elif t[0] == TRANSFER and len(t) == 4:
                out.add((*key, 0, token, addr(t[1]), addr(t[2]), int(t[3], 16), 1))
            elif t[0] == SINGLE:
                tid, val = decode(["uint256", "uint256"], data)
                out.add((*key, 0, token, addr(t[2]), addr(t[3]), tid, val))
            elif t[0] == BATCH:
                ids, vals = decode(["uint256[]", "uint256[]"], data)
                for i, (tid, val) in enumerate(zip(ids, vals, strict=True)):
                    out.add((*key, i, token, addr(t[2]), addr(t[3]), tid, val))
        return out

    def balance_of(self, token: str, holder: str, block: int) -> int:
        data = "0x70a08231" + encode(["address"], [holder]).hex()
        return int(self.call("eth_call", [{"to": token, "data": data}, hex(block)]), 16)

    def native_balance(self, address: str, block: int) -> int:
        return int(self.call("eth_getBalance", [address, hex(block)]), 16)
