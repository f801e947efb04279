"""`avadata bench events`, tiny: the stack comes up, every sent transfer is seen on each path
(webhook POST, SSE, Data API) and every webhook gets every message; the report says so."""

from __future__ import annotations

import pytest

from avadata.bench import events

pytestmark = pytest.mark.e2e


def test_a_tiny_run_sees_every_block_on_every_path() -> None:
    r = events.run(txs=3, interval=0.1, hooks=2, poll=2.0)
    assert len(r.webhook_ms) == len(r.stream_ms) == len(r.api_ms) == 3
    assert r.messages == 6
    # Stamped by this process's clock on a shared machine: bounded above, not checked below.
    assert max((*r.webhook_ms, *r.stream_ms, *r.api_ms)) < 30_000, r
    text = events.report(r, "test machine", "avadata bench events --txs 3")
    assert "| block accepted → webhook POST received | 3/3 |" in text


def test_a_tiny_ingest_run_measures_the_backfill_with_webhooks_delivering() -> None:
    """The ingest half (`--ingest-blocks`): a filled chain backfilled while two webhooks
    deliver every block; the report compares it with a run without (made up here)."""
    run = events.ingest(blocks=40, hooks=2, poll=2.0)
    assert run.hooks == 2 and run.blocks_per_s > 0
    assert 0 < run.blocks <= 40
    none = events.Ingest(0, run.blocks, run.blocks_per_s * 2, 0)
    text = "\n".join(events._ingest_rows((none, run)))
    assert "| 2 | " in text and "50% of the rate with none" in text
