"""A small synchronous JSON-RPC client for driving the devnet's own nodes.

Stage: devnet. Not the indexer's client (that lives in avadata.sources, with retries and
backoff): this one talks to an anvil on loopback that we started, so any error is a bug and
is raised at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx


class RpcError(RuntimeError):
    """A JSON-RPC error answer; `code` and `data` as the node sent them."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        self.code = error.get("code")
        self.data = error.get("data")
        super().__init__(f"{method}: {error.get('message')} (code {self.code})")


class Rpc:
    """JSON-RPC 2.0 over one keep-alive HTTP connection."""

    def __init__(self, url: str, timeout: float = 120.0) -> None:
        self.url = url
        self._client = httpx.Client(timeout=timeout)
        self._next_id = 1

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Rpc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(self, method: str, params: Sequence[Any] = ()) -> Any:
        """One request; returns `result`, raises RpcError on an error answer."""
        return self.batch([(method, params)])[0]

    def batch(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        """Many requests in one HTTP POST; results in the order of `calls`.

        Raises RpcError for the first call that failed (the others may have taken effect).
        """
        if not calls:
            return []
        first = self._next_id
        self._next_id += len(calls)
        body = [
            {"jsonrpc": "2.0", "id": first + i, "method": m, "params": list(p)}
            for i, (m, p) in enumerate(calls)
        ]
        response = self._client.post(self.url, json=body)
        response.raise_for_status()
        answers = response.json()
        if isinstance(answers, dict):  # a node may answer a whole batch with one error object
            raise RpcError(calls[0][0], answers.get("error") or {"message": str(answers)})
        # Answers to a batch may come in any order (JSON-RPC 2.0, section 6): match by id.
        by_id = {a["id"]: a for a in answers}
        results = []
        for i, (method, _params) in enumerate(calls):
            answer = by_id[first + i]
            if "error" in answer:
                raise RpcError(method, answer["error"])
            results.append(answer.get("result"))
        return results
