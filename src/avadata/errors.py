"""The exceptions avadata raises, as one tree:

- AvadataError: base of everything below
  - SourceError: a node could not give us what we asked for
    - RpcTransportError: timeouts, HTTP 429/5xx, truncated JSON (retried with backoff, then raised)
    - RpcError: the node answered with a JSON-RPC error object (not retried)
  - ContinuityError: a block's parentHash does not match the stored previous block (a reorg)
  - ConfigError: a setting the user gave cannot work; its message is the one line the command
    line prints (naming the value and what to do), never a traceback (cli/failures.py);
    exit 2 when the value is malformed, else 1
    - StoreError: the store URL: a folder missing, not a database, no store, a newer schema,
      a PostgreSQL server not answering or a database missing (store/probe.py)
      - NoStore: the database holds no store (yet): `serve` refuses it, `index` creates one
    - PortInUse: a port to listen on is taken
    - WrongChain: the node at a URL is not the chain the store holds
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


class ConfigError(AvadataError):
    """A misconfiguration: `str(exc)` is one line naming the value and what to do.
    `exit_code`: 2 for a value malformed as given (a usage error), else 1."""

    def __init__(self, message: str, *, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class StoreError(ConfigError):
    pass


class NoStore(StoreError):
    pass


class PortInUse(ConfigError):
    pass


class WrongChain(ConfigError):
    pass
