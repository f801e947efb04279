"""The NFT metadata worker: reads each token's URI by eth_call, resolves its metadata, and
records the outcome in nft_tokens; failures worth retrying come back with exponential backoff.

Stage: indexer (hosted by `avadata serve --nft-worker`). It writes through its own writer engine;
the API itself stays read-only. Outbound metadata fetches (http(s), ipfs gateway) happen only
with AVADATA_NFT_FETCH_ENABLED; data: URIs resolve offline; eth_call goes to the node the
indexer used (chains.rpc_url).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import orjson

from avadata.indexer.nft import calls
from avadata.indexer.nft.resolve import Fetch, erc1155_uri, resolve
from avadata.settings import Settings
from avadata.store import nft_metadata, nft_status
from avadata.store.types import Engine

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6
BATCH = 50
# While fetching is disabled, an http(s)/ipfs token is looked at again this much later.
_IDLE_RECHECK_S = 3600

TokenUriCall = Callable[[str, str, str, int], str]


def backoff_s(attempts: int) -> int:
    """Seconds before attempt number `attempts + 1`: 30 s doubling, at most an hour."""
    return int(min(3600, 30 * 2 ** max(0, attempts - 1)))


def _text(doc: dict[str, Any], *keys: str) -> str | None:
    for k in keys:
        v = doc.get(k)
        if isinstance(v, str) and v:
            return v
    return None


def run_once(
    engine: Engine,
    settings: Settings,
    *,
    token_uri: TokenUriCall,
    fetch: Fetch | None,
    now: int | None = None,
) -> int:
    """Process one batch of due tokens; returns how many rows were updated."""
    now = int(time.time()) if now is None else now
    due = nft_metadata.due(engine, nft_status.RETRYABLE, now, MAX_ATTEMPTS, BATCH)
    for row in due:
        values = _process(row, settings, token_uri=token_uri, fetch=fetch, now=now)
        nft_metadata.record(engine, row.chain_id, row.token, row.token_id, values)
    return len(due)


def _process(
    row: Any, settings: Settings, *, token_uri: TokenUriCall, fetch: Fetch | None, now: int
) -> dict[str, Any]:
    attempts = int(row.attempts) + 1
    uri = row.token_uri
    if uri is None:
        if not row.rpc_url:
            return {"next_attempt_at": now + _IDLE_RECHECK_S}
        try:
            uri = token_uri(row.rpc_url, row.token, row.standard, int(row.token_id))
        except calls.Reverted:
            return {
                "index_status": nft_status.MISSING_TOKEN,
                "attempts": attempts,
                "last_updated": now,
            }
        except OSError as exc:
            log.info("tokenURI of %s/%s: %s", row.token, row.token_id, exc)
            return _retry(nft_status.PENDING, attempts, now)
    target = erc1155_uri(uri, int(row.token_id)) if row.standard == "ERC-1155" else uri
    res = resolve(
        target,
        fetch=fetch,
        gateway=settings.ipfs_gateway,
        max_bytes=settings.nft_max_metadata_bytes,
    )
    values: dict[str, Any] = {"token_uri": uri}
    if res.status == nft_status.PENDING:  # fetching disabled: keep the URI, look again later
        values["next_attempt_at"] = now + _IDLE_RECHECK_S
        return values
    if res.status in nft_status.RETRYABLE:
        return {**values, **_retry(res.status, attempts, now)}
    values.update(index_status=res.status, attempts=attempts, last_updated=now)
    if res.document is not None:
        doc = res.document
        values.update(
            name=_text(doc, "name"),
            description=_text(doc, "description"),
            image_uri=_text(doc, "image", "image_url"),
            external_url=_text(doc, "external_url"),
            metadata_json=orjson.dumps(doc).decode(),
        )
    return values


def _retry(code: str, attempts: int, now: int) -> dict[str, Any]:
    return {
        "index_status": code,
        "attempts": attempts,
        "next_attempt_at": now + backoff_s(attempts),
        "last_updated": now,
    }


class Worker:
    """Runs `run_once` every `interval_s` in a daemon thread until `stop()`."""

    def __init__(self, engine: Engine, settings: Settings, interval_s: float = 5.0) -> None:
        self.engine = engine
        self.settings = settings
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="nft-metadata", daemon=True)
        timeout = settings.nft_fetch_timeout_s
        self._rpc = httpx.Client(timeout=timeout)
        self._http = httpx.Client(timeout=timeout)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
        self._rpc.close()
        self._http.close()

    def _token_uri(self, rpc_url: str, token: str, standard: str, token_id: int) -> str:
        return calls.token_uri(self._rpc, rpc_url, token, standard, token_id)

    def _run(self) -> None:
        fetch = (
            calls.make_fetch(
                self._http,
                self.settings.nft_max_metadata_bytes,
                allow_private=self.settings.nft_fetch_private,
                per_s=self.settings.nft_fetch_per_s,
            )
            if self.settings.nft_fetch_enabled
            else None
        )
        while not self._stop.is_set():
            try:
                done = run_once(self.engine, self.settings, token_uri=self._token_uri, fetch=fetch)
            except Exception:  # keep the worker alive; the next round retries
                log.exception("NFT metadata round failed")
                done = 0
            if done == 0:
                self._stop.wait(self.interval_s)
