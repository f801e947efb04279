"""Rolling-window metrics: every window of every metric and scope equals the oracle over the
window's blocks (tests/metrics/oracle.py, no avadata arithmetic) and, for the sum and max
metrics, exactly the per-request computation over every bucket of the window
(rolling_per_request.py: the served values come from the rollup's running totals), on both
engines, and again after `avadata metrics rebuild` recomputed the rollups."""

from __future__ import annotations

import importlib
import math

from sqlalchemy import Engine, select, update

from avadata.api.metrics.rolling import rolling_values
from avadata.metrics.catalog import MetricName
from avadata.metrics.rolling import DISTINCT_KIND, RUNNING_FIELDS
from avadata.store.metrics import series_reads
from avadata.store.metrics.rebuild import rebuild
from avadata.store.schema import metric_sums
from tests.metrics import oracle
from tests.metrics.rolling_per_request import per_request
from tests.metrics.test_rollup_oracle import CHAINS, _load

HOUR, DAY = 3600, 86400
# (window, seconds per bucket, buckets); None: all time.
HOURLY = [("lastHour", HOUR, 1), ("lastDay", HOUR, 24), ("lastWeek", HOUR, 168)]
DAILY = [("lastMonth", DAY, 30), ("last90Days", DAY, 90), ("lastYear", DAY, 365)]
DEPLOYER = [("lastDay", DAY, 1), ("lastWeek", DAY, 7), *DAILY, ("allTime", DAY, None)]


def _expected(blocks: list[oracle.OBlock], metric: str) -> dict[str, float]:
    """The windows written out again: whole buckets ending with the newest block's bucket."""
    newest = max(b.timestamp for b in blocks)
    first_day = oracle.bucket_of(min(b.timestamp for b in blocks), "day")
    if metric in ("activeAddresses", "activeSenders"):
        windows = HOURLY
    elif metric == "deployers":
        windows = DEPLOYER
    else:
        windows = [*HOURLY, *DAILY, ("allTime", DAY, None)]
    out = {}
    for name, step, n in windows:
        last = oracle.bucket_of(newest, "hour" if step == HOUR else "day")
        lo = first_day if n is None else last - (n - 1) * step
        hi = last + step
        inside = [b for b in blocks if lo <= b.timestamp < hi]
        upto = [b for b in blocks if b.timestamp < hi]
        out[name] = oracle.value(blocks, metric, lo, hi, inside=inside, upto_end=upto)
    return out


def _check(engine: Engine, hs: dict) -> None:
    scopes = {"11": [11], "22": [22], "total": list(CHAINS), "testnet": [22, 33]}
    with engine.connect() as conn:
        for key, members in scopes.items():
            blocks = [b for c in members for b in hs[c].oracle]
            scope = series_reads.resolve_scope(conn, key)
            assert scope is not None
            for metric in (
                "gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice",
                "maxGasPrice", "feesPaid", "contracts", "deployers", "activeAddresses",
                "activeSenders",
            ):  # fmt: skip
                got = rolling_values(conn, scope, MetricName(metric))
                want = _expected(blocks, metric)
                if MetricName(metric) not in DISTINCT_KIND:
                    assert got == per_request(conn, scope, MetricName(metric)), (key, metric)
                assert got.keys() == want.keys(), (key, metric)
                for w in want:
                    assert math.isclose(got[w], want[w], rel_tol=1e-12), (key, metric, w)


def _running_columns(engine: Engine) -> list[tuple[object, ...]]:
    c = metric_sums.c
    keys = (c.chain_id, c.interval, c.bucket)
    run = [c[f"run_{f}"] for f in RUNNING_FIELDS]
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(select(*keys, *run).order_by(*keys))]


def _revision_fills_them_alike(engine: Engine) -> None:
    """Revision 0023 computes the running totals of a store rolled up before it: the same
    values the rollup keeps batch by batch."""
    kept = _running_columns(engine)
    assert any(r[3] for r in kept)
    with engine.begin() as conn:
        conn.execute(update(metric_sums).values({f"run_{f}": 0 for f in RUNNING_FIELDS}))
        revision = importlib.import_module(
            "avadata.store.migrations.versions.20261125_0023_metric_sums_running_totals"
        )
        revision._fill_running_totals(conn)
    assert _running_columns(engine) == kept


def test_rolling_windows_equal_the_oracle_and_survive_rebuild(engine: Engine) -> None:
    hs = _load(engine, days=40)
    _check(engine, hs)
    _revision_fills_them_alike(engine)
    rebuild(engine, chunk_blocks=101)
    _check(engine, hs)


def test_rolling_window_http_and_bad_input(tmp_path) -> None:
    from avadata.api.app import create_app
    from avadata.settings import Settings
    from avadata.store.engine import make_engine
    from avadata.store.metrics.rollup_writer import apply_metrics
    from avadata.store.migrate import migrate
    from avadata.store.writer import mark_chain, write_evm_batch
    from tests.api.http import TestClient
    from tests.metrics.synth import history

    url = f"sqlite:///{tmp_path / 's.db'}"
    eng = make_engine(url)
    migrate(eng)
    h = history(5, seed=5, days=3)
    mark_chain(eng, 5, network="mainnet")
    for b in h.batches:
        write_evm_batch(eng, b, appliers=[apply_metrics])
    mark_chain(eng, 6, network="testnet")  # a chain without blocks
    eng.dispose()
    with TestClient(create_app(Settings(db_url=url)), raise_server_exceptions=False) as c:
        r = c.get("/v2/chains/5/rollingWindowMetrics/txCount")
        assert r.status_code == 200
        assert r.json() == {"result": _expected(h.oracle, "txCount")}
        assert c.get("/v2/chains/6/rollingWindowMetrics/txCount").json() == {"result": {}}
        for path, status, word in (
            ("/v2/chains/5/rollingWindowMetrics/cumulativeTxCount", 400, "metric"),
            ("/v2/chains/5/rollingWindowMetrics/nope", 400, "metric"),
            ("/v2/chains/999/rollingWindowMetrics/txCount", 404, "chainId"),
            ("/v2/chains/abc/rollingWindowMetrics/txCount", 400, "chainId"),
        ):
            r = c.get(path)
            assert r.status_code == status and word in r.json()["message"], path
