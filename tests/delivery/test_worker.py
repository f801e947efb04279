"""The delivery worker in-process on the synthetic store: retried until acknowledged, in chain
order, the cursor moved only after a 2xx; a rewind during a failing retry wins over it; a
deactivated webhook gets nothing. Truth: the synthetic chain's own records (which transactions
touch the watched token contracts)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from avadata.delivery import payload
from avadata.delivery.pending import next_messages_many
from avadata.delivery.worker import DeliveryWorker
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.types import Engine
from avadata.store.webhooks import events, registry
from avadata.store.webhooks.registry import NewWebhook
from tests.api.synthetic import CHAIN_ID, ERC20_NO_META, ERC1155, Chain, write_store
from tests.support.receiver import receiving

WATCHED = (ERC1155, ERC20_NO_META)


def _expected(chain: Chain) -> list[tuple[tuple[int, int], str]]:
    hashes = {t.tx_hash for t in chain.transfers if t.token in WATCHED}
    return sorted(((t.block_number, t.tx_index), t.hash) for t in chain.txs if t.hash in hashes)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[tuple[str, Chain, Engine]]:
    url, chain = write_store(tmp_path / "worker.db")
    writer = make_engine(url)
    yield url, chain, writer
    writer.dispose()


def _hook(writer: Engine, url: str, webhook_id: str = "wh-1") -> str:
    new = NewWebhook("address_activity", CHAIN_ID, url, "", "", False, False, (), WATCHED)
    hook = registry.create(writer, "owner1", new, webhook_id)
    registry.rewind(writer, "owner1", hook.webhook_id, 0)
    return hook.webhook_id


def _worker(url: str, writer: Engine, **more: Any) -> DeliveryWorker:
    settings = Settings(
        db_url=url,
        webhook_retry_base_s=0.01,
        webhook_retry_max_s=0.05,
        webhook_poll_s=0.02,
        webhook_timeout_s=2,
        **more,
    )
    return DeliveryWorker(make_engine(url, read_only=True), writer, settings)


def _wait(until: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_retried_until_acknowledged_in_order(store) -> None:
    url, chain, writer = store
    expected = _expected(chain)
    assert len(expected) >= 10
    with receiving(lambda n, _m: 503 if n <= 6 else 200) as (rec, hook_url):
        wid = _hook(writer, hook_url)
        worker = _worker(url, writer)
        worker.start()
        try:
            _wait(lambda: len(rec.arrivals()) >= len(expected))
            time.sleep(0.2)
        finally:
            worker.stop()
        got = [a.tx_hash for a in rec.arrivals()]
        assert got == [h for _, h in expected]  # each once, in chain order
        assert rec.calls == len(expected) + 6
        ids = {a.message["messageId"] for a in rec.arrivals()}
        assert len(ids) == len(expected)
    hook = registry.get(writer, None, wid)
    assert hook is not None and hook.cursor == expected[-1][0]


def test_a_rewind_during_a_failing_retry_wins(store) -> None:
    url, chain, writer = store
    expected = _expected(chain)
    cut = expected[len(expected) // 2][0][0]  # messages of this block on fail at first
    allow = threading.Event()

    def policy(_n: int, m: dict[str, Any]) -> int:
        block = int(m["event"]["transaction"]["blockNumber"])
        return 200 if block < cut or allow.is_set() else 500

    with receiving(policy) as (rec, hook_url):
        wid = _hook(writer, hook_url)
        worker = _worker(url, writer)
        worker.start()
        try:
            before = [h for (b, _), h in expected if b < cut]
            _wait(lambda: [a.tx_hash for a in rec.arrivals()] == before)
            calls = rec.calls
            _wait(lambda: rec.calls > calls + 3)  # it keeps retrying the failing one
            rewind_to = expected[1][0][0]
            registry.rewind(writer, "owner1", wid, rewind_to)
            allow.set()
            again = [h for (b, _), h in expected if b >= rewind_to]
            failing = next(h for (b, _), h in expected if b >= cut)

            def after_rewind() -> list[str]:
                # An attempt already on its way when the rewind came may still get its 200;
                # it cannot move the cursor (registry.advance), so what follows is unchanged.
                got = [a.tx_hash for a in rec.arrivals()][len(before) :]
                return got[1:] if got[:1] == [failing] else got

            _wait(lambda: after_rewind() == again)
            time.sleep(0.2)
        finally:
            worker.stop()
        assert after_rewind() == again
        first_ids = {a.tx_hash: a.message["messageId"] for a in rec.arrivals()[: len(before)]}
        for a in rec.arrivals()[len(before) :]:
            assert first_ids.get(a.tx_hash, a.message["messageId"]) == a.message["messageId"]
    hook = registry.get(writer, None, wid)
    assert hook is not None and hook.cursor == expected[-1][0]


def test_a_deactivated_webhook_gets_nothing(store) -> None:
    url, _chain, writer = store
    with receiving(lambda _n, _m: 200) as (rec, hook_url):
        wid = _hook(writer, hook_url)
        registry.update_fields(writer, "owner1", wid, status="inactive")
        worker = _worker(url, writer)
        worker.start()
        try:
            time.sleep(0.5)
        finally:
            worker.stop()
        assert rec.calls == 0


def test_positions_page_exactly_through_many_rows_per_transaction(store) -> None:
    """An address that is a party of several frames of each transaction (so several rows per
    transaction in one table, and in no other): small pages still give every transaction
    once, in order (a page counts transactions, not rows)."""
    url, chain, writer = store
    from avadata.store.schema import internal_call_participants, transfer_participants
    from avadata.store.webhooks import events

    dave = "0x" + "da" * 20
    picked = sorted((t.block_number, t.tx_index) for t in chain.txs)[::3][:6]
    rows = [
        {"chain_id": CHAIN_ID, "address": dave, "block_number": b, "tx_index": i, "trace_index": k}
        for b, i in picked
        for k in (11, 12, 13)
    ]
    # And a party of transfers of later transactions: a second table, so a page of the first
    # that stopped short after a few rows would let the second's positions jump ahead.
    later = [t for t in chain.transfers if t.block_number > picked[-1][0]][:4]
    links = [
        {
            "chain_id": CHAIN_ID,
            "address": dave,
            "standard": t.standard.value,
            "block_number": t.block_number,
            "log_index": t.log_index,
            "batch_index": t.batch_index,
        }
        for t in later
    ]
    with writer.begin() as conn:
        conn.execute(internal_call_participants.insert(), rows)
        conn.execute(transfer_participants.insert(), links)
    picked = sorted(set(picked) | {(t.block_number, t.tx_index) for t in later})
    reader = make_engine(url, read_only=True)
    got: list[tuple[int, int]] = []
    after = (-1, registry.BLOCK_DONE)
    with reader.connect() as conn:
        head = events.indexed_head(conn, CHAIN_ID)
        assert head is not None
        while page := events.next_positions(conn, CHAIN_ID, [dave], after, head, 2):
            got += page
            after = page[-1]
    reader.dispose()
    assert got == picked


def test_deliveries_counted_on_the_serving_process_metrics(store) -> None:
    """Every POST is counted by outcome, and GET /metrics of the app the worker is watched by
    serves the counts (parsed by prometheus_client's own parser); truth: what the receiver
    answered."""
    from prometheus_client.parser import text_string_to_metric_families

    from avadata.api.app import create_app
    from avadata.api.prometheus import watch_deliveries
    from tests.api.http import TestClient

    url, chain, writer = store
    expected = _expected(chain)
    with receiving(lambda n, _m: 500 if n in (2, 5, 6) else 200) as (rec, hook_url):
        _hook(writer, hook_url)
        worker = _worker(url, writer)
        app = create_app(Settings(db_url=url))
        watch_deliveries(app, worker.counts)
        worker.start()
        try:
            _wait(lambda: len(rec.arrivals()) >= len(expected))
            time.sleep(0.2)
        finally:
            worker.stop()
        with TestClient(app) as c:
            text = c.get("/metrics").text
    samples = {
        s.labels["outcome"]: s.value
        for f in text_string_to_metric_families(text)
        if f.name == "avadata_webhook_deliveries"
        for s in f.samples
        if s.name == "avadata_webhook_deliveries_total"
    }
    assert samples == {"acknowledged": len(rec.arrivals()), "failed": 3, "refused": 0}
    assert rec.calls == len(rec.arrivals()) + 3


def test_many_webhooks_go_side_by_side_and_a_failing_one_holds_back_only_itself(
    store, monkeypatch
) -> None:
    """Twenty webhooks on one receiver that answers each POST after 0.1 s, one of them always
    with a 500: every other one gets its messages once, in chain order, in a fraction of the
    time one POST at a time would take; the failing one is retried meanwhile; the cursors are
    written a round at a time (several webhooks per write), each at its last message."""
    url, chain, writer = store
    expected = [h for _, h in _expected(chain)]
    writes: list[int] = []
    real = registry.advance_many

    def counted(engine: Engine, moves: Any, holder: str) -> set[str]:
        writes.append(len(moves))
        return real(engine, moves, holder)

    monkeypatch.setattr(registry, "advance_many", counted)

    def policy(_n: int, m: dict[str, Any]) -> tuple[str, float, int]:
        return ("sleep", 0.1, 500 if m["webhookId"] == "wh-00" else 200)

    with receiving(policy) as (rec, hook_url):
        ids = [_hook(writer, hook_url, f"wh-{i:02d}") for i in range(20)]
        worker = _worker(url, writer)
        t0 = time.monotonic()
        worker.start()
        try:
            _wait(lambda: len(rec.arrivals()) >= 19 * len(expected))
            elapsed = time.monotonic() - t0
            time.sleep(0.5)
        finally:
            worker.stop()
        by_hook: dict[str, list[str]] = {}
        for a in rec.arrivals():
            by_hook.setdefault(a.message["webhookId"], []).append(a.tx_hash)
    assert sorted(by_hook) == ids[1:]
    assert all(got == expected for got in by_hook.values())
    assert rec.calls > len(rec.arrivals()) + 3  # wh-00 retried all along
    assert elapsed < 19 * len(expected) * 0.1 / 4, elapsed
    assert max(writes) > 1, writes
    last = _expected(chain)[-1][0]
    for wid in ids[1:]:
        hook = registry.get(writer, None, wid)
        assert hook is not None and hook.cursor == last
    failing = registry.get(writer, None, "wh-00")
    assert failing is not None and failing.cursor == (-1, registry.BLOCK_DONE)


def test_webhooks_sharing_a_read_each_get_their_own_canonical_message(store) -> None:
    """Webhooks of one address share a read and each event's encoding (payload.enveloped);
    every body is still the canonical JSON of the whole message built for that webhook alone
    (payload.message, the dict form), with its own options."""
    url, _chain, writer = store
    nothing = "0x" + "00" * 32  # a topic no log has: wh-d's logs are all filtered out
    options = {
        "wh-a": (False, False, ()),
        "wh-b": (False, False, ()),
        "wh-c": (True, True, ()),
        "wh-d": (True, True, (nothing,)),
    }
    hooks = []
    for wid, (internals, logs, signatures) in options.items():
        new = NewWebhook(
            "address_activity",
            CHAIN_ID,
            "http://127.0.0.1:9/",
            "",
            "",
            internals,
            logs,
            signatures,
            WATCHED,
        )
        registry.create(writer, "owner1", new, wid)
        registry.rewind(writer, "owner1", wid, 0)
        found = registry.get(writer, None, wid)
        assert found is not None
        hooks.append(found)
    reader = make_engine(url, read_only=True)
    try:
        got = next_messages_many(reader, hooks, 30)
        positions = [o.position for o in got["wh-a"]]
        with reader.connect() as conn:
            loaded = events.load_events(conn, CHAIN_ID, positions, internals=True, logs=True)
    finally:
        reader.dispose()
    assert len(positions) >= 10
    for wid, (internals, logs, signatures) in options.items():
        want = [
            payload.canonical(
                payload.message(
                    wid, CHAIN_ID, ev, internals=internals, logs=logs, event_signatures=signatures
                )
            )
            for ev in loaded
        ]
        assert [o.body for o in got[wid]] == want, wid
    # (this store's transactions have no logs: the encodings' key tells the two apart)
    assert payload.shared_key(hooks[2]) != payload.shared_key(hooks[3])
