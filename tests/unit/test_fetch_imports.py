"""The fetch process's modules stay clear of SQLAlchemy (and the store's engine code) and of
eth-abi (with its eth-utils and pydantic).

Why a test: the process is on the way to the indexer's first batch, and SQLAlchemy alone is a
good part of its start (docs/benchmarks.md); one import of a store module through the package,
or of a schema table for its name, brings it back without failing anything else. eth-abi cost
as much again, for two ABI layouts decode/abi.py reads by hand.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from avadata.indexer.appliers import default_appliers, split
from avadata.indexer.fetch.protocol import FeedConfig

# What a fetch process runs before its first batch: its main and guess (child.py, guess.py),
# the decoding pipeline, and the FeedConfig the parent sends (its appliers' pure halves come
# with it, by reference).
_CHILD = """
import pickle, sys
import avadata.indexer.fetch.child
from avadata.indexer.fetch.guess import resume_block
print(resume_block(sys.argv[1], 43113))
import avadata.indexer.fetch.produce
avadata.indexer.fetch.produce.preload()
config = pickle.loads(sys.stdin.buffer.read())
heavy = ("sqlalchemy", "eth_abi", "pydantic")
print(" ".join(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def _run(db_url: str) -> list[str]:
    config = FeedConfig(
        rpc_url="http://127.0.0.1:9",
        chain_id=43113,
        prepares=tuple(split(a).prepare for a in default_appliers()),
    )
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, db_url],
        input=pickle.dumps(config),
        capture_output=True,
        check=True,
    )
    return out.stdout.decode().splitlines()


def test_the_fetch_process_imports_no_sqlalchemy_nor_eth_abi(tmp_path: Path) -> None:
    lines = _run(f"sqlite:///{tmp_path / 'none.db'}")
    assert lines[0] == "0"
    assert lines[1:] in ([], [""])


def test_the_check_sees_sqlalchemy_when_it_is_imported(tmp_path: Path) -> None:
    # The same probe on a PostgreSQL URL takes the store's path: the check can fail.
    lines = _run("postgresql://nobody@127.0.0.1:9/none")
    assert lines[0] == "0"
    assert "sqlalchemy" in lines[1].split()
