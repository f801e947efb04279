"""Ingest of P-chain blocks built with the codec, through a stub Index API, into a SQLite
store: UTXOs created, consumed by the next block's tx, address links, and a restart after
the first batch that neither loses nor duplicates rows. The truth is what the test built."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import func, select

from avadata.decode.codec import api
from avadata.decode.codec.components import (
    AvaxBaseTx,
    TransferableInput,
    TransferableOutput,
    TransferInput,
    TransferOutput,
)
from avadata.decode.codec.ids import bech32_address, cb58_encode
from avadata.decode.codec.pchain import BaseTx, PChainTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE, BanffStandardBlock
from avadata.indexer.primary.chain import index_chain
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.primary.writer import get_primary_cursor
from avadata.store.schema import primary_address_txs, primary_txs, primary_utxos
from tests.primary.test_index_api import _source

AVAX = bytes([7]) * 32
A, B = bytes([1]) * 20, bytes([2]) * 20


def _tx(spend: tuple[bytes, int], to: bytes, amount: int) -> PChainTx:
    base = AvaxBaseTx(
        network_id=5,
        blockchain_id=bytes(32),
        outputs=(TransferableOutput(AVAX, TransferOutput(amount, 0, 1, (to,))),),
        inputs=(TransferableInput(spend[0], spend[1], AVAX, TransferInput(amount + 1, (0,))),),
        memo=b"",
    )
    return PChainTx(unsigned=BaseTx(base=base), credentials=())


def _chain(n: int) -> tuple[list[bytes], list[str]]:
    """n blocks of one tx each; tx i spends tx i-1's output 0, paying A and B in turn."""
    blocks, ids = [], []
    prev = (bytes([9]) * 32, 0)
    for i in range(n):
        tx = _tx(prev, A if i % 2 == 0 else B, 1_000_000 - i)
        tx_id = tx.id_bytes(PCHAIN_TABLE)
        ids.append(cb58_encode(tx_id))
        prev = (tx_id, 0)
        blocks.append(
            api.encode_p_block(
                BanffStandardBlock(
                    time=1_700_000_000 + i, parent_id=bytes(32), height=i, transactions=(tx,)
                )
            )
        )
    return blocks, ids


def test_ingest_and_restart(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'p.db'}")
    migrate(engine)
    blocks, ids = _chain(30)
    calls: list[dict[str, Any]] = []
    stops = iter([False, True])
    asyncio.run(
        index_chain(engine, _source(blocks, calls), "P", "P", batch=10, stop=lambda: next(stops))
    )
    assert get_primary_cursor(engine, "P") == 9  # stopped after one batch
    asyncio.run(index_chain(engine, _source(blocks, calls), "P", "P", batch=7))
    assert get_primary_cursor(engine, "P") == 29
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(primary_txs)).scalar() == 30
        txs = conn.execute(select(primary_txs).order_by(primary_txs.c.block_number)).all()
        assert [t.tx_hash for t in txs] == ids
        assert [t.block_timestamp for t in txs] == [1_700_000_000 + i for i in range(30)]
        body = orjson.loads(txs[0].body)
        assert body["txHash"] == ids[0] and body["txType"] == "BaseTx"
        utxos = conn.execute(select(primary_utxos).order_by(primary_utxos.c.block_number)).all()
        assert len(utxos) == 30
        for i, u in enumerate(utxos):
            assert u.tx_hash == ids[i] and int(u.amount) == 1_000_000 - i
            owner = bech32_address(A if i % 2 == 0 else B, "fuji")
            assert orjson.loads(u.addresses) == [owner]
            if i < 29:  # spent by the next block's tx
                assert (u.consuming_tx_hash, u.consuming_block_number) == (ids[i + 1], i + 1)
            else:
                assert u.consuming_tx_hash is None
        a_links = conn.execute(
            select(primary_address_txs.c.tx_hash).where(
                primary_address_txs.c.address == bech32_address(A, "fuji")
            )
        ).scalars()
        # A owns the outputs of the even txs and spends them in the odd ones (the 30th unspent).
        assert sorted(a_links) == sorted(ids)
