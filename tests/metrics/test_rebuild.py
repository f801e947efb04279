"""`avadata metrics rebuild` recomputes the same buckets the indexer's applier wrote."""

from __future__ import annotations

import math
from pathlib import Path

from sqlalchemy import Engine
from typer.testing import CliRunner

from avadata.cli.main import app
from avadata.metrics.buckets import Interval
from avadata.metrics.catalog import METRICS
from avadata.store.engine import make_engine
from avadata.store.metrics import series_reads
from avadata.store.metrics.rebuild import rebuild
from avadata.store.migrate import migrate
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
        scope = series_reads.resolve_scope(conn, "7")
        assert scope is not None
        for name in ("activeAddresses", "txCount", "cumulativeDeployers", "maxTps"):
            interval = Interval.DAY
            ext = series_reads.extent(conn, scope, interval)
            assert ext is not None
            got = dict(series_reads.points(conn, scope, METRICS[name].name, interval, *ext))
            want = oracle.series(h.oracle, name, "day")
            assert got.keys() == want.keys()
            assert all(math.isclose(got[t], want[t], rel_tol=1e-12) for t in want)
    eng.dispose()


def test_unbuilt_aggregate_answers_503_over_http(tmp_path: Path) -> None:
    from avadata.api.app import create_app
    from avadata.settings import Settings
    from avadata.store.metrics.rollup_writer import apply_metrics
    from tests.api.http import TestClient

    url = f"sqlite:///{tmp_path / 's.db'}"
    eng = make_engine(url)
    migrate(eng)
    for c in (1, 2):
        mark_chain(eng, c, network="testnet")
        for b in history(c, seed=c, days=3).batches:
            write_evm_batch(eng, b, appliers=[apply_metrics])
    # A third chain joins with data but no batch has been rolled up since: aggregate unbuilt.
    mark_chain(eng, 3, network="testnet")
    for b in history(3, seed=3, days=3).batches:
        write_evm_batch(eng, b)
    with eng.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO metric_sums (chain_id, interval, bucket, blocks, txs, gas_used, fees, "
            "gas_price_sum, gas_price_max, contracts, first_ts, last_ts, max_tps, max_gps) "
            "VALUES (3, 'd', 0, 0, 0, 0, '0', '0', '0', 0, NULL, NULL, 0, 0)"
        )
    eng.dispose()
    with TestClient(create_app(Settings(db_url=url)), raise_server_exceptions=False) as client:
        r = client.get("/v2/chains/testnet/metrics/activeAddresses")
        assert r.status_code == 503 and r.headers["retry-after"] == "5"
        assert set(r.json()) == {"message", "error", "statusCode"}
        assert client.get("/v2/chains/testnet/metrics/txCount").status_code == 200
