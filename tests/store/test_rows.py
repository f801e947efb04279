"""Every record written comes back field for field (the bulk path's column order is right)."""

from __future__ import annotations

from sqlalchemy import select

from avadata.records import InternalCall, TokenTransfer
from avadata.store import write_evm_batch
from avadata.store.reads import block_by_number
from avadata.store.schema import (
    contracts,
    evm_logs,
    evm_tx_inputs,
    evm_txs,
    internal_calls,
    native_balances,
    token_transfers,
)
from tests.store import builders as B

CHAIN = 43114


def _rows(conn, table):
    pk = list(table.primary_key.columns)
    return [r._asdict() for r in conn.execute(select(table).order_by(*pk))]


def _as_dict(rec):
    d = rec._asdict()
    for k, v in d.items():
        if hasattr(v, "value") and isinstance(v, str):  # StrEnum -> its stored text
            d[k] = v.value
    return d


def test_records_round_trip(engine):
    b = B.rich_batch(CHAIN, 0, 2)
    # Distinct values in every column, so a swapped pair of columns cannot go unnoticed.
    b.transactions = [
        t._replace(
            value=2**256 - 1 - i,
            nonce=2**64 - 1 - i,
            gas_used=21_000 + i,
            to_address=None if i == 0 else t.to_address,
            contract_address=B.addr(77) if i == 0 else None,
            method_hash="0xa9059cbb",
            method_name="transfer(address,uint256)",
            success=i % 2 == 0,
        )
        for i, t in enumerate(b.transactions)
    ]
    write_evm_batch(engine, b)
    with engine.connect() as conn:
        for blk in b.blocks:
            assert block_by_number(conn, CHAIN, blk.number).block == blk
        txs = _rows(conn, evm_txs)
        ordered = sorted(b.transactions, key=lambda t: (t.block_number, t.tx_index))
        # A record's call data and fee caps are kept apart (evm_tx_inputs), by position.
        extra = ("input", "max_fee_per_gas", "max_priority_fee_per_gas")
        position = ("chain_id", "block_number", "tx_index")
        assert txs == [{k: v for k, v in _as_dict(t).items() if k not in extra} for t in ordered]
        assert _rows(conn, evm_tx_inputs) == [
            {k: getattr(t, k) for k in (*position, *extra)} for t in ordered
        ]
        logs = _rows(conn, evm_logs)
        want_logs = []
        for lg in sorted(b.logs, key=lambda x: (x.block_number, x.log_index)):
            d = _as_dict(lg)
            topics = list(d.pop("topics")) + [None] * 4
            d.update({f"topic{i}": topics[i] for i in range(4)})
            want_logs.append(d)
        assert logs == want_logs
        key = lambda t: (t.block_number, t.log_index, t.batch_index)  # noqa: E731
        assert _rows(conn, token_transfers) == [_as_dict(t) for t in sorted(b.transfers, key=key)]
        calls = _rows(conn, internal_calls)
        ckey = lambda c: (c.block_number, c.tx_index, c.trace_index)  # noqa: E731
        assert calls == [_as_dict(c) for c in sorted(b.internal_calls, key=ckey)]
        assert {r["address"]: r for r in _rows(conn, contracts)} == {
            c.address: _as_dict(c) for c in b.contracts
        }
        assert _rows(conn, native_balances) == [
            _as_dict(n)
            for n in sorted(b.native_balances, key=lambda n: (n.address, n.block_number))
        ]
    # Field sets agree with the records (a new record field needs a column, or a decision).
    assert set(TokenTransfer._fields) == set(token_transfers.c.keys())
    assert set(InternalCall._fields) == set(internal_calls.c.keys())
