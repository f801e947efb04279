"""The bench's server-side copies of its synthetic chain (store/tiles.py): each copy is the
segment moved up the chain, its hashes, cumulative counts, NFT ids and contract addresses the
ones the synthetic chain's own formulas give there (bench/api_store.py), every key unique."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from avadata.bench import api_store
from avadata.store import partitions

SEGMENT_TXS = 2_000  # 40 blocks of 50 transactions
BLOCKS = SEGMENT_TXS // api_store.TXS_PER_BLOCK


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_copies_continue_the_synthetic_chain(engine):
    how = api_store.build_fast(engine, 3 * SEGMENT_TXS - 10, segment_txs=SEGMENT_TXS)
    assert "2 copies" in how
    with engine.connect() as conn:

        def rows(sql: str) -> list[tuple]:
            return [tuple(r) for r in conn.execute(text(sql))]

        blocks = rows("SELECT number, hash, parent_hash, cumulative_txs FROM evm_blocks ORDER BY 1")
        txs = rows("SELECT block_number, tx_index, hash FROM evm_txs ORDER BY 1, 2")
        nft_ids = rows("SELECT token_id FROM token_transfers WHERE standard = 'ERC-721' ORDER BY 1")
        contracts = rows("SELECT address FROM contracts ORDER BY 1")
        cursor = rows("SELECT block_number, block_hash FROM cursors")
        leaves = partitions._leaves(conn, api_store.CHAIN_ID, partitions.PARTITIONED)
        counts = rows(
            "SELECT block_number / 40, count(*) FROM transfer_participants GROUP BY 1 ORDER BY 1"
        )
    n = 3 * BLOCKS
    assert [b[0] for b in blocks] == list(range(n))
    zero = "0x" + "00" * 32
    for number, hash_, parent, cumulative in blocks:
        assert hash_ == api_store._hash(1, number)
        assert parent == (api_store._hash(1, number - 1) if number else zero)
        assert cumulative == (number + 1) * api_store.TXS_PER_BLOCK
    assert [t[2] for t in txs] == [api_store.tx_hash(b, i) for b, i, _ in txs]
    assert len(txs) == 3 * SEGMENT_TXS
    ids = [int(r[0]) for r in nft_ids]
    assert ids == list(range(1, len(ids) + 1))
    assert [c[0] for c in contracts] == sorted(
        api_store.created(k + 1) for k in range(len(contracts))
    )
    assert cursor == [(n - 1, api_store._hash(1, n - 1))]
    for table in partitions.PARTITIONED:
        assert sorted(leaves[table]) == [(0, 40), (40, 80), (80, 120)], table
    assert counts[0][1] == counts[1][1] == counts[2][1] > 0
