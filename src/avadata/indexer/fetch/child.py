"""A fetch process's main: its guess first, then its FeedConfig, then jobs in and batches out.

Indexer stage, in the fetch process (spawn.py starts it and calls `main`). The guess's first
requests go out before the decoders and the store's encoders are imported and warmed (~0.5 s,
in a worker thread meanwhile): this module imports only the node's client at first, so the node
starts on them that much sooner. The messages are protocol.py's.
"""

from __future__ import annotations

import asyncio
import pickle
from typing import Any

from avadata.errors import AvadataError, SourceError
from avadata.gc_tuning import freeze_loaded
from avadata.indexer.fetch.guess import Prefetch
from avadata.indexer.fetch.protocol import (
    Batch,
    Done,
    Facts,
    Failed,
    FeedConfig,
    Hint,
    Job,
    Stop,
    ToChild,
)
from avadata.sources.evm import EvmSource
from avadata.sources.jsonrpc import JsonRpcClient


def main(jobs: Any, out: Any, hint: Hint | None) -> None:
    """Run the fetch process on its queues (protocol.py) until the parent sends Stop."""
    asyncio.run(_run(jobs, out, hint))


def _load_produce() -> None:
    """Import the decoding pipeline, with what its decoders load on first use loaded too."""
    from avadata.indexer.fetch.produce import preload

    preload()


async def _run(jobs: Any, out: Any, hint: Hint | None) -> None:
    ahead = Prefetch(hint) if hint is not None else None
    try:
        if ahead is not None:
            await ahead.started()
            out.put(Facts(ahead.facts))
        await asyncio.to_thread(_load_produce)
    except BaseException:
        if ahead is not None:
            await ahead.aclose()
        raise
    freeze_loaded()
    await serve(jobs, out, ahead)


def _portable(exc: BaseException) -> BaseException:
    """`exc` if it survives pickling (the parent re-raises it), else an equivalent that does."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        kind = SourceError if isinstance(exc, AvadataError) else RuntimeError
        return kind(f"{type(exc).__name__}: {exc}")


async def serve(jobs: Any, out: Any, ahead: Prefetch | None) -> None:
    """The fetch process's loop: its FeedConfig, then jobs in, prepared batches out, until
    Stop. `ahead`: the first chunks, fetched while the config was on its way."""
    try:
        config: ToChild = await asyncio.to_thread(jobs.get)
        if not isinstance(config, FeedConfig):
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
                job: ToChild = await asyncio.to_thread(jobs.get)
                if isinstance(job, Stop):
                    return
                assert isinstance(job, Job)
                try:
                    await _serve_job(source, config, job, out, ahead)
                finally:
                    if ahead is not None:  # only the first range can start as guessed
                        await ahead.aclose()
                        ahead = None
    finally:
        if ahead is not None:
            await ahead.aclose()


async def _serve_job(
    source: EvmSource, config: FeedConfig, job: Job, out: Any, ahead: Prefetch | None
) -> None:
    """One job's batches, then Done; or Failed at the first error."""
    from avadata.indexer.fetch.produce import produce  # loaded by `_run` already

    try:
        async for batch in produce(
            source, config, job.start, job.stop, job.known_tokens, inline=True, ahead=ahead
        ):
            traced = _has_traces(source, ahead)
            # Blocks while the queue is full: the writer sets the pace.
            await asyncio.to_thread(out.put, Batch(job.job_id, batch, traced))
        out.put(Done(job.job_id, _has_traces(source, ahead)))
    except Exception as exc:
        out.put(Failed(job.job_id, _portable(exc)))


def _has_traces(source: EvmSource, ahead: Prefetch | None) -> bool | None:
    """What the node said about traces, to this process's source or, before that has asked
    anything (every chunk so far fetched ahead), to the guess's."""
    if source.has_traces is None and ahead is not None:
        return ahead.source.has_traces
    return source.has_traces
