"""Sub-second blocks (ACP-226): where headers carry timeMilliseconds, maxTps and maxGps divide by
the milliseconds since the previous block, not by whole seconds. Truth: the samples recomputed
here from the blocks' own millisecond times (and, for the difference, the one-second rule the
seed's oracle applies); both engines, before and after `metrics rebuild`."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine

from avadata.api.metrics.rolling import rolling_values
from avadata.decode.evm import decode_block
from avadata.metrics.buckets import DAY, Interval
from avadata.metrics.catalog import MetricName
from avadata.records import EvmBatch, RawBlock, TraceStyle
from avadata.store.metrics import series_reads
from avadata.store.metrics.rebuild import rebuild
from avadata.store.metrics.rollup_writer import apply_metrics
from avadata.store.writer import mark_chain, write_evm_batch
from tests.metrics import oracle
from tests.metrics.rolling_per_request import WINDOWS, per_request
from tests.metrics.synth import history


def _millisecond_history() -> tuple[
    list[EvmBatch], dict[int, int], dict[int, int], list[oracle.OBlock]
]:
    """The synthetic history (it has blocks sharing a second), each block given the
    millisecond time a sub-second chain's header would carry: 150 ms apart within a second.
    Returns the batches, each block's ms time and tx count, and the oracle's blocks (whole
    seconds)."""
    h = history(9, seed=12, days=10)
    ms: dict[int, int] = {}
    txs: dict[int, int] = {}
    prev_ts, rank = None, 0
    for batch in h.batches:
        for i, b in enumerate(batch.blocks):
            rank = rank + 1 if b.timestamp == prev_ts else 0
            prev_ts = b.timestamp
            ms[b.number] = b.timestamp * 1000 + rank * 150
            txs[b.number] = b.tx_count
            batch.blocks[i] = b._replace(time_ms=ms[b.number])
    assert any(r for r in (ms[n] % 1000 for n in ms)), "no two blocks share a second"
    return h.batches, ms, txs, h.oracle


def _want(ms: dict[int, int], txs: dict[int, int]) -> dict[int, float]:
    """maxTps per day from the millisecond times."""
    out: dict[int, float] = {}
    for n in sorted(ms):
        if n - 1 not in ms:
            continue
        day = ms[n] // 1000 - ms[n] // 1000 % DAY
        sample = txs[n] / (max(ms[n] - ms[n - 1], 1) / 1000)
        out[day] = max(out.get(day, 0.0), sample)
    return out


def _avg_over(ms: dict[int, int], txs: dict[int, int], lo: int, hi: int) -> float:
    """avgTps over the blocks stamped in [lo, hi) seconds: their txs over the milliseconds
    from the last block before them (else the first of them) to the last of them."""
    inside = [n for n in sorted(ms) if lo <= ms[n] // 1000 < hi]
    if not inside:
        return 0.0
    before = [n for n in ms if ms[n] // 1000 < lo]
    start = ms[max(before)] if before else ms[inside[0]]
    span = ms[inside[-1]] - start
    return sum(txs[n] for n in inside) * 1000 / span if span > 0 else 0.0


def _want_avg(ms: dict[int, int], txs: dict[int, int]) -> dict[int, float]:
    """avgTps per day from the millisecond times."""
    days = {ms[n] // 1000 // DAY * DAY for n in ms}
    return {d: _avg_over(ms, txs, d, d + DAY) for d in days}


def _want_rolling_avg(ms: dict[int, int], txs: dict[int, int]) -> dict[str, float]:
    newest = max(ms.values()) // 1000
    out = {}
    for name, interval, count in WINDOWS:
        step = 3600 if interval is Interval.HOUR else DAY
        last = newest - newest % step
        lo = -1 if count is None else last - (count - 1) * step
        out[name] = _avg_over(ms, txs, lo, last + step)
    return out


def _served(engine: Engine, metric: MetricName = MetricName.MAX_TPS) -> dict[int, float]:
    return _served_chain(engine, 9, metric)


def _served_chain(
    engine: Engine, chain_id: int, metric: MetricName = MetricName.MAX_TPS
) -> dict[int, float]:
    with engine.connect() as conn:
        scope = series_reads.resolve_scope(conn, str(chain_id))
        assert scope is not None
        ext = series_reads.extent(conn, scope, Interval.DAY)
        assert ext is not None
        return dict(series_reads.points(conn, scope, metric, Interval.DAY, *ext))


def _close(got: dict, want: dict) -> bool:
    return got.keys() >= want.keys() and all(
        math.isclose(got[k], want[k], rel_tol=1e-12) for k in want
    )


def _rolling_avg(engine: Engine, chain_id: int) -> dict[str, float]:
    """The served rolling avgTps, checked equal to the per-request computation."""
    with engine.connect() as conn:
        scope = series_reads.resolve_scope(conn, str(chain_id))
        assert scope is not None
        got = rolling_values(conn, scope, MetricName.AVG_TPS)
        assert got == per_request(conn, scope, MetricName.AVG_TPS)
        return got


def test_rates_use_millisecond_headers(engine: Engine) -> None:
    batches, ms, txs, whole_seconds = _millisecond_history()
    mark_chain(engine, 9, network="testnet")
    for b in batches:
        write_evm_batch(engine, b, appliers=[apply_metrics])
    want = _want(ms, txs)
    got = _served(engine)
    assert _close(got, want), (got, want)
    # With whole seconds (the oracle's one-second rule) the same chain's maxTps is lower.
    seconds = oracle.series(whole_seconds, "maxTps", "day")
    assert any(seconds[d] < want[d] for d in want), "no day where milliseconds matter"
    # avgTps spans run between millisecond times too: per day and per rolling window.
    avg = _served(engine, MetricName.AVG_TPS)
    want_avg = _want_avg(ms, txs)
    assert _close(avg, want_avg), (avg, want_avg)
    avg_seconds = oracle.series(whole_seconds, "avgTps", "day")
    assert any(not math.isclose(avg_seconds[d], want_avg[d], rel_tol=1e-9) for d in want_avg)
    rolling = _rolling_avg(engine, 9)
    assert _close(rolling, _want_rolling_avg(ms, txs)), rolling
    rebuild(engine)
    assert _served(engine) == got
    assert _served(engine, MetricName.AVG_TPS) == avg
    assert _rolling_avg(engine, 9) == rolling


def test_decode_reads_time_milliseconds() -> None:
    header = {
        "number": "0x5",
        "hash": "0x" + "ab" * 32,
        "parentHash": "0x" + "cd" * 32,
        "timestamp": "0x6744a1b0",
        "timeMilliseconds": hex(0x6744A1B0 * 1000 + 375),
        "gasUsed": "0x0",
        "gasLimit": "0x1c9c380",
        "miner": "0x" + "00" * 20,
        "transactions": [],
    }
    batch = EvmBatch(1, 5, 5)
    decode_block(1, RawBlock(header, [], TraceStyle.NONE, []), batch)
    assert batch.blocks[0].time_ms == 0x6744A1B0 * 1000 + 375
    del header["timeMilliseconds"]
    batch = EvmBatch(1, 5, 5)
    decode_block(1, RawBlock(header, [], TraceStyle.NONE, []), batch)
    assert batch.blocks[0].time_ms is None


def test_the_devnet_sub_second_chain(tmp_path: Path) -> None:
    """`avadata devnet --subsecond`'s chain (alone here, without the primary network) mines
    its history in bursts of blocks sharing a second, and the facade serves them with
    millisecond headers. Indexed through the facade, the chain's maxTps and avgTps are the
    ones the facade's own headers give (read here as raw JSON), not what whole seconds give."""
    from avadata.devnet.evm.traffic import TrafficConfig
    from avadata.devnet.network import SUBSECOND_CHAIN, Devnet, DevnetConfig
    from avadata.indexer.appliers import ROLLUP
    from avadata.indexer.run import RunOptions, index_chains
    from avadata.store.engine import make_engine
    from avadata.store.migrate import migrate

    history = TrafficConfig(days=2, blocks=24, txs_per_block=3, accounts=30, start_timestamp=0)
    config = DevnetConfig(
        port=0, chains=(SUBSECOND_CHAIN,), history=history, live_interval=None, primary=None
    )
    chain_id = SUBSECOND_CHAIN.chain_id
    engine = make_engine(f"sqlite:///{tmp_path / 'fast.db'}")
    migrate(engine)
    mark_chain(engine, chain_id, network="testnet")
    with Devnet(config) as net, httpx.Client(timeout=30) as http:
        url = net.rpc_urls[SUBSECOND_CHAIN.name]

        def block(n: int) -> Any:
            body = {"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber"}
            return http.post(url, json=body | {"params": [hex(n), False]}).json()["result"]

        head = net.chains[SUBSECOND_CHAIN.name].ledger.last_block
        blocks = [block(n) for n in range(head + 1)]
        options = RunOptions(once=True, chunk_blocks=100, fetch_process=False)
        asyncio.run(index_chains(engine, [url], options, appliers=[ROLLUP]))
    ms = {int(b["number"], 16): int(b["timeMilliseconds"], 16) for b in blocks}
    seconds = {int(b["number"], 16): int(b["timestamp"], 16) * 1000 for b in blocks}
    txs = {int(b["number"], 16): len(b["transactions"]) for b in blocks}
    assert all(ms[n] // 1000 == seconds[n] // 1000 for n in ms)
    assert any(ms[n] % 1000 for n in ms), "no two blocks in one second"
    got = {m: _served_chain(engine, chain_id, m) for m in (MetricName.MAX_TPS, MetricName.AVG_TPS)}
    rolling = _rolling_avg(engine, chain_id)
    _served_milliseconds(engine, chain_id, blocks)
    engine.dispose()
    want, want_avg = _want(ms, txs), _want_avg(ms, txs)
    assert _close(got[MetricName.MAX_TPS], want) and _close(got[MetricName.AVG_TPS], want_avg)
    assert _close(rolling, _want_rolling_avg(ms, txs))
    # Whole seconds (every block of a second counts one) give a lower maxTps, another avgTps.
    whole: dict[int, float] = {}
    for n in sorted(seconds)[1:]:
        day = seconds[n] // 1000 // DAY * DAY
        sample = txs[n] / max((seconds[n] - seconds[n - 1]) // 1000, 1)
        whole[day] = max(whole.get(day, 0.0), sample)
    assert any(v < want[d] for d, v in whole.items())
    in_seconds = _want_avg(seconds, txs)
    assert any(not math.isclose(v, want_avg[d], rel_tol=1e-9) for d, v in in_seconds.items())


def _served_milliseconds(engine: Engine, chain_id: int, blocks: list[dict[str, Any]]) -> None:
    """The Data API sends each block's timeMilliseconds as the reference's optional
    blockTimestampMilliseconds: on getBlock and on getTransaction's nativeTransaction."""
    from avadata.api.app import create_app
    from avadata.settings import Settings
    from tests.api.http import TestClient
    from tests.support.glacier_schema import conforms

    settings = Settings(db_url=str(engine.url), page_token_secret="subsecond-secret-0123")
    with TestClient(create_app(settings)) as client:
        for b in [b for b in blocks if b["transactions"]][-3:]:
            want = int(b["timeMilliseconds"], 16)
            got = client.get(f"/v1/chains/{chain_id}/blocks/{int(b['number'], 16)}").json()
            conforms(got, "GetEvmBlockResponse")
            assert got["blockTimestampMilliseconds"] == want
            tx = client.get(f"/v1/chains/{chain_id}/transactions/{b['transactions'][0]}").json()
            conforms(tx, "GetTransactionResponse")
            assert tx["nativeTransaction"]["blockTimestampMilliseconds"] == want
