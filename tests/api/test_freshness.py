"""Freshness headers: every answer about one chain (Data API and Metrics API) carries the
chain's indexed head and that block's age; others carry none."""

from __future__ import annotations

import time

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
