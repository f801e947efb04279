"""`avadata bench events`, tiny: the stack comes up, every sent transfer is seen on each path
(webhook POST, SSE, Data API) and every webhook gets every message; the report says so."""

from __future__ import annotations

from dataclasses import replace

import pytest

from avadata.bench import events, events_ingest

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
    """The ingest half (`--ingest-blocks`): `serve` delivering, then `index` backfilling a
    filled chain whose every transfer two webhooks watch; a window that is most of the chain
    gives a rate compared with the run without, one that is not (a chain this small goes in
    one commit) is flagged, never passed off as a rate."""
    run = events_ingest.ingest(blocks=40, hooks=2, poll=2.0)
    assert run.hooks == 2 and run.chain == 40
    assert 0 <= run.blocks <= run.chain and run.cpu_index >= 0 and run.cpu_serve >= 0
    none = replace(run, hooks=0, blocks=30, chain=40, blocks_per_s=200.0, messages=0)
    hooked = replace(run, blocks=30, chain=40, blocks_per_s=100.0, messages=50)
    text = "\n".join(events_ingest.rows((none, hooked)))
    assert "| 2 | 30 (of 40) | 100 | 50 |" in text and "50% of the rate with none" in text
    short = replace(hooked, blocks=10)
    assert "NOT a valid measurement" in "\n".join(events_ingest.rows((none, short)))
    starved = "\n".join(events_ingest.rows((none, replace(hooked, messages=0))))
    assert "No message was POSTed in the window" in starved and "50% of" in starved
