"""JSON-RPC 2.0 over HTTP: batches, a bounded number in flight, timeouts, retry with backoff.

Sources stage: this module only fetches; nothing is parsed beyond JSON.

HTTP is aiohttp's: its C parser reads a multi-megabyte batch answer in a few large pieces,
where httpx (still used for the short requests elsewhere) went through its Python layers for
every 64 KB, at more than twice aiohttp's CPU for the bench chain's answers (docs/benchmarks.md).
It is imported on a client's first request,
not with this module: `avadata index` makes a client per node but, with a fetch process that
already asked the node what it needs (indexer/fetch/guess.py), may never send a request itself,
and aiohttp is a noticeable part of its start.

Retried (with exponential backoff and jitter, up to `max_attempts`): connection errors, timeouts,
HTTP 408, 425, 429 and 5xx (a `Retry-After` header is honoured), and bodies that are not whole
JSON (a proxy that truncates). Not retried: a JSON-RPC error object, which is the node's
considered answer, and any other HTTP 4xx (`RpcRefused`: a wrong path, an API the node lacks).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from avadata.errors import RpcError, RpcRefused, RpcTransportError, SourceError

Call = tuple[str, Sequence[Any] | dict[str, Any]]
_JSON = {"Content-Type": "application/json"}

if TYPE_CHECKING:
    import aiohttp
    import yarl


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_attempts: int = 8
    initial_delay: float = 0.2
    max_delay: float = 10.0
    factor: float = 2.0

    def delay(self, attempt: int) -> float:
        base = min(self.max_delay, self.initial_delay * self.factor**attempt)
        # Full jitter keeps many workers from retrying in lockstep against one node.
        return random.uniform(base / 2, base)


class RpcResult:
    """One call's outcome inside a batch: a result or the node's error."""

    __slots__ = ("method", "result", "error")

    def __init__(self, method: str, result: Any = None, error: dict[str, Any] | None = None):
        self.method = method
        self.result = result
        self.error = error

    def unwrap(self) -> Any:
        if self.error is not None:
            raise RpcError(
                self.method,
                int(self.error.get("code", 0)),
                str(self.error.get("message", "")),
                self.error.get("data"),
            )
        return self.result


class JsonRpcClient:
    def __init__(
        self,
        url: str,
        *,
        timeout: float = 30.0,
        max_in_flight: int = 4,
        max_batch: int = 250,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.url = url
        self.max_batch = max_batch
        self.retry = retry or RetryPolicy()
        self._max_in_flight = max_in_flight
        self._timeout = timeout
        self._semaphore = asyncio.Semaphore(max_in_flight)
        # Made on first use: a session belongs to the event loop it was made in.
        self._session: aiohttp.ClientSession | None = None
        self._proxy: yarl.URL | None = None
        self._proxy_auth: aiohttp.BasicAuth | None = None
        self._closed = False
        self._next_id = 0
        self.retries = 0

    def _http(self) -> aiohttp.ClientSession:
        if self._closed:
            # A request still waiting for its turn when a failed batch closed the client: it
            # must not open a session nobody would close, nor retry (not a transport error).
            raise SourceError(f"{self.url}: the client is closed")
        if self._session is None:
            import aiohttp

            self._proxy, self._proxy_auth = _env_proxy(self.url)
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._max_in_flight),
                timeout=aiohttp.ClientTimeout(total=self._timeout),
            )
        return self._session

    async def aclose(self) -> None:
        self._closed = True
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def __aenter__(self) -> JsonRpcClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def call(self, method: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        (result,) = await self.batch([(method, params)])
        return result.unwrap()

    async def batch(self, calls: Sequence[Call]) -> list[RpcResult]:
        """Send `calls` as JSON-RPC batches of at most `max_batch` (concurrently, bounded by
        `max_in_flight`); results come back in the order of `calls`. Calls a node left
        unanswered for the size of the batch's answer are asked again (`_answer_rest`)."""
        if len(calls) <= self.max_batch:
            return await self._answered(calls)
        parts = await asyncio.gather(
            *(
                self._answered(calls[i : i + self.max_batch])
                for i in range(0, len(calls), self.max_batch)
            )
        )
        return [r for part in parts for r in part]

    async def _answered(self, calls: Sequence[Call]) -> list[RpcResult]:
        return await self._answer_rest(calls, await self._one_batch(calls))

    async def _answer_rest(self, calls: Sequence[Call], got: list[RpcResult]) -> list[RpcResult]:
        """`got` with the calls that a node's cap on a batch's answer cut off asked again.

        Why: geth and avalanchego answer at most 25 MB per batch by default (their
        batch-response-max-size) and give each call past it the error "response too large"
        (-32003); a fetch of a whole chunk of busy blocks in one batch can pass it. Asked on
        their own they fit: the first call of a batch is always answered, so each round
        answers at least one; a call alone is no batch and has no such cap."""
        cut = [i for i, r in enumerate(got) if _too_large(r)]
        if not cut or len(calls) == 1:
            return got
        if len(cut) == len(calls):  # nothing answered (a node that caps differently): halve
            half = len(calls) // 2
            head, tail = await asyncio.gather(
                self._answered(calls[:half]), self._answered(calls[half:])
            )
            return head + tail
        again = await self._answered([calls[i] for i in cut])
        out = list(got)
        for i, r in zip(cut, again, strict=True):
            out[i] = r
        return out

    async def _one_batch(self, calls: Sequence[Call]) -> list[RpcResult]:
        if not calls:
            return []
        first_id = self._next_id
        self._next_id += len(calls)
        payload = [
            {
                "jsonrpc": "2.0",
                "id": first_id + i,
                "method": m,
                "params": list(p) if not isinstance(p, dict) else p,
            }
            for i, (m, p) in enumerate(calls)
        ]
        # One call goes as a plain request object: avalanchego's own services (Index API,
        # platform.*) answer those but refuse any JSON array, even a batch of one.
        body = orjson.dumps(payload[0] if len(payload) == 1 else payload)
        answers = await self._post(body, len(calls))
        by_id: dict[int, dict[str, Any]] = {}
        for a in answers:
            if isinstance(a, dict) and isinstance(a.get("id"), int):
                by_id[a["id"]] = a
        out: list[RpcResult] = []
        for i, (method, _) in enumerate(calls):
            a = by_id.get(first_id + i)
            if a is None:
                out.append(
                    RpcResult(method, error={"code": -32603, "message": "no answer in batch"})
                )
            elif "error" in a and a["error"] is not None:
                out.append(RpcResult(method, error=a["error"]))
            else:
                out.append(RpcResult(method, result=a.get("result")))
        return out

    async def _post(self, body: bytes, expected: int) -> list[Any]:
        import aiohttp  # imported on the first request (the module doc), a lookup after

        last: Exception | None = None
        for attempt in range(self.retry.max_attempts):
            if attempt:
                self.retries += 1
            retry_after: float | None = None
            try:
                async with (
                    self._semaphore,
                    self._http().post(
                        self.url,
                        data=body,
                        headers=_JSON,
                        proxy=self._proxy,
                        proxy_auth=self._proxy_auth,
                    ) as response,
                ):
                    status = response.status
                    if status in _TRANSIENT or status >= 500:
                        retry_after = _retry_after(response.headers.get("retry-after"))
                        raise RpcTransportError(f"HTTP {status} from {self.url}")
                    if status != 200:
                        raise RpcRefused(f"HTTP {status} from {self.url}")
                    content = await response.read()
                decoded = orjson.loads(content)
                if isinstance(decoded, dict):
                    # Some nodes answer a whole batch with one error object (e.g. batch too big).
                    if "error" in decoded and expected > 1:
                        raise RpcTransportError(f"batch refused: {decoded['error']}")
                    decoded = [decoded]
                if not isinstance(decoded, list):
                    raise RpcTransportError("answer is neither an object nor a list")
                return decoded
            except RpcRefused:
                raise
            except (
                aiohttp.ClientError,
                TimeoutError,
                orjson.JSONDecodeError,
                RpcTransportError,
            ) as exc:
                last = exc
                if attempt + 1 < self.retry.max_attempts:
                    await asyncio.sleep(
                        retry_after if retry_after is not None else self.retry.delay(attempt)
                    )
        raise RpcTransportError(
            f"{self.url}: gave up after {self.retry.max_attempts} attempts: {last}"
        )


# geth's (and avalanchego's) JSON-RPC error for a call past the batch's answer size cap.
_RESPONSE_TOO_LARGE = -32003


def _too_large(result: RpcResult) -> bool:
    return isinstance(result.error, dict) and result.error.get("code") == _RESPONSE_TOO_LARGE


# HTTP statuses below 500 worth another attempt: the server timed out, is not ready, or asks
# us to slow down. Any other 4xx is an answer (a wrong path, an API the node lacks): retrying
# a 404 eight times only took ~20 s to fail.
_TRANSIENT = frozenset({408, 425, 429})


def _env_proxy(url: str) -> tuple[yarl.URL | None, aiohttp.BasicAuth | None]:
    """The proxy HTTP(S)_PROXY and NO_PROXY give `url` (as httpx's default honours them), looked
    up once per client: aiohttp's `trust_env` looks it up, with ~/.netrc, on every request,
    ~0.65 ms of CPU each (a few thousand requests per backfill of the bench chain)."""
    import yarl
    from aiohttp.helpers import get_env_proxy_for_url

    try:
        return get_env_proxy_for_url(yarl.URL(url))
    except LookupError:
        return None, None


def _retry_after(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return min(30.0, max(0.0, float(value)))
    except ValueError:
        return None
