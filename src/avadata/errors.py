"""The exceptions avadata raises, as one tree:

- AvadataError: base of everything below
  - SourceError: a node could not give us what we asked for
    - RpcTransportError: timeouts, HTTP 429/5xx, truncated JSON (retried with backoff, then raised)
    - RpcError: the node answered with a JSON-RPC error object (not retried)
  - ContinuityError: a block's parentHash does not match the stored previous block (a reorg)
"""

from __future__ import annotations

from typing import Any


class AvadataError(Exception):
    pass


class SourceError(AvadataError):
    pass


class RpcTransportError(SourceError):
    pass


class RpcRefused(RpcTransportError):
    """The node's HTTP server refused the request for good (a 4xx other than 408, 425 and 429:
    a wrong path, an API the node does not serve): not retried."""


class RpcError(SourceError):
    def __init__(self, method: str, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{method}: JSON-RPC error {code}: {message}")
        self.method = method
        self.code = code
        self.message = message
        self.data = data


class ContinuityError(AvadataError):
    pass
