"""The garbage collector's settings of avadata's long-running processes, each with its reason.

`tune_for_indexing`, the indexer's processes (the writer and each fetch process). Why: both
allocate millions of small containers (the node's parsed JSON, records, rows) and keep a few
chunks of them alive at once. None of them form cycles, but CPython's collector, left at its
defaults, starts a young-generation pass every 700 net allocations and a full pass whenever
the heap grew by a quarter, and each pass walks every live chunk again: thousands of passes
in a backfill, a large share of a fetch process's CPU (timed with `gc.callbacks`), with JSON
parsing, its main trigger, looking several times slower than in isolation. With the settings
below the collector's share is small, start-up included (the figures: docs/benchmarks.md).

The collector stays on, for the cycles asyncio and exceptions do make: a pipeline at steady
state frees about as much as it allocates, so real garbage still reaches the threshold, and a
pass then costs one walk of the live objects.

`tune_for_serving`, the API server: see its doc.
"""

from __future__ import annotations

import gc

# Net container allocations between young-generation passes (CPython's default is 700).
YOUNG_THRESHOLD = 100_000
# Young passes per middle pass, and middle passes per full pass (CPython's defaults: 10, 10).
OLDER_THRESHOLD = 20


def tune_for_indexing() -> None:
    """Call once the process's modules are imported: what exists by then (modules, classes,
    tables) lives as long as the process, so no pass ever needs to walk it again."""
    _freeze_startup(YOUNG_THRESHOLD, OLDER_THRESHOLD, OLDER_THRESHOLD)


def freeze_loaded() -> None:
    """After `tune_for_indexing`, for modules imported later (a fetch process imports its
    decoders while its first requests are out): they live as long as the process too."""
    gc.freeze()


def tune_for_serving() -> None:
    """Keep garbage-collection pauses out of request tails: everything loaded so far (modules,
    the app, SQLAlchemy's caches) moves to the permanent generation, so a full collection only
    walks what requests allocate; and the young generation is collected less often (a page of
    2,160 metric points allocates thousands of small objects, all freed by reference counts).
    Full passes had been the metrics API's p99 (docs/api.md)."""
    _freeze_startup(50_000, 50, 100)


def _freeze_startup(young: int, middle: int, old: int) -> None:
    gc.collect()  # what start-up already dropped is not frozen with the rest
    gc.freeze()
    gc.set_threshold(young, middle, old)
