"""A fetch process's head start: the first chunks of its first range, guessed and fetched before
it is asked.

Indexer stage, in the fetch process. Why: `avadata index` spends about a second importing its
modules, migrating the store and asking each node its chain ID before it hands a fetch process
its first range, while the process is ready half a second after it is spawned and the node sits
idle. Told the node's and the store's URLs at spawn (`protocol.Hint`), the process guesses that
range the way the parent computes it (after the store's cursor, read with a read-only engine,
else from block 0; up to the node's head) and fetches its first chunks meanwhile.

The parent stays the authority: a chunk fetched ahead is used only when the range the parent
sends cuts exactly that chunk, and one that failed is fetched again the ordinary way. A wrong
guess costs the node some work and never a row: the blocks are the node's own, fetched the same
way, and the writer checks their continuity like any others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from pathlib import Path

from avadata.indexer.fetch.chunking import chunks
from avadata.indexer.fetch.protocol import ChainFacts, Hint
from avadata.records import EVM_SOURCE, RawBlock
from avadata.sources.evm import EvmSource
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy

log = logging.getLogger(__name__)

# Chunks fetched ahead: the feed's window, what it would have in flight at once.
AHEAD_CHUNKS = 3
# A guess gives up fast (two attempts, no minutes of backoff): the ordinary fetch that follows
# a failed one retries by the run's own policy.
_GUESS_RETRY = RetryPolicy(max_attempts=2)
# Event loop turns for a new request to connect and be written (see `Prefetch.started`).
_SEND_TURNS = 8


def resume_block(db_url: str, chain_id: int) -> int:
    """Where the parent will start this chain: after its cursor, or at block 0 for a store that
    is new, not migrated yet, or not there at all (nothing is created or locked here)."""
    found = _sqlite_resume(db_url, chain_id)
    if found is not None:
        return found
    from avadata.store.cursors import get_cursor
    from avadata.store.engine import make_engine

    try:
        engine = make_engine(db_url, read_only=True)
    except Exception:
        return 0
    try:
        cursor = get_cursor(engine, chain_id)
    except Exception:
        return 0
    finally:
        engine.dispose()
    return 0 if cursor is None else cursor.block_number + 1


def _sqlite_resume(db_url: str, chain_id: int) -> int | None:
    """`resume_block` for a plain SQLite file URL, through the standard library; None for any
    other URL. Why: the store's modules bring SQLAlchemy, ~0.2 s of this process's start that
    delayed its first request as long (docs/benchmarks.md). A store being created (no cursors
    table yet, or locked by the parent's migration) is new: 0, as the store's own read says."""
    prefix = "sqlite:///"
    if not db_url.startswith(prefix) or "?" in db_url:
        return None
    path = Path(db_url.removeprefix(prefix))
    if not path.is_file():
        return 0
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        # A short timeout: a guess is not worth waiting on the parent's migration for.
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=0.1)) as conn:
            row = conn.execute(
                "SELECT block_number FROM cursors WHERE chain_id = ? AND source = ?",
                (chain_id, EVM_SOURCE),
            ).fetchone()
    except sqlite3.Error:
        return 0
    return 0 if row is None else int(row[0]) + 1


class Prefetch:
    """The chunks fetched ahead, by (start, stop) as `chunking.chunks` cuts them."""

    def __init__(self, hint: Hint) -> None:
        self.hint = hint
        self._client = JsonRpcClient(hint.rpc_url, retry=_GUESS_RETRY)
        self.source = EvmSource(self._client)
        self._chunks: dict[tuple[int, int], asyncio.Task[list[RawBlock]]] = {}
        # The node's chain ID and head as the guess asked them (None until then, or if it
        # failed): the parent takes them instead of asking (protocol.Facts).
        self.facts: ChainFacts | None = None
        self._plan = asyncio.create_task(self._start())

    async def _start(self) -> None:
        chain_id, head = await asyncio.gather(self.source.chain_id(), self.source.head())
        self.facts = ChainFacts(chain_id, head)
        start = await asyncio.to_thread(resume_block, self.hint.db_url, chain_id)
        ahead = chunks(start, head, self.hint.chunk_blocks)[:AHEAD_CHUNKS]
        if not ahead:
            return
        # The first chunk alone at first, the others once it is in: asked together, the node
        # served the three at once and the first was ready no sooner than the third, while the
        # writer waited for it alone (docs/benchmarks.md).
        first = asyncio.create_task(self.source.fetch_range(*ahead[0]))
        self._chunks[ahead[0]] = first
        for s, e in ahead[1:]:
            self._chunks[(s, e)] = asyncio.create_task(self._after(first, s, e))

    async def _after(
        self, first: asyncio.Task[list[RawBlock]], start: int, stop: int
    ) -> list[RawBlock]:
        await asyncio.wait([first])
        return await self.source.fetch_range(start, stop)

    async def started(self) -> None:
        """Return once the first chunk's requests are on their way (or the guess failed). The
        caller then imports the decoders in a thread: begun sooner, that import held the GIL
        while this process asked the node its chain ID and head, and the first requests left
        ~0.2 s later."""
        with contextlib.suppress(Exception):
            await self._plan
        # A few turns of the loop: each chunk's first requests connect and go out.
        for _ in range(_SEND_TURNS):
            await asyncio.sleep(0)

    async def take(self, start: int, stop: int) -> list[RawBlock] | None:
        """Blocks start..stop-1 if they were fetched ahead (and the fetch worked), else None."""
        with contextlib.suppress(Exception):
            await self._plan
        task = self._chunks.pop((start, stop), None)
        if task is None:
            return None
        try:
            return await task
        except Exception as exc:
            log.debug("chunk %s-%s fetched ahead failed (%s); fetching it again", start, stop, exc)
            return None

    async def aclose(self) -> None:
        """Drop what was not taken; close the client."""
        tasks = [self._plan, *self._chunks.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._chunks.clear()
        await self._client.aclose()
