"""Fetch processes started ahead of the indexer's own set-up, so their start-up overlaps it.

Indexer stage, and light on purpose: it imports nothing heavy, so `avadata index` can start its
children first thing. Each child imports the node's client, sends the first requests its
`Hint` suggests (guess.py), then imports the decoding pipeline (produce.py: decoders, the
store's encoders, about 0.3 s more) while the node answers and the parent imports its own
modules, migrates the store and asks each node its chain ID; the child then waits for its
FeedConfig and serves jobs (child.py; the messages: protocol.py). Started at first use
instead, a child began fetching about 0.5 s later (docs/benchmarks.md).

A hinted child also sends the parent what it asked the node first thing (`protocol.Facts`:
chain ID and head), so the parent need not ask them itself: it then sends no request of its own
in a backfill and never loads the HTTP client (~0.12 s of its start, docs/benchmarks.md).

Invariants: a child dies with its parent (PR_SET_PDEATHSIG), so a started child nobody takes
ends with the indexer; only the child writes to its result queue.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from avadata.child_processes import die_with_parent, ignore_ctrl_c
from avadata.indexer.fetch.protocol import Hint

# Chunks a child may have ready ahead of the writer: enough to keep the writer busy while the
# child waits on the node (the child's window of chunks in flight keeps fetching and decoding
# while a put waits), few enough to bound memory (a 50-block chunk of 50-tx blocks is a few MB
# of rows). Few also keeps the writer, which runs below the child (`yield_cpu`), from falling
# far behind: what it still holds when the child is done it writes alone at the end, one core
# idle (docs/benchmarks.md, stop 23).
QUEUE_CHUNKS = 2

# How far below its fetch processes the writer runs (a nice increment, see `yield_cpu`).
WRITER_NICE = 5

_CTX = multiprocessing.get_context("spawn")


@dataclass(frozen=True, slots=True)
class Child:
    process: Any
    jobs: Any  # protocol.ToChild messages
    out: Any  # protocol.FromChild messages
    hint: Hint | None = None


_started: list[Child] = []


def start(hints: Sequence[Hint]) -> None:
    """Start a child per hint now, for this process's next fetch feeds to take in that order;
    each fetches its first chunks as the hint suggests while it waits (guess.py). A hint
    whose child was started and not taken yet starts none (`avadata index` starts its children
    before it parses its options, then again after: cli/index.py)."""
    waiting = [c.hint for c in _started]
    for h in hints:
        if h in waiting:
            waiting.remove(h)
        else:
            _started.append(_spawn(h))


def yield_cpu() -> None:
    """Run this process (the writer) at a lower CPU priority than the fetch processes it
    started before: they keep theirs, and so does the node (a fetch process started later, to
    replace one that died, inherits the writer's).

    Why: when cores are scarce the fetch processes are the pipeline's critical path (fetching,
    decoding and preparing a chunk cost a little more than writing it), and the writer has
    slack: the bounded queue between them holds chunks ahead, and the writer waited on its
    fetch process for part of the bench backfill, while at other moments the writer, its fetch
    process and the node all wanted the 2 cores, shared evenly. Lower, the writer gets what
    the other two leave, and the backfill is shorter (docs/benchmarks.md, stop 18). With cores
    to spare nothing waits and nothing changes. Into PostgreSQL most of the writing runs in the
    session's server process: on the same host, when this process may, the store gives that
    process the writer's nice value too (store/backend_priority.py)."""
    try:
        os.nice(WRITER_NICE)
    except OSError:  # never expected (raising one's own nice needs no privilege): run as is
        pass


def take(rpc_url: str | None = None) -> Child:
    """A child started ahead (the one hinted at `rpc_url` when there is one, whose first
    chunks are that node's), else one started now."""
    for i, child in enumerate(_started):
        if child.hint is not None and child.hint.rpc_url == rpc_url:
            return _started.pop(i)
    return _started.pop(0) if _started else _spawn(None)


def _spawn(hint: Hint | None) -> Child:
    jobs = _CTX.Queue()
    out: Any = _CTX.Queue(maxsize=QUEUE_CHUNKS)
    process = _CTX.Process(
        target=_entry, args=(os.getpid(), jobs, out, hint), name="avadata-fetch-", daemon=True
    )
    process.start()
    # Only the child writes to `out`: without the parent's own copy of the pipe's write end, a
    # child that dies mid-message (OOM killer, kill -9) gives the parent EOF instead of a read
    # that waits forever for the rest of the message.
    out._writer.close()
    return Child(process, jobs, out, hint)


def _entry(parent: int, jobs: Any, out: Any, hint: Hint | None) -> None:
    die_with_parent(parent)
    ignore_ctrl_c()
    from avadata.gc_tuning import tune_for_indexing
    from avadata.indexer.fetch.child import main  # the node's client, no decoders yet

    tune_for_indexing()
    main(jobs, out, hint)
