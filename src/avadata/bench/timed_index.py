"""`avadata index` with the metrics rollup's writing half timed, for `avadata bench ingest`
(bench/ingest.py) to report the rollup's share of the indexer's ingest time.

Run as `python -m avadata.bench.timed_index SECONDS_FILE INDEX_OPTIONS...`: the command line
itself (cli.main.main) with this module's applier list instead of the default one, and the
seconds spent in the rollup's writing half written to SECONDS_FILE at the end. Light on
purpose, as `python -m avadata` is: the fetch processes start before anything heavy is
imported (the applier list is made when `index` asks for it), and each of them imports this
module again (multiprocessing's spawn).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from avadata.metrics.rollup import RollupChanges
    from avadata.store.batch_cache import Carried
    from avadata.store.types import Connection
    from avadata.store.writer import Applier


def _timed_rollup(spent: list[float]) -> list[Applier]:
    """The default appliers' rollup, its writing half adding its seconds to `spent[0]`."""
    import time

    from avadata.indexer.appliers import SplitApplier
    from avadata.metrics.rollup import changes
    from avadata.store.metrics.rollup_writer import apply_changes

    def timed_apply(conn: Connection, ch: RollupChanges, carried: Carried | None = None) -> None:
        t = time.perf_counter()
        try:
            apply_changes(conn, ch, carried)
        finally:
            spent[0] += time.perf_counter() - t

    return [SplitApplier(changes, timed_apply, carries=True)]


def main(argv: list[str]) -> None:
    from avadata.cli.main import main as cli_main

    target, args = argv[0], argv[1:]
    spent = [0.0]
    try:
        cli_main(["index", *args], appliers=lambda: _timed_rollup(spent))
    finally:
        with open(target, "w") as f:
            f.write(f"{spent[0]:.6f}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
