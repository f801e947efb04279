"""An address's transactions (`/transactions?addresses=`) on P, X and C, checked against the
simulators' own ledger: every tx that spends a coin the address owns or creates one it owns
(EVM inputs and outputs for 0x addresses on the C-chain). Atomic txs are the point: an
ImportTx belongs to the owners of the exported UTXOs it takes from shared memory, and an
ExportTx to the recipients of its exported outputs, whichever order the chains were indexed
in (P, X, C, or C, X, P, where imports are stored before their exports)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.decode.codec.atomic import ATOMIC_TABLE, UnsignedExportTx, UnsignedImportTx
from avadata.decode.codec.ids import bech32_address, cb58_encode
from avadata.decode.codec.pchain import PChainTx, RewardValidatorTx
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.xchain import XCHAIN_TABLE
from avadata.devnet.primary import cchain_atomic, pchain_sim, txkit, xchain_sim
from avadata.devnet.primary import node as primary_node
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimarySim
from avadata.devnet.primary.utxo_book import Coin, UtxoBook
from avadata.settings import Settings
from tests.api.http import TestClient
from tests.primary.test_tx_shapes import CONFIG, FakeAnvil, every_tx
from tests.support.glacier_schema import conforms
from tests.support.primary_world import indexed, served_node

ORDERS = (("P", "X", "C"), ("C", "X", "P"))
CHAINS = {"P": "p-chain", "X": "x-chain", "C": "c-chain"}


@dataclass
class Ledger:
    """Per simulator tx (CB58 ID): the addresses it spent from and paid to. `current` is the
    tx the simulator signed last: it spends and creates coins right after signing."""

    current: str | None = None
    owners: dict[bytes, tuple[bytes, ...]] = field(default_factory=dict)
    touched: dict[str, set[str]] = field(default_factory=dict)
    assets: dict[str, set[str]] = field(default_factory=dict)  # CB58 tx -> assets it moved
    # CB58 tx -> (owners, CB58 asset, +amount created / -amount spent, the coin's CB58 tx),
    # in the order it moved
    flows: dict[str, list[tuple[tuple[str, ...], str, int, str]]] = field(default_factory=dict)
    unsigned: dict[str, Any] = field(default_factory=dict)  # CB58 tx -> the tx it signed

    def touch(self, tx: str, addresses: Any) -> None:
        self.touched.setdefault(tx, set()).update(addresses)

    def moved(self, tx: str, coin: Coin, sign: int) -> None:
        self.assets.setdefault(tx, set()).add(cb58_encode(coin.asset))
        owners = tuple(_bech(coin.owners))
        flow = (owners, cb58_encode(coin.asset), sign * coin.amount, cb58_encode(coin.tx_id))
        self.flows.setdefault(tx, []).append(flow)


def _bech(addresses: tuple[bytes, ...]) -> list[str]:
    return [bech32_address(a, "fuji") for a in addresses]


@dataclass
class World:
    sim: PrimarySim
    ledger: Ledger
    clients: dict[tuple[str, ...], TestClient]
    urls: dict[tuple[str, ...], str]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder: Path = tmp_path_factory.mktemp("address-links")
    ledger = Ledger()
    add, spend = UtxoBook.add, UtxoBook.spend

    def record_add(self: UtxoBook, coin: Coin) -> None:
        ledger.owners[coin.utxo_id] = coin.owners
        # Coins paid later under an older tx ID (returned stake, rewards) are chain state; an
        # L1 refund is paid under the disabling or removing tx's own ID, so it counts.
        if cb58_encode(coin.tx_id) == ledger.current:
            ledger.touch(ledger.current, _bech(coin.owners))
            ledger.moved(ledger.current, coin, 1)
        add(self, coin)

    def record_spend(self: UtxoBook, tx_id: bytes, index: int) -> Coin:
        coin = spend(self, tx_id, index)
        assert ledger.current is not None
        ledger.touch(ledger.current, _bech(coin.owners))
        ledger.moved(ledger.current, coin, -1)
        return coin

    def signing(module: Any, name: str, table: Any) -> None:
        sign = getattr(txkit, name)

        def signed(unsigned: Any, *args: Any) -> Any:
            tx = sign(unsigned, *args)
            ledger.current = cb58_encode(tx.id_bytes(table))
            ledger.unsigned[ledger.current] = unsigned
            # Stake comes back to its owners under the staking tx's ID: that tx pays them.
            for out in getattr(unsigned, "stake_outputs", ()):
                inner = getattr(out.output, "output", out.output)
                ledger.touch(ledger.current, _bech(inner.addresses))
            if isinstance(unsigned, UnsignedImportTx):
                ledger.touch(ledger.current, ["0x" + o.address.hex() for o in unsigned.outputs])
            if isinstance(unsigned, UnsignedExportTx):
                ledger.touch(ledger.current, ["0x" + i.address.hex() for i in unsigned.inputs])
            return tx

        mp.setattr(module, name, signed)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(primary_node, "Rpc", FakeAnvil)
        mp.setattr(UtxoBook, "add", record_add)
        mp.setattr(UtxoBook, "spend", record_spend)
        signing(pchain_sim, "sign_p", PCHAIN_TABLE)
        signing(xchain_sim, "sign_x", XCHAIN_TABLE)
        signing(cchain_atomic, "sign_atomic", ATOMIC_TABLE)
        reward = pchain_sim.PChainSim._reward

        def rewarding(self: pchain_sim.PChainSim, staker: Any, accepted_ns: int) -> Any:
            # Reward txs are unsigned: recorded here, with the staker they end.
            tx = PChainTx(RewardValidatorTx(staker.tx_id), ())
            ledger.unsigned[cb58_encode(tx.id_bytes(PCHAIN_TABLE))] = tx.unsigned
            return reward(self, staker, accepted_ns)

        mp.setattr(pchain_sim.PChainSim, "_reward", rewarding)
        options = NodeOptions(CONFIG, data_dir=folder, c_rpc_url="fake", live_interval=None)
        node = PrimaryNode(options)
        node.start()
    with served_node(node) as url, ExitStack() as stack:
        clients: dict[tuple[str, ...], TestClient] = {}
        urls: dict[tuple[str, ...], str] = {}
        for order in ORDERS:
            engine = indexed(folder / ("-".join(order) + ".db"), url, chains=order)
            urls[order] = engine.url.render_as_string(hide_password=False)
            settings = Settings(db_url=str(engine.url), page_token_secret="test-secret-0123456789")
            app = create_app(settings)
            clients[order] = stack.enter_context(TestClient(app, raise_server_exceptions=False))
        yield World(node.sim, ledger, clients, urls)


def expected(world: World, chain: str, address: str) -> set[str]:
    on_chain = {r.tx_id for r in world.sim.records if r.chain == chain}
    return {tx for tx, seen in world.ledger.touched.items() if tx in on_chain and address in seen}


@pytest.mark.parametrize("order", ORDERS, ids="-".join)
def test_address_transactions_match_the_simulators_ledger(world: World, order: Any) -> None:
    c = world.clients[order]
    records = {r.tx_id: r for r in world.sim.records}
    atomic = 0
    for user in world.sim.keys.users:
        bech = bech32_address(user.address, "fuji")
        for chain, name in CHAINS.items():
            want = expected(world, chain, bech)
            got = {t["txHash"] for t in every_tx(c, name, addresses=bech)}
            assert got == want, (order, chain, bech, got ^ want)
            atomic += sum(records[t].type in ("ImportTx", "ExportTx") for t in want)
        eth = user.eth_address.lower()
        got = {t["txHash"] for t in every_tx(c, "c-chain", addresses=eth)}
        assert got == expected(world, "C", eth), (order, eth)
    assert atomic >= 20


def test_imports_are_listed_for_the_owners_of_what_they_import(world: World) -> None:
    """The case the links were missing: the exported UTXO's owner sees the import of it on
    the importing chain (the simulators export to the sender itself, so that owner is the
    one who exported it)."""
    imports = [r for r in world.sim.records if r.type == "ImportTx"]
    assert {r.chain for r in imports} == {"P", "X", "C"}
    for order, c in world.clients.items():
        for r in imports:
            owners = world.ledger.touched[r.tx_id]
            assert owners, r.tx_id
            for address in owners:
                if address.startswith("0x"):
                    continue
                txs = every_tx(c, CHAINS[r.chain], addresses=address)
                assert r.tx_id in {t["txHash"] for t in txs}, (order, r.tx_id, address)


@pytest.mark.parametrize("order", ORDERS, ids="-".join)
def test_asset_transactions_match_the_simulators_ledger(world: World, order: Any) -> None:
    """listAssetTransactions: the X-chain txs that created each asset or moved a coin of it
    (created or spent, exports and imports too), as the simulator's UTXO books saw them."""
    c = world.clients[order]
    on_x = {r.tx_id: r for r in world.sim.records if r.chain == "X"}
    assets = {cb58_encode(a) for a in world.sim.x.assets}
    assert len(assets) >= 4  # AVAX and the simulator's own
    for asset in assets:
        want = {tx for tx, moved in world.ledger.assets.items() if tx in on_x and asset in moved}
        if asset in on_x:  # its CreateAssetTx (AVAX's is in the genesis)
            want.add(asset)
        url = f"/v1/networks/fuji/blockchains/x-chain/assets/{asset}/transactions"
        got = _asset_pages(c, url)
        stamps = [t["blockTimestamp"] for t in got]
        assert stamps == sorted(stamps, reverse=True)
        assert {t["txHash"] for t in got} == want, (order, asset, {t["txHash"] for t in got} ^ want)
        assert len(got) == len(want)
        typed = _asset_pages(c, url, txTypes="BaseTx")
        assert {t["txHash"] for t in typed} == {t for t in want if on_x[t].type == "BaseTx"}


def _asset_pages(c: TestClient, url: str, **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    while True:
        r = c.get(url, params=dict(q, pageSize=7, **({"pageToken": token} if token else {})))
        assert r.status_code == 200, r.text
        body = r.json()
        conforms(body, "ListXChainTransactionsResponse")
        out += body["transactions"]
        token = body.get("nextPageToken")
        if token is None:
            return out


def test_the_revisions_backfill_gives_the_writers_asset_links(world: World) -> None:
    """Revision 20261125_0015 fills primary_asset_txs of an existing store from its UTXOs and
    assets (SQL): the same links the writer made while indexing."""
    import importlib.util
    import sqlite3

    from sqlalchemy import delete, select, text

    from avadata.store import migrations
    from avadata.store.engine import make_engine
    from avadata.store.schema import primary_asset_txs

    path = Path(migrations.__file__).parent / "versions" / "20261125_0015_primary_asset_txs.py"
    spec = importlib.util.spec_from_file_location("rev_0015", path)
    assert spec is not None and spec.loader is not None
    revision = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(revision)
    for c in world.clients.values():
        source = c.app.state.avadata.settings.db_url.removeprefix("sqlite:///")
        copy = source + ".backfill"
        # The backup API: a file copy would miss what is still in the WAL.
        with sqlite3.connect(source) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)
        engine = make_engine(f"sqlite:///{copy}")
        with engine.begin() as conn:
            written = set(conn.execute(select(primary_asset_txs)).all())
            conn.execute(delete(primary_asset_txs))
            conn.execute(text("INSERT INTO primary_asset_txs " + revision._LINKED))
            assert set(conn.execute(select(primary_asset_txs)).all()) == written
        assert len(written) > 50
        engine.dispose()
