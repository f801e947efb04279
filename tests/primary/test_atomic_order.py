"""Cross-chain spends do not depend on the order the chains are indexed in.

The indexer walks the chains in turn, so an ImportTx can be stored before the ExportTx that
put its UTXO into shared memory. The same devnet node (simulated P/X chains, C-chain atomic
txs) is indexed P, X, C and C, X, P into two stores: both end with the same rows, nothing
left pending, and every exported UTXO is consumed by an import exactly when the simulators'
shared memory says it left (recorded as the simulators put and take coins)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, Table, select

from avadata.decode.codec.ids import cb58_encode
from avadata.devnet.primary import node as primary_node
from avadata.devnet.primary.network_ids import CHAIN_LETTERS
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimarySim
from avadata.devnet.primary.utxo_book import Coin, SharedMemory
from avadata.store.schema import (
    primary_address_txs,
    primary_address_utxos,
    primary_pending_spends,
    primary_txs,
    primary_utxos,
)
from tests.primary.test_tx_shapes import CONFIG, FakeAnvil
from tests.support.primary_world import indexed, served_node

ORDERS = (("P", "X", "C"), ("C", "X", "P"))


@dataclass
class Ledger:
    """Every coin the simulators put into shared memory (UTXO ID -> source, destination
    letters) and the IDs they took out (imported)."""

    put: dict[str, tuple[str, str]] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)


@dataclass
class World:
    sim: PrimarySim
    ledger: Ledger
    stores: dict[tuple[str, ...], Engine]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder: Path = tmp_path_factory.mktemp("atomic-order")
    ledger = Ledger()
    put, take = SharedMemory.put, SharedMemory.take

    def record_put(
        self: SharedMemory, destination: bytes, source: bytes, coin: Coin, at: int
    ) -> None:
        ledger.put[cb58_encode(coin.utxo_id)] = (CHAIN_LETTERS[source], CHAIN_LETTERS[destination])
        put(self, destination, source, coin, at)

    def record_take(self: SharedMemory, destination: bytes, coin: Coin) -> Coin:
        ledger.taken.add(cb58_encode(coin.utxo_id))
        return take(self, destination, coin)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(primary_node, "Rpc", FakeAnvil)
        mp.setattr(SharedMemory, "put", record_put)
        mp.setattr(SharedMemory, "take", record_take)
        options = NodeOptions(CONFIG, data_dir=folder, c_rpc_url="fake", live_interval=None)
        node = PrimaryNode(options)
        node.start()
    with served_node(node) as url:
        stores = {
            order: indexed(folder / ("-".join(order) + ".db"), url, chains=order)
            for order in ORDERS
        }
        yield World(node.sim, ledger, stores)


def rows(engine: Engine, table: Table) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return sorted(tuple(r) for r in conn.execute(select(table)))


def named(engine: Engine, table: Table) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())


def test_both_orders_end_with_the_same_rows(world: World) -> None:
    first, second = (world.stores[o] for o in ORDERS)
    for table in (primary_utxos, primary_txs, primary_address_txs, primary_address_utxos):
        assert rows(first, table) == rows(second, table), table.name
    for engine in world.stores.values():
        assert rows(engine, primary_pending_spends) == []


def test_exported_utxos_are_consumed_as_shared_memory_says(world: World) -> None:
    waiting = {
        cb58_encode(coin.utxo_id) for book in world.sim.shared.books.values() for coin in book
    }
    ledger = world.ledger
    assert waiting and ledger.taken and waiting <= set(ledger.put)
    # Imports in both directions: some exported UTXO of each chain was imported.
    assert {ledger.put[u][0] for u in ledger.taken} == {"P", "X", "C"}
    for order, engine in world.stores.items():
        imports = {
            r.tx_hash: r.blockchain_id
            for r in named(engine, primary_txs)
            if r.tx_type == "ImportTx"
        }
        utxos = {r.utxo_id: r for r in named(engine, primary_utxos)}
        for uid, (source, destination) in ledger.put.items():
            u = utxos[uid]
            assert u.created_on == source, (order, uid)
            if uid in ledger.taken:
                assert uid not in waiting
                assert imports.get(u.consuming_tx_hash) == destination, (order, uid)
                assert u.consumed_on == destination, (order, uid)
            else:
                assert uid in waiting
                assert u.consuming_tx_hash is None, (order, uid)
