"""The webhooks' store functions on both engines: ownership, addresses, secrets, the cursor's
guarded moves, and the events' keyset (tuple IN, DISTINCT pages) over the synthetic chain,
whose records are the truth."""

from __future__ import annotations

from sqlalchemy import Engine

from avadata.store.webhooks import events, registry
from avadata.store.webhooks.registry import BLOCK_DONE, NewWebhook
from avadata.store.writer import mark_chain, write_evm_batch
from tests.api.synthetic import ALICE, BOB, CHAIN_ID, ERC20, build


def _filled(engine: Engine):  # type: ignore[no-untyped-def]
    chain, batches = build()
    for b in batches:
        write_evm_batch(engine, b)
    mark_chain(engine, CHAIN_ID, name="Synthetic")
    return chain


def _new(addresses: tuple[str, ...]) -> NewWebhook:
    return NewWebhook(
        "address_activity", CHAIN_ID, "http://x/h", "n", "", True, True, (), addresses
    )


def test_registry_scopes_by_owner_and_guards_the_cursor(engine: Engine) -> None:
    _filled(engine)
    made = registry.create(engine, "k1", _new((ALICE,)), "id-1")
    with engine.connect() as conn:
        head = events.indexed_head(conn, CHAIN_ID)
    assert made.cursor == (head, BLOCK_DONE) and made.status == "active"
    assert registry.get(engine, "k2", "id-1") is None
    assert registry.list_page(engine, "k2", None, None, 10) == []
    assert [h.webhook_id for h in registry.list_page(engine, "k1", "active", None, 10)] == ["id-1"]
    assert registry.change_addresses(engine, "k2", "id-1", [BOB], []) is None
    registry.change_addresses(engine, "k1", "id-1", [BOB, BOB], [ALICE])
    assert registry.addresses(engine, "id-1") == [BOB]
    assert registry.rewind(engine, "k1", "id-1", 5) is not None
    assert registry.get(engine, None, "id-1").cursor == (4, BLOCK_DONE)  # type: ignore[union-attr]
    assert not registry.advance(engine, "id-1", (3, 0), (9, 0))  # not where it is
    assert registry.advance(engine, "id-1", (4, BLOCK_DONE), (9, 0))
    assert registry.get(engine, None, "id-1").cursor == (9, 0)  # type: ignore[union-attr]
    first = registry.ensure_secret(engine, "k1")
    assert registry.ensure_secret(engine, "k1") == first == registry.read_secret(engine, "k1")
    assert registry.rotate_secret(engine, "k1") != first
    assert registry.read_secret(engine, "k2") is None


def test_cursors_move_a_round_at_a_time_only_for_the_lease_holder(engine: Engine) -> None:
    """advance_many: one transaction for many webhooks; each moves only from where it is, and
    none moves unless the holder holds the delivery lease; the roster reads them all."""
    from avadata.store.webhooks import lease

    for i in range(3):
        registry.create(engine, "k1", _new((ALICE,)), f"id-{i}")
        registry.rewind(engine, "k1", f"id-{i}", 1)
    start = (0, BLOCK_DONE)
    moves = [("id-0", start, (2, 1)), ("id-1", (7, 7), (2, 1)), ("id-2", start, (3, 0))]
    assert registry.advance_many(engine, moves, "me") == set()  # no lease
    assert lease.take(engine, lease.DELIVERY, "me", 30)
    assert registry.advance_many(engine, moves, "me") == {"id-0", "id-2"}
    assert registry.advance_many(engine, moves, "other") == set()
    with engine.connect() as conn:
        roster = {h.webhook_id: h.cursor for h in registry.active(conn)}
        assert registry.addresses_of(conn, ["id-0", "id-9"]) == {"id-0": [ALICE], "id-9": []}
    assert roster == {"id-0": (2, 1), "id-1": start, "id-2": (3, 0)}


def test_events_page_by_transaction_with_their_rows(engine: Engine) -> None:
    chain = _filled(engine)
    touched = {t.hash for t in chain.txs if BOB in (t.from_address, t.to_address)}
    touched |= {t.tx_hash for t in chain.transfers if BOB in (t.from_address, t.to_address)}
    touched |= {
        c.tx_hash
        for c in chain.calls
        if c.depth > 0 and BOB in (c.from_address, c.to_address) and c.value
    }
    truth = sorted((t.block_number, t.tx_index) for t in chain.txs if t.hash in touched)
    got: list[tuple[int, int]] = []
    after = (-1, BLOCK_DONE)
    with engine.connect() as conn:
        head = events.indexed_head(conn, CHAIN_ID)
        assert head is not None
        while page := events.next_positions(conn, CHAIN_ID, [BOB], after, head, 2):
            got += page
            after = page[-1]
        assert got == truth
        loaded = events.load_events(conn, CHAIN_ID, got, internals=True, logs=True)
    assert [e.position for e in loaded] == got
    by_hash = {t.hash: t for t in chain.txs}
    for ev in loaded:
        tx = by_hash[ev.tx["hash"]]
        assert (ev.tx["from_address"], ev.tx["value"]) == (tx.from_address, tx.value)
        assert ev.tx["base_fee"] == 25_000_000_000
        want = [t for t in chain.transfers if t.tx_hash == tx.hash]
        assert len(ev.transfers) == len(want)
        assert {r["token"] for r in ev.transfers} == {t.token for t in want}
        assert any(r["name"] == "Token" for r in ev.transfers if r["token"] == ERC20)
        frames = [c for c in chain.calls if c.tx_hash == tx.hash and c.depth > 0]
        assert [r["trace_index"] for r in ev.internals] == [c.trace_index for c in frames]
