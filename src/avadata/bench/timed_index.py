"""The avadata contender of `avadata bench ingest`: `avadata index --rpc URL --db DB --once
--chunk-blocks N` as the command runs it, with the writing half of each applier timed.

Stage: bench. Run as `python -m avadata.bench.timed_index URL DB CHUNK TIMING_FILE`; writes
the seconds spent inside the appliers' writing halves (the metrics rollup's share of ingest) to
TIMING_FILE when done. The steps are the command's, in its order (fetch process started first,
the writer's CPU priority lowered, start-up objects frozen, then the backfill), minus what only
a terminal needs (option parsing and the progress bar). The timing lives here, not in the
indexer: the bench hands the indexer its own appliers.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from avadata.indexer.sink import Applier, SplitApplier


def timed(appliers: Sequence[Applier], spent: list[float]) -> list[SplitApplier]:
    """`appliers` in their split form, as the indexer runs them, with each writing half adding
    its seconds to `spent[0]`."""
    from avadata.indexer.sink import split

    def clock(apply: Callable[..., None]) -> Callable[..., None]:
        def run(*args: Any, **kwargs: Any) -> None:
            t = time.perf_counter()
            try:
                apply(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - t

        return run

    return [replace(s, apply=clock(s.apply)) for s in map(split, appliers)]


def main(url: str, db: str, chunk: int, timing: Path) -> None:
    from avadata.indexer import warm

    # First thing, as `avadata index` does (cli/main.py): the fetch process starts while this
    # one imports the writer's modules.
    warm.start([warm.Hint(url, db, chunk)])
    warm.yield_cpu()

    import asyncio

    from avadata.heap import tune_for_indexing
    from avadata.indexer.appliers import default_appliers
    from avadata.indexer.run import RunOptions, index_chains
    from avadata.store.engine import make_engine
    from avadata.store.migrate import migrate

    tune_for_indexing()
    spent = [0.0]
    appliers = timed(default_appliers(), spent)
    engine = make_engine(db)
    migrate(engine)
    options = RunOptions(once=True, chunk_blocks=chunk)
    asyncio.run(index_chains(engine, [url], options, appliers=appliers))
    timing.write_text(f"{spent[0]:.6f}\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]))
