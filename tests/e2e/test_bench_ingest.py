"""`avadata bench ingest`'s avadata contender (bench/timed_index.py) indexes what `avadata
index --once` indexes, and reports the seconds its appliers' writing halves took."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from avadata.indexer.run import RunOptions, index_chains
from avadata.store.engine import make_engine
from tests.support.dump import assert_same_rows, dump

pytestmark = pytest.mark.e2e

CHUNK = 50


def test_timed_index_writes_the_same_rows_and_times_the_rollup(
    devnet_chain, engine_factory, tmp_path: Path
) -> None:
    db = f"sqlite:///{tmp_path / 'timed.db'}"
    timing = tmp_path / "rollup-seconds"
    subprocess.run(
        [sys.executable, "-m", "avadata.bench.timed_index", str(timing)]
        + ["--rpc", devnet_chain.rpc_url, "--db", db, "--once", "--chunk-blocks", str(CHUNK)],
        check=True,
        timeout=300,
    )
    spent = float(timing.read_text())
    assert 0 < spent < 60

    want = engine_factory()
    asyncio.run(
        index_chains(want, [devnet_chain.rpc_url], RunOptions(once=True, chunk_blocks=CHUNK))
    )
    got = make_engine(db)
    try:
        # The command line labels the chain (its identity); `want` is a library call's store.
        assert_same_rows(dump(got, identity=False), dump(want, identity=False))
    finally:
        got.dispose()


@pytest.mark.postgres
def test_a_postgresql_bench_takes_turns_with_sqlite_and_leaves_no_schema(devnet_chain) -> None:
    from sqlalchemy import text

    from avadata.bench.ingest import measure
    from tests.support import pg_cluster as pgc

    cluster = pgc.shared()
    url = cluster.url(cluster.create_database())
    results = measure(
        devnet_chain.rpc_url,
        devnet_chain.head,
        1,
        db_url=url,
        chunk=CHUNK,
        in_flight=2,
        etl=False,
        rounds=2,
    )
    assert set(results) == {"raw pull", "avadata sqlite", "avadata postgresql"}
    assert all(len(r.rounds) == 2 and min(r.rounds) > 0 for r in results.values())
    assert results["avadata postgresql"].rollup_seconds is not None
    admin = make_engine(url)
    try:
        with admin.connect() as conn:
            left = conn.execute(
                text("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'avadata_bench%'")
            ).all()
            tables = conn.execute(
                text("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
            )
            assert left == [] and tables.scalar_one() == 0
    finally:
        admin.dispose()
