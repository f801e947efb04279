"""`avadata metrics rebuild` recomputes the same buckets the indexer's applier wrote."""

from __future__ import annotations

import math
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

from avadata.cli.main import app
from avadata.metrics import series
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import METRICS
from avadata.metrics.rebuild import rebuild
from avadata.store import make_engine, migrate
from avadata.store.writer import mark_chain, write_evm_batch
from tests.metrics import oracle
from tests.metrics.synth import history
from tests.metrics.test_rollup_oracle import _load, _snapshot


def test_rebuild_reproduces_the_applier(engine: Engine) -> None:
    _load(engine, days=12)
    before = _snapshot(engine)
    stats = rebuild(engine, chunk_blocks=97)
    assert stats.chains == 3 and stats.blocks == len(before["metric_blocks"])
    assert _snapshot(engine) == before


def test_cli_rebuild_of_a_store_indexed_without_rollups(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    eng = make_engine(url)
    migrate(eng)
    h = history(7, seed=7, days=10)
    mark_chain(eng, 7, network="mainnet")
    for b in h.batches:
        write_evm_batch(eng, b)  # no applier: the rollup tables stay empty
    result = CliRunner().invoke(app, ["metrics", "rebuild", "--db", url])
    assert result.exit_code == 0, result.output
    assert "rebuilt metrics of 1 chain" in result.output
    with eng.connect() as conn:
        scope = series.resolve_scope(conn, "7")
        assert scope is not None
        for name in ("activeAddresses", "txCount", "cumulativeDeployers", "maxTps"):
            interval = Interval.DAY
            ext = series.extent(conn, scope, interval)
            assert ext is not None
            got = dict(series.points(conn, scope, METRICS[name].name, interval, *ext))
            want = oracle.series(h.oracle, name, "day")
            assert got.keys() == want.keys()
            assert all(math.isclose(got[t], want[t], rel_tol=1e-12) for t in want)
    eng.dispose()
