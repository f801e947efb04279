"""The feeds of PreparedBatches as the indexer (the parent) sees them: ProcessFeed and LocalFeed.

Indexer stage. Two feeds behind one interface. `ProcessFeed` (what `avadata index` uses) does
the work in a child process: fetching (HTTP, JSON parsing), decoding, enrichment, the
appliers' pure halves and the rows' encoding all run there, beside the parent, which only
writes. Everything is Python and holds the GIL, so in one process they took turns with the
writer; in two they use both cores. `LocalFeed` does the same in the calling process (for
callers that want one process). Both run produce.py's loop; the child's side of ProcessFeed is
child.py, the messages between the two protocol.py's.

Invariants: batches come out in block order, whole; the queue between the processes is
bounded (a few chunks), so memory stays flat whatever the chain's length; the child dies with
its parent (a kill -9 of the indexer leaves no orphan fetching); an error in the child is
re-raised in the parent, which then writes nothing more.
"""

from __future__ import annotations

import asyncio
import queue
from collections.abc import AsyncIterator
from typing import Any

from avadata.errors import SourceError
from avadata.indexer.fetch.produce import produce
from avadata.indexer.fetch.protocol import (
    ChainFacts,
    Done,
    Facts,
    Failed,
    FeedConfig,
    FromChild,
    Job,
    JobMessage,
    Stop,
)
from avadata.indexer.fetch.spawn import Child, take
from avadata.sources.evm import EvmSource
from avadata.store.prepared import PreparedBatch


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
    """What `child`, hinted at `rpc_url`, learnt of its node first thing (protocol.Facts);
    None when it has no such hint, its node did not answer, or it died. Read before the child
    gets its FeedConfig, which needs the chain ID."""
    if child.hint is None:
        return None
    try:
        msg: FromChild = await _receive(child.out, child.process)
    except _ChildGone:
        return None  # the feed finds out and replaces it
    facts = msg.facts if isinstance(msg, Facts) else None
    return facts if child.hint.rpc_url == rpc_url else None


class ProcessFeed:
    """The feed in a child process (`child` when given, else one `spawn.start` began, else
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
        """Hand the config to a child now (one `spawn.start` began, else a new one), instead of
        on first use: the child then starts fetching as soon as the first range is asked."""
        if self._process is None:
            self._start()

    def _start(self) -> None:
        child, self._child = self._child or take(self.config.rpc_url), None
        child.process.name = f"avadata-fetch-{self.config.chain_id}"
        child.jobs.put(self.config)
        self._process, self._jobs, self._out = child.process, child.jobs, child.out

    async def _get(self, wait: bool = True) -> JobMessage | None:
        """The child's next message of the current range; None if `wait` is off and there is
        none yet."""
        while True:
            try:
                msg: FromChild | None = await _receive(self._out, self._process, wait)
            except _ChildGone as gone:
                self._forget_child()
                raise SourceError(
                    f"chain {self.config.chain_id}: the fetch process {gone}"
                ) from None
            if msg is None:
                return None
            if not isinstance(msg, Facts) and msg.job_id == self._job:
                return msg
            # Facts nobody read, or a message of an abandoned range: dropped.

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
        self._jobs.put(Job(self._job, start, stop, known_tokens))
        done = False
        while not done:
            group: list[PreparedBatch] = []
            msg = await self._get()
            while msg is not None:
                if isinstance(msg, Failed):
                    raise msg.error
                if msg.has_traces is not None:
                    self._has_traces = msg.has_traces
                if isinstance(msg, Done):
                    done = True
                    break
                group.append(msg.batch)
                msg = await self._get(wait=False) if len(group) < group_size else None
            if group:
                yield group

    async def aclose(self) -> None:
        if self._process is None:
            return
        self._jobs.put(Stop())
        await asyncio.to_thread(self._process.join, 5.0)
        if self._process.is_alive():
            self._process.kill()
            await asyncio.to_thread(self._process.join, 5.0)
        # The child may have left batches in the queue: drop them rather than wait on its
        # feeder thread at exit.
        self._out.cancel_join_thread()
        self._process = None
