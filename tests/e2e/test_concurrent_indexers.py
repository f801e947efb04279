"""Indexing into PostgreSQL: one indexer per chain, all writing one database at the same time
(docs/deploy.md), finish and leave exactly what indexing the chains one after the other does,
the metrics' aggregate scopes (fed by both chains) included; and one chain indexed into each
engine leaves the same rows in both."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from avadata.devnet.evm.traffic import SMALL
from avadata.store.engine import make_engine
from avadata.store.schema import metadata
from tests.store.tables import dump
from tests.support import pg_cluster as pgc
from tests.support.devnet import SeededChain, seeded_chain_fixture

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

second_chain = seeded_chain_fixture(99902, dataclasses.replace(SMALL, seed=2, blocks=150))


@pytest.fixture(scope="module")
def cluster() -> Iterator[pgc.PgCluster]:
    with pgc.PgCluster() as c:
        yield c


def _index(url: str, rpc: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "avadata", "index", "--once", "--db", url, "--rpc", rpc],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )


def _finish(proc: subprocess.Popen[str]) -> None:
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]


def _everything(url: str) -> dict[str, list[tuple]]:
    engine = make_engine(url)
    try:
        out = dump(engine)
        with engine.connect() as conn:
            for name, t in metadata.tables.items():
                if name.startswith("metric_") and name != "metric_page_tokens":
                    pk = list(t.primary_key.columns)
                    out[name] = [tuple(r) for r in conn.execute(select(t).order_by(*pk))]
        return out
    finally:
        engine.dispose()


def test_two_indexers_at_once_write_what_one_after_the_other_does(
    cluster: pgc.PgCluster, devnet_chain: SeededChain, second_chain: SeededChain
) -> None:
    together = cluster.url(cluster.create_database())
    running = [_index(together, c.rpc_url) for c in (devnet_chain, second_chain)]
    for proc in running:
        _finish(proc)
    apart = cluster.url(cluster.create_database())
    for chain in (devnet_chain, second_chain):
        _finish(_index(apart, chain.rpc_url))
    got, expected = _everything(together), _everything(apart)
    assert got["evm_blocks"] and got["metric_counts"]
    assert {c[0] for c in got["chains"]} == {devnet_chain.chain_id, second_chain.chain_id}
    for name in expected:
        assert got[name] == expected[name], name


def test_postgres_holds_what_sqlite_holds(
    cluster: pgc.PgCluster, devnet_chain: SeededChain, tmp_path
) -> None:
    """The same chain indexed into each engine (PostgreSQL's writer COPYing new blocks
    straight into their tables, SQLite's inserting): the same rows, the rollup's included."""
    pg = cluster.url(cluster.create_database())
    lite = f"sqlite:///{tmp_path / 'lite.db'}"
    for url in (pg, lite):
        _finish(_index(url, devnet_chain.rpc_url))
    got, expected = _everything(pg), _everything(lite)
    for name in expected:
        assert got[name] == expected[name], name
