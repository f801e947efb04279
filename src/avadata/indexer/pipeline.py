"""Where an EVM chain's chunks are fetched, decoded and prepared: a feed of PreparedBatches.

Indexer stage. Two feeds behind one interface. `ProcessFeed` (what `avadata index` uses) does
the work in a child process: fetching (HTTP, JSON parsing), decoding, enrichment, the
appliers' pure halves and the rows' encoding all run there, beside the parent, which only
writes. Everything is Python and holds the GIL, so in one process they took turns with the
writer; in two they use both cores. `LocalFeed` does the same in the calling process (for
callers that want one process).

Invariants: batches come out in block order, whole; the queue between the processes is
bounded (a few chunks), so memory stays flat whatever the chain's length; the child dies with
its parent (a kill -9 of the indexer leaves no orphan fetching); an error in the child is
re-raised in the parent, which then writes nothing more.
"""

from __future__ import annotations

import asyncio
import pickle
import queue
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from avadata.decode.evm import decode_block, empty_batch, finish_batch, to_batch
from avadata.errors import AvadataError, SourceError
from avadata.indexer.chunking import chunks
from avadata.indexer.enrich import AskedAtHead, NativeBalanceMode, enrich
from avadata.indexer.prefetch import Prefetch
from avadata.indexer.warm import ChainFacts, Child, take
from avadata.records import EvmBatch, RawBlock
from avadata.sources.evm import EvmSource
from avadata.sources.jsonrpc import JsonRpcClient, RetryPolicy
from avadata.store.prepared import PreparedBatch, prepare


@dataclass(frozen=True, slots=True)
class FeedConfig:
    rpc_url: str
    chain_id: int
    prepares: tuple[Callable[[EvmBatch], Any], ...]
    chunk_blocks: int = 50
    window: int = 3
    native_balances: NativeBalanceMode = NativeBalanceMode.HEAD
    timeout: float = 30.0
    max_in_flight: int = 4
    retry: RetryPolicy | None = None  # None: the client's default


def preload() -> None:
    """Load what decoding loads on first use (eth-abi, the method signature table)."""
    from avadata.decode.abi import preload as preload_abi
    from avadata.decode.methods import signature_table

    preload_abi()
    signature_table()


def _prepare(batch: EvmBatch, prepares: tuple[Callable[[EvmBatch], Any], ...]) -> PreparedBatch:
    return prepare(batch, [p(batch) for p in prepares])


async def _inline(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


# Blocks decoded between two turns of the event loop (see `_decode_turns`).
_BLOCKS_PER_TURN = 5


async def _decode_turns(chain_id: int, raws: list[RawBlock]) -> EvmBatch:
    """`to_batch` on the event loop, giving the loop a turn every few blocks: the other chunks
    in flight each need several round trips to the node (logs, a gas search's rounds), and a
    chunk decoded in one go held each of their next requests back that long."""
    batch = empty_batch(chain_id, raws)
    for i, raw in enumerate(raws):
        decode_block(chain_id, raw, batch)
        if i % _BLOCKS_PER_TURN == _BLOCKS_PER_TURN - 1:
            await asyncio.sleep(0)
    return finish_batch(batch, raws)


async def produce(
    source: EvmSource,
    config: FeedConfig,
    start: int,
    stop: int,
    known_tokens: set[str],
    *,
    inline: bool = False,
    ahead: Prefetch | None = None,
) -> AsyncIterator[PreparedBatch]:
    """Prepared batches of blocks start..stop, in order, with a window of chunks in flight.

    `inline` runs the CPU work on the event loop: right in the fetch process, where a worker
    thread would only add GIL hand-offs; decoding there gives the loop a turn every few blocks
    (`_decode_turns`), so the other chunks' next requests go out meanwhile. In a process that
    also writes, decoding in a thread lets the loop keep the writer's turn short. Chunks in
    `ahead` (prefetch.py) are taken from there.

    The chunks in flight fetch at once but decode one after another, in order: given turns
    every few blocks, a later chunk whose blocks had arrived decoded alongside the first one,
    and the writer, waiting on the first, sat idle meanwhile (a fifth of the bench backfill had
    the fetch process alone on the CPU, docs/benchmarks.md)."""
    work = _inline if inline else asyncio.to_thread
    asked = AskedAtHead()

    async def one(
        s: int, e: int, turn: asyncio.Event | None, decoded: asyncio.Event
    ) -> PreparedBatch:
        try:
            raws = await ahead.take(s, e) if ahead is not None else None
            if raws is None:
                raws = await source.fetch_range(s, e)
            # Decoding in chunk order (see the docstring).
            if turn is not None:
                await turn.wait()
            if inline:
                batch = await _decode_turns(config.chain_id, raws)
            else:
                batch = await work(to_batch, config.chain_id, raws)
        finally:
            decoded.set()
        await enrich(
            source, batch, known_tokens, native_balances=config.native_balances, asked=asked
        )
        # New tokens are known from here on: later chunks do not ask their metadata again.
        known_tokens.update(t.address for t in batch.tokens)
        return await work(_prepare, batch, config.prepares)

    todo = chunks(start, stop, config.chunk_blocks)
    pending: list[asyncio.Task[PreparedBatch]] = []
    # The event the next chunk's decoding waits on: the chunk before it decoded.
    turn: asyncio.Event | None = None
    try:
        for i in range(len(todo)):
            while len(pending) < config.window and i + len(pending) < len(todo):
                decoded = asyncio.Event()
                pending.append(asyncio.create_task(one(*todo[i + len(pending)], turn, decoded)))
                turn = decoded
            yield await pending.pop(0)
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


class LocalFeed:
    """The feed in this process (one interpreter: fetch, decode and write take turns)."""

    def __init__(self, source: EvmSource, config: FeedConfig) -> None:
        self.source = source
        self.config = config

    @property
    def has_traces(self) -> bool | None:
        return self.source.has_traces

    async def groups(
        self, start: int, stop: int, known_tokens: set[str], group_size: int
    ) -> AsyncIterator[list[PreparedBatch]]:
        # One at a time: in one process, a bigger group would only delay the writer's turn.
        async for batch in produce(self.source, self.config, start, stop, set(known_tokens)):
            yield [batch]

    async def aclose(self) -> None:
        return None


class _ChildGone(Exception):
    """A fetch process ended: mid-message, or with this exit code."""


async def _receive(out: Any, process: Any, wait: bool = True) -> Any:
    """A fetch process's next message on `out`; None if `wait` is off and there is none yet.
    Raises _ChildGone once the process is gone."""
    while True:
        try:
            return await asyncio.to_thread(out.get, wait, 1.0)
        except (EOFError, OSError):  # EOF at or inside a message
            raise _ChildGone("ended mid-message") from None
        except queue.Empty:
            if not wait:
                return None
            if not process.is_alive():
                raise _ChildGone(f"ended (exit code {process.exitcode})") from None


async def chain_facts(child: Child, rpc_url: str) -> ChainFacts | None:
    """What `child`, hinted at `rpc_url`, learnt of its node first thing (warm.ChainFacts);
    None when it has no such hint, its node did not answer, or it died. Read before the child
    gets its FeedConfig, which needs the chain ID."""
    if child.hint is None:
        return None
    try:
        msg = await _receive(child.out, child.process)
    except _ChildGone:
        return None  # the feed finds out and replaces it
    facts: ChainFacts | None = msg[2] if msg[0] == "facts" else None
    return facts if child.hint.rpc_url == rpc_url else None


class ProcessFeed:
    """The feed in a child process (`child` when given, else one `warm.start` began, else
    started on first use), reused for every range after, and replaced for the next range if it
    dies."""

    def __init__(self, config: FeedConfig, child: Child | None = None) -> None:
        self.config = config
        self._child = child
        self._process: Any = None
        self._jobs: Any = None
        self._out: Any = None
        self._job = 0
        self._has_traces: bool | None = None

    @property
    def has_traces(self) -> bool | None:
        return self._has_traces

    def start(self) -> None:
        """Hand the config to a child now (one `warm.start` began, else a new one), instead of
        on first use: the child then starts fetching as soon as the first range is asked."""
        if self._process is None:
            self._start()

    def _start(self) -> None:
        child, self._child = self._child or take(self.config.rpc_url), None
        child.process.name = f"avadata-fetch-{self.config.chain_id}"
        child.jobs.put(self.config)
        self._process, self._jobs, self._out = child.process, child.jobs, child.out

    async def _get(self, wait: bool = True) -> tuple[str, int, Any, bool | None] | None:
        """The child's next message of the current range; None if `wait` is off and there is
        none yet."""
        while True:
            try:
                msg: tuple[str, int, Any, bool | None] | None = await _receive(
                    self._out, self._process, wait
                )
            except _ChildGone as gone:
                self._forget_child()
                raise SourceError(
                    f"chain {self.config.chain_id}: the fetch process {gone}"
                ) from None
            if msg is None or msg[1] == self._job:
                return msg
            # A message of an abandoned range: dropped.

    def _forget_child(self) -> None:
        """The child is gone: the next range starts a new one (a follower outlives it)."""
        self._out.cancel_join_thread()
        self._jobs.cancel_join_thread()
        self._process = None

    async def groups(
        self, start: int, stop: int, known_tokens: set[str], group_size: int
    ) -> AsyncIterator[list[PreparedBatch]]:
        """Batches start..stop in order, in groups: the next batch, and those already waiting
        behind it, up to `group_size` (a writer that fell behind catches up with fewer
        commits; one that keeps up writes each batch as it comes)."""
        if self._process is None:
            self._start()
        self._job += 1
        self._jobs.put((self._job, start, stop, known_tokens))
        done = False
        while not done:
            group: list[PreparedBatch] = []
            msg = await self._get()
            while msg is not None:
                kind, _, payload, has_traces = msg
                if kind == "error":
                    raise payload
                if has_traces is not None:
                    self._has_traces = has_traces
                if kind == "done":
                    done = True
                    break
                group.append(payload)
                msg = await self._get(wait=False) if len(group) < group_size else None
            if group:
                yield group

    async def aclose(self) -> None:
        if self._process is None:
            return
        self._jobs.put(None)
        await asyncio.to_thread(self._process.join, 5.0)
        if self._process.is_alive():
            self._process.kill()
            await asyncio.to_thread(self._process.join, 5.0)
        # The child may have left batches in the queue: drop them rather than wait on its
        # feeder thread at exit.
        self._out.cancel_join_thread()
        self._process = None


def _portable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling (the parent re-raises it), else an equivalent that does."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        kind = SourceError if isinstance(exc, AvadataError) else RuntimeError
        return kind(f"{type(exc).__name__}: {exc}")


async def serve(jobs: Any, out: Any, ahead: Prefetch | None) -> None:
    """The fetch process's loop (prefetch.run_fetch_process starts it): its FeedConfig, then
    jobs in, prepared batches out, until None. `ahead`: the first chunks, fetched while the
    config was on its way."""
    try:
        config: FeedConfig | None = await asyncio.to_thread(jobs.get)
        if config is None:
            return
        if ahead is not None and ahead.hint.rpc_url != config.rpc_url:
            await ahead.aclose()
            ahead = None
        async with JsonRpcClient(
            config.rpc_url,
            timeout=config.timeout,
            max_in_flight=config.max_in_flight,
            retry=config.retry,
        ) as client:
            source = EvmSource(client)
            while True:
                job = await asyncio.to_thread(jobs.get)
                if job is None:
                    return
                job_id, start, stop, known = job
                try:
                    async for batch in produce(
                        source, config, start, stop, known, inline=True, ahead=ahead
                    ):
                        traced = _has_traces(source, ahead)
                        # Blocks while the queue is full: the writer sets the pace.
                        await asyncio.to_thread(out.put, ("batch", job_id, batch, traced))
                    out.put(("done", job_id, None, _has_traces(source, ahead)))
                except Exception as exc:
                    out.put(("error", job_id, _portable(exc), None))
                finally:
                    if ahead is not None:  # only the first range can start as guessed
                        await ahead.aclose()
                        ahead = None
    finally:
        if ahead is not None:
            await ahead.aclose()


def _has_traces(source: EvmSource, ahead: Prefetch | None) -> bool | None:
    """What the node said about traces, to this process's source or, before that has asked
    anything (every chunk so far fetched ahead), to the guess's."""
    if source.has_traces is None and ahead is not None:
        return ahead.source.has_traces
    return source.has_traces
