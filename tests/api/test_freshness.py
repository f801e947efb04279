"""Freshness headers: every answer about one chain (Data API and Metrics API) carries the
chain's indexed head and that block's age; others carry none."""

from __future__ import annotations

import asyncio
import time

from avadata.api import freshness
from avadata.api.freshness import FreshnessMiddleware
from avadata.store.engine import make_reader_engine
from tests.api.routes import C
from tests.api.synthetic import CHAIN_ID


def test_chain_answers_carry_the_head_and_its_lag(client, chain) -> None:
    last = max(chain.blocks, key=lambda b: b.number)
    for path in (f"{C}/blocks", f"/v2/chains/{CHAIN_ID}/metrics/txCount", f"{C}/blocks/999999"):
        r = client.get(path)
        assert r.headers["x-avadata-head"] == str(last.number), path
        lag = int(r.headers["x-avadata-lag-seconds"])
        assert abs(lag - (int(time.time()) - last.timestamp)) <= 2, path
    assert "x-avadata-head" not in client.get("/v1/chains").headers
    assert "x-avadata-head" not in client.get("/v1/chains/777777/blocks").headers


def _counted(engine, delay_s: float = 0.0):
    """The middleware over a bare app on `engine`, the heads it reads (its own store reads,
    each `delay_s` long) and the messages it sends."""
    sent: list[dict] = []
    reads: list[str] = []

    async def app(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def send(message) -> None:
        sent.append(message)

    middleware = FreshnessMiddleware(app, engine)
    real_read = middleware._read

    def counted(key: str):
        reads.append(key)
        time.sleep(delay_s)
        return real_read(key)

    middleware._read = counted  # type: ignore[method-assign]
    return (lambda: middleware({"type": "http", "path": f"{C}/blocks"}, None, send)), reads, sent


def _burst(engine, request, n: int) -> None:
    """`n` requests at once through the middleware, then the engine disposed."""

    async def burst() -> None:
        await asyncio.gather(*(request() for _ in range(n)))

    try:
        asyncio.run(burst())
    finally:
        engine.dispose()


def test_requests_that_find_the_head_stale_together_share_one_lookup(store) -> None:
    """Under load every request in flight when the cached head expires would look it up, each
    on a connection of its own: one lookup serves them all."""
    engine = make_reader_engine(store[0])
    request, reads, sent = _counted(engine)

    _burst(engine, request, 8)
    assert reads == [str(CHAIN_ID)]
    heads = [dict(m["headers"])[b"x-avadata-head"] for m in sent]
    assert len(heads) == 8 and len(set(heads)) == 1


def test_a_request_cancelled_while_it_looks_up_the_head_fails_no_other(store) -> None:
    """The request that started the shared lookup goes away (its client disconnected): the
    requests waiting on that lookup still get the head, read once."""
    engine = make_reader_engine(store[0])
    request, reads, sent = _counted(engine, delay_s=0.3)

    async def burst() -> None:
        first = asyncio.ensure_future(request())
        await asyncio.sleep(0.05)  # its lookup under way
        others = [asyncio.ensure_future(request()) for _ in range(3)]
        await asyncio.sleep(0.01)
        first.cancel()
        await asyncio.gather(*others)
        assert first.cancelled()

    try:
        asyncio.run(burst())
    finally:
        engine.dispose()
    assert reads == [str(CHAIN_ID)]
    assert len([m for m in sent if b"x-avadata-head" in dict(m["headers"])]) == 3


def test_a_failed_head_lookup_fails_no_request(store, monkeypatch) -> None:
    """The server restarting under a pooled connection fails the head's lookup: the requests
    waiting on it are answered without the headers."""
    engine = make_reader_engine(store[0])
    request, reads, sent = _counted(engine)

    def gone(_conn, _key):
        raise ConnectionError("server closed the connection unexpectedly")

    monkeypatch.setattr(freshness, "evm_head", gone)

    _burst(engine, request, 3)
    assert reads == [str(CHAIN_ID)] and len(sent) == 3
    assert not any(b"x-avadata-head" in dict(m["headers"]) for m in sent)
