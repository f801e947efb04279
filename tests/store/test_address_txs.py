"""An address's transactions with their details (store/queries/address_txs.py): one statement
on PostgreSQL (the page a CTE), two on SQLite; on both, what a second computation from the
written records says: the address's transactions once each (a transaction to oneself too),
in page order, each with its own transfers in log order."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from avadata.records import EvmBatch
from avadata.store import write_evm_batch
from avadata.store.queries.address_txs import by_address_detailed
from tests.store import builders as B

CHAIN = 43113
ME = B.addr(7)
TOKEN = B.addr(0xE20)


def _chain() -> EvmBatch:
    """Blocks 0-5, three transactions each: in every other block the first is mine (sent,
    received, or, in block 4, to myself), each with a transfer or two of its own; the others
    are strangers' and have transfers in the same blocks."""
    batch = B.batch(CHAIN, 0, 5, txs_per_block=3)
    transfers = []
    for t in batch.transactions:
        n, i = t.block_number, t.tx_index
        if i == 0 and n % 2 == 0:
            frm, to = {0: (ME, B.addr(8)), 2: (B.addr(9), ME), 4: (ME, ME)}[n]
            batch.transactions[batch.transactions.index(t)] = t._replace(
                from_address=frm, to_address=to
            )
        for k in range(1 + (n + i) % 2):
            log = 10 * i + k
            transfers.append(
                B.transfer(CHAIN, n, log, TOKEN, B.addr(50 + i), B.addr(60 + k), 1, tx_index=i)
            )
    batch.transfers = transfers
    return batch


def _expected(batch: EvmBatch, ascending: bool) -> list[tuple[tuple[int, int], list[int]]]:
    mine = [
        (t.block_number, t.tx_index)
        for t in batch.transactions
        if ME in (t.from_address, t.to_address)
    ]
    out = []
    for key in sorted(set(mine), reverse=not ascending):
        logs = sorted(x.log_index for x in batch.transfers if (x.block_number, x.tx_index) == key)
        out.append((key, logs))
    return out


def _got(engine: Engine, ascending: bool, limit: int) -> list[tuple[tuple[int, int], list[int]]]:
    """Every page of `limit`, walked by the last position of each."""
    out: list[tuple[tuple[int, int], list[int]]] = []
    after = None
    with engine.connect() as conn:
        while True:
            page = by_address_detailed(conn, CHAIN, ME, None, None, after, limit, ascending)
            for tx, transfers, _calls in page:
                key = (int(tx.block_number), int(tx.tx_index))
                assert {(int(x.block_number), int(x.tx_index)) for x in transfers} <= {key}
                out.append((key, [int(x.log_index) for x in transfers]))
            if len(page) < limit:
                return out
            after = out[-1][0]


@pytest.mark.parametrize("ascending", [False, True], ids=["desc", "asc"])
@pytest.mark.parametrize("limit", [1, 2, 5])
def test_pages_with_details_match_the_records(engine: Engine, ascending: bool, limit: int):
    batch = _chain()
    write_evm_batch(engine, batch)
    want = _expected(batch, ascending)
    assert [k for k, _ in want] == sorted([(0, 0), (2, 0), (4, 0)], reverse=not ascending)
    assert _got(engine, ascending, limit) == want
