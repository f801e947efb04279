"""Freshness headers: every answer about one chain (Data API and Metrics API) carries the
chain's indexed head and that block's age; others carry none."""

from __future__ import annotations

import asyncio
import time

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


def test_requests_that_find_the_head_stale_together_share_one_lookup(store) -> None:
    """Under load every request in flight when the cached head expires would look it up, each
    on a connection of its own: one lookup serves them all."""
    engine = make_reader_engine(store[0])
    sent: list[dict] = []

    async def app(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def send(message) -> None:
        sent.append(message)

    middleware = FreshnessMiddleware(app, engine)
    reads: list[str] = []
    real_read = middleware._read

    def counted(key: str):
        reads.append(key)
        return real_read(key)

    middleware._read = counted  # type: ignore[method-assign]
    scope = {"type": "http", "path": f"{C}/blocks"}

    async def burst() -> None:
        await asyncio.gather(*(middleware(scope, None, send) for _ in range(8)))

    try:
        asyncio.run(burst())
    finally:
        engine.dispose()
    assert reads == [str(CHAIN_ID)]
    heads = [dict(m["headers"])[b"x-avadata-head"] for m in sent]
    assert len(heads) == 8 and len(set(heads)) == 1
