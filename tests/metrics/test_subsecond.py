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

from avadata.decode.evm import decode_block
from avadata.metrics.buckets import DAY, Interval
from avadata.metrics.catalog import MetricName
from avadata.records import EvmBatch, RawBlock, TraceStyle
from avadata.store.metrics import series_reads
from avadata.store.metrics.rebuild import rebuild
from avadata.store.metrics.rollup_writer import apply_metrics
from avadata.store.writer import mark_chain, write_evm_batch
from tests.metrics import oracle
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


def _served(engine: Engine) -> dict[int, float]:
    return _served_chain(engine, 9)


def _served_chain(engine: Engine, chain_id: int) -> dict[int, float]:
    with engine.connect() as conn:
        scope = series_reads.resolve_scope(conn, str(chain_id))
        assert scope is not None
        ext = series_reads.extent(conn, scope, Interval.DAY)
        assert ext is not None
        return dict(series_reads.points(conn, scope, MetricName.MAX_TPS, Interval.DAY, *ext))


def test_max_tps_uses_millisecond_headers(engine: Engine) -> None:
    batches, ms, txs, whole_seconds = _millisecond_history()
    mark_chain(engine, 9, network="testnet")
    for b in batches:
        write_evm_batch(engine, b, appliers=[apply_metrics])
    want = _want(ms, txs)
    got = _served(engine)
    assert got.keys() >= want.keys()
    assert all(math.isclose(got[d], want[d], rel_tol=1e-12) for d in want), (got, want)
    # With whole seconds (the oracle's one-second rule) the same chain's maxTps is lower.
    seconds = oracle.series(whole_seconds, "maxTps", "day")
    assert any(seconds[d] < want[d] for d in want), "no day where milliseconds matter"
    rebuild(engine)
    assert _served(engine) == got


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


def test_a_sub_second_devnet_chain_through_the_facade(tmp_path: Path) -> None:
    """An automining anvil fed transactions back to back mines several blocks per second; the
    facade serves them with millisecond headers. Indexed through the facade, the chain's maxTps
    is the one the facade's own headers give (read here as raw JSON), higher than whole
    seconds would make it."""
    from avadata.devnet.evm.anvil import AnvilOptions, start_anvil
    from avadata.devnet.facade.routes import ChainRoute
    from avadata.devnet.facade.server import FacadeServer
    from avadata.devnet.facade.subsecond import millisecond_methods
    from avadata.indexer.appliers import ROLLUP
    from avadata.indexer.run import RunOptions, index_chains
    from avadata.store.engine import make_engine
    from avadata.store.migrate import migrate

    chain_id = 99977
    anvil = start_anvil(AnvilOptions(chain_id=chain_id, automine=True))
    server = FacadeServer(
        [ChainRoute("fast", chain_id, anvil.rpc_url, (), millisecond_methods(anvil.rpc_url))],
        port=0,
    )
    try:
        with httpx.Client(timeout=30) as http:

            def rpc(url: str, method: str, *params: Any) -> Any:
                body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)}
                return http.post(url, json=body).json()["result"]

            sender, to = rpc(anvil.rpc_url, "eth_accounts")[:2]
            for _ in range(40):
                rpc(
                    anvil.rpc_url, "eth_sendTransaction", {"from": sender, "to": to, "value": "0x1"}
                )
            server.start()
            url = server.rpc_url("fast")
            head = int(rpc(url, "eth_blockNumber"), 16)
            blocks = [rpc(url, "eth_getBlockByNumber", hex(n), False) for n in range(head + 1)]
        engine = make_engine(f"sqlite:///{tmp_path / 'fast.db'}")
        migrate(engine)
        mark_chain(engine, chain_id, network="testnet")
        options = RunOptions(once=True, chunk_blocks=7, fetch_process=False)
        asyncio.run(index_chains(engine, [url], options, appliers=[ROLLUP]))
    finally:
        server.stop()
        anvil.stop()
    ms = {int(b["number"], 16): int(b["timeMilliseconds"], 16) for b in blocks}
    txs = {int(b["number"], 16): len(b["transactions"]) for b in blocks}
    assert all(ms[n] // 1000 == int(b["timestamp"], 16) for n, b in enumerate(blocks))
    assert any(ms[n] % 1000 for n in ms), "anvil mined no two blocks in one second"
    want = _want(ms, txs)
    seconds = {int(b["timestamp"], 16) // DAY * DAY: 0.0 for b in blocks}
    for n in range(1, head + 1):
        ts, prev = int(blocks[n]["timestamp"], 16), int(blocks[n - 1]["timestamp"], 16)
        day = ts - ts % DAY
        seconds[day] = max(seconds[day], txs[n] / max(ts - prev, 1))
    got = _served_chain(engine, chain_id)
    _served_milliseconds(engine, chain_id, blocks)
    engine.dispose()
    assert got.keys() >= want.keys()
    assert all(math.isclose(got[d], want[d], rel_tol=1e-12) for d in want), (got, want)
    assert any(want[d] > seconds[d] for d in want)


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
