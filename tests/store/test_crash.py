"""kill -9 a writer at random points: after resuming, the tables equal a clean run's, row by row."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from avadata.store import get_cursor, make_engine, write_evm_batch
from avadata.store.migrate import migrate
from tests.store.builders import rich_batch
from tests.store.tables import dump

ROOT = Path(__file__).resolve().parents[2]
CHAIN, SIZE, BATCHES = 43113, 25, 24

WRITER = f"""
import sys
from avadata.store import get_cursor, make_engine, write_evm_batch
from tests.store.builders import rich_batch
engine = make_engine(sys.argv[1])
cur = get_cursor(engine, {CHAIN})
start = 0 if cur is None else cur.block_number + 1
print("ready", flush=True)
for first in range(start, {SIZE * BATCHES}, {SIZE}):
    write_evm_batch(engine, rich_batch({CHAIN}, first, first + {SIZE - 1}))
print("done", flush=True)
"""


def _run_writer(url: str, kill_after: float | None) -> bool:
    """Run the writer; kill -9 it `kill_after` seconds after it is ready. True if it finished."""
    # The tests' package, and whatever path the suite itself runs on (a worktree's src).
    path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, url], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        if kill_after is not None:
            time.sleep(kill_after)
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=120)
        return proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _clean_copy_url(request, db_url: str, tmp_path: Path) -> str:
    if db_url.startswith("sqlite"):
        url = f"sqlite:///{tmp_path / 'clean.db'}"
        eng = make_engine(url)
        migrate(eng)
        eng.dispose()
        return url
    cluster = request.getfixturevalue("pg_cluster")
    name = cluster.create_database(template=request.getfixturevalue("pg_template"))
    request.addfinalizer(lambda: cluster.drop_database(name))
    return cluster.url(name)


def test_kill_9_at_random_points_loses_and_duplicates_nothing(request, engine, db_url, tmp_path):
    rng = random.Random(20261122)
    kills = 0
    for _ in range(3):
        if _run_writer(db_url, kill_after=rng.uniform(0.02, 0.25)):
            break
        kills += 1
        cur = get_cursor(engine, CHAIN)
        # Between runs the cursor and the rows agree: nothing past it, nothing missing before it.
        blocks = dump(engine)["evm_blocks"]
        assert [b[1] for b in blocks] == ([] if cur is None else list(range(cur.block_number + 1)))
    assert kills >= 1  # at least one run died mid-way, or the test proved nothing
    _write_all(engine)  # resume to the end

    clean = make_engine(_clean_copy_url(request, db_url, tmp_path))
    try:
        _write_all(clean)
        assert dump(engine) == dump(clean)
    finally:
        clean.dispose()


def _write_all(engine) -> None:
    """The writer script's loop, in this process: from the cursor to the end."""
    cur = get_cursor(engine, CHAIN)
    start = 0 if cur is None else cur.block_number + 1
    for first in range(start, SIZE * BATCHES, SIZE):
        write_evm_batch(engine, rich_batch(CHAIN, first, first + SIZE - 1))
