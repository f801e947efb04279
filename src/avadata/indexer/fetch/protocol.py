"""The messages between the indexer (the parent, which writes) and a fetch process (its child).

Indexer stage, and the standard library only at run time: both processes import this first
thing (the child before its node's client, the parent before it parses its options), and the
messages are unpickled by reference to these classes.

Two queues per child (spawn.py makes them):

- `jobs`, parent to child: one `FeedConfig` first, then a `Job` per range, then `Stop`.
- `out`, child to parent: a hinted child's `Facts` first (guess.py); then, per job, a
  `Batch` per chunk in block order and a `Done`, or a `Failed` that ends the job. Messages of
  a job the parent has abandoned are dropped by the parent (feed.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from avadata.records import EvmBatch
    from avadata.sources.jsonrpc import RetryPolicy
    from avadata.store.prepared import PreparedBatch


class NativeBalanceMode(StrEnum):
    """How native balances are snapshotted (see docs/architecture.md).

    HEAD: each touched address at the node's head when the chunk is fetched: cheap on every node,
    pruned ones included (they keep only recent state), so it is the default. HISTORY: each
    touched address at every block that touched it: exact at any block, but needs an archive
    node, and anvil rebuilds old state for each such call. OFF: none.
    """

    HEAD = "head"
    HISTORY = "history"
    OFF = "off"


@dataclass(frozen=True, slots=True)
class Hint:
    """What a child is told at spawn, before its FeedConfig: enough to guess its first range
    and fetch its first chunks meanwhile (guess.py)."""

    rpc_url: str
    db_url: str
    chunk_blocks: int


@dataclass(frozen=True, slots=True)
class ChainFacts:
    """What a hinted child's node answered first thing."""

    chain_id: int
    head: int


@dataclass(frozen=True, slots=True)
class FeedConfig:
    """How a feed fetches, decodes and prepares one chain (the first message on `jobs`)."""

    rpc_url: str
    chain_id: int
    # The appliers' pure halves (indexer.appliers.SplitApplier.prepare): module-level
    # functions, since they cross to the child by reference.
    prepares: tuple[Callable[[EvmBatch], Any], ...]
    chunk_blocks: int = 50
    window: int = 3
    native_balances: NativeBalanceMode = NativeBalanceMode.HEAD
    timeout: float = 30.0
    max_in_flight: int = 4
    retry: RetryPolicy | None = None  # None: the client's default


@dataclass(frozen=True, slots=True)
class Job:
    """Parent to child: prepare blocks start..stop inclusive; `known_tokens` need no metadata."""

    job_id: int
    start: int
    stop: int
    known_tokens: set[str]


@dataclass(frozen=True, slots=True)
class Stop:
    """Parent to child: no more jobs; the child ends."""


@dataclass(frozen=True, slots=True)
class Facts:
    """Child to parent, a hinted child's first message: its node's chain ID and head as the
    guess asked them (None when the node did not answer), so the parent need not ask."""

    facts: ChainFacts | None


@dataclass(frozen=True, slots=True)
class Batch:
    """Child to parent: the job's next chunk, prepared. `has_traces`: what the node said of
    traces so far (None: not asked yet)."""

    job_id: int
    batch: PreparedBatch
    has_traces: bool | None


@dataclass(frozen=True, slots=True)
class Done:
    """Child to parent: the job's last chunk was sent."""

    job_id: int
    has_traces: bool | None


@dataclass(frozen=True, slots=True)
class Failed:
    """Child to parent: the job ended on `error` (one that survives pickling: child.py), which
    the parent raises."""

    job_id: int
    error: BaseException


ToChild = FeedConfig | Job | Stop
FromChild = Facts | Batch | Done | Failed
# What a job's messages are (Facts come before any job).
JobMessage = Batch | Done | Failed
