"""Primary-network transaction listings per chain on a store the indexer filled from the
devnet node (simulated P/X chains and C-chain atomic txs behind our real Index API), checked
against the simulators' own ledger: asset names against the CreateAssetTx inputs, X-chain
vertex/block shapes against where the simulator put each tx, C-chain atomic shapes against
the atomic txs it built."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from avadata.api.app import create_app
from avadata.decode.codec.atomic import ATOMIC_TABLE, UnsignedExportTx, UnsignedImportTx
from avadata.decode.codec.ids import (
    address_from_pubkey,
    bech32_address,
    cb58_encode,
    eth_address_from_pubkey,
    node_id_str,
    parse_bech32_address,
)
from avadata.devnet.primary import node as primary_node
from avadata.devnet.primary.cchain_atomic import FEE as C_ATOMIC_FEE
from avadata.devnet.primary.containers import X_VTX
from avadata.devnet.primary.network_ids import AVAX_ASSET_ID
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.pchain_sim import CREATE_FEE, FEE
from avadata.devnet.primary.pchain_state import L1_FEE_PER_SECOND
from avadata.devnet.primary.simulator import PrimaryConfig, PrimarySim
from avadata.indexer.primary import refunds as indexer
from avadata.settings import Settings
from avadata.sources.jsonrpc import JsonRpcClient
from tests.api.http import TestClient
from tests.primary.test_api import _all
from tests.support.glacier_schema import conforms
from tests.support.primary_world import indexed, served_node
from tests.support.server import TOOLS, run_node, serving

CONFIG = PrimaryConfig(seed=11, start=1_767_225_600, days=20, p_blocks=100, x_blocks=30)
TXS = "/v1/networks/fuji/blockchains/{}/transactions"
SDK_SCRIPT = Path(__file__).parents[1] / "client" / "primary.mjs"
C_BLOCKS = 120


class FakeAnvil:
    """Empty EVM blocks spread over the history: what the node wraps C-chain atomic txs in."""

    def __init__(self, url: str, timeout: float = 0) -> None:
        pass

    def __enter__(self) -> FakeAnvil:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    @staticmethod
    def block(n: int) -> dict[str, Any]:
        step = CONFIG.days * 86_400 // C_BLOCKS
        zero = "0x" + "00" * 32
        return {
            "number": hex(n),
            "hash": "0x" + n.to_bytes(32, "big").hex(),
            "parentHash": "0x" + max(n - 1, 0).to_bytes(32, "big").hex(),
            "sha3Uncles": zero,
            "miner": "0x" + "00" * 20,
            "stateRoot": zero,
            "transactionsRoot": zero,
            "receiptsRoot": zero,
            "logsBloom": "0x" + "00" * 256,
            "difficulty": "0x1",
            "gasLimit": hex(15_000_000),
            "gasUsed": "0x0",
            "timestamp": hex(CONFIG.start + n * step),
            "extraData": "0x",
            "baseFeePerGas": hex(25 * 10**9),
            "transactions": [],
        }

    def call(self, method: str, params: Sequence[Any] = ()) -> Any:
        if method == "eth_blockNumber":
            return hex(C_BLOCKS)
        return self.batch([(method, params)])[0]

    def batch(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        assert all(m == "eth_getBlockByNumber" for m, _ in calls), calls
        return [self.block(int(p[0], 16)) for _, p in calls]


World = tuple[TestClient, PrimarySim]
PAGE_SCHEMAS = {
    "p-chain": "ListPChainTransactionsResponse",
    "x-chain": "ListXChainTransactionsResponse",
    "c-chain": "ListCChainAtomicTransactionsResponse",
}
NODE_URL: list[str] = []  # the served node of the module's world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder: Path = tmp_path_factory.mktemp("shapes")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(primary_node, "Rpc", FakeAnvil)
        options = NodeOptions(CONFIG, data_dir=folder, c_rpc_url="fake", live_interval=None)
        node = PrimaryNode(options)
        node.start()
    with served_node(node) as url:
        NODE_URL[:] = [url]
        engine = indexed(folder / "store.db", url)
        settings = Settings(db_url=str(engine.url), page_token_secret="test-secret-0123456789")
        with TestClient(create_app(settings), raise_server_exceptions=False) as c:
            c.app.state.number_settings = settings.model_copy(
                update={"utxo_output_index": "number"}
            )
            yield c, node.sim


def every_tx(c: TestClient, chain: str, **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    while True:
        params = dict(q, pageSize=100, **({"pageToken": token} if token else {}))
        r = c.get(TXS.format(chain), params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        # Each chain's page is valid as the reference's own shape for that chain.
        conforms(body, PAGE_SCHEMAS[chain])
        out += body["transactions"]
        token = body.get("nextPageToken")
        if token is None:
            return out


def amounts_of(tx: dict[str, Any]) -> list[dict[str, Any]]:
    """Every AssetAmount a served tx carries."""
    found = [u["asset"] for key in ("consumedUtxos", "emittedUtxos") for u in tx.get(key, [])]
    for key in ("value", "amountBurned", "amountStaked", "amountUnlocked", "amountCreated"):
        found += tx.get(key, [])
    found += [io["asset"] for key in ("evmInputs", "evmOutputs") for io in tx.get(key, [])]
    return found


def test_x_chain_assets_are_named_from_their_create_asset_tx(world: World) -> None:
    c, sim = world
    txs = every_tx(c, "x-chain")
    records = {r.tx_id: r for r in sim.records if r.chain == "X"}
    created = [t for t in txs if t["txType"] == "CreateAssetTx"]
    expected = {cb58_encode(a): v for a, v in sim.x.assets.items() if a != AVAX_ASSET_ID}
    assert len(expected) >= 3 and {t["txHash"] for t in created} == set(expected)
    for t in created:
        asset = expected[t["txHash"]]
        details = t["assetCreated"]
        assert details == {
            "assetId": t["txHash"],
            "name": asset.name,
            "symbol": asset.symbol,
            "denomination": asset.denomination,
            "type": "nft" if asset.kind == "nft" else "secp256k1",
            "cap": "fixed" if asset.kind == "fungible" else "variable",
            "createdAtTimestamp": details["createdAtTimestamp"],
        }
        # A vertex has no time of its own: the node accepted it within 1.5 s of the sim's.
        assert 0 <= details["createdAtTimestamp"] - records[t["txHash"]].time <= 1
    avax = cb58_encode(AVAX_ASSET_ID)
    named = {avax: ("Avalanche", "AVAX", 9, "secp256k1")}
    named |= {
        k: (a.name, a.symbol, a.denomination, "nft" if a.kind == "nft" else "secp256k1")
        for k, a in expected.items()
    }
    seen = set()
    for t in txs:
        for amount in amounts_of(t):
            got = (amount["name"], amount["symbol"], amount["denomination"], amount["type"])
            assert got == named[amount["assetId"]], (t["txHash"], amount)
            seen.add(amount["assetId"])
    assert seen == set(named)  # every asset moved at least once


def test_utxos_carry_asset_names(world: World) -> None:
    c, sim = world
    silver = next(a for a in sim.x.assets.values() if a.symbol == "SLVR")
    holder = sim.keys.users[3]  # created SLVR and holds its initial supply
    r = c.get(
        "/v1/networks/fuji/blockchains/x-chain/utxos",
        params={"addresses": bech32_address(holder.address, "fuji"), "pageSize": 100},
    )
    assert r.status_code == 200, r.text
    by_asset = {u["assetId"]: u["asset"] for u in r.json()["utxos"]}
    assert by_asset[cb58_encode(silver.asset_id)]["symbol"] == "SLVR"
    assert by_asset[cb58_encode(silver.asset_id)]["denomination"] == 6


def test_x_chain_txs_have_the_linear_or_non_linear_shape(world: World) -> None:
    c, sim = world
    records = {r.tx_id: r for r in sim.records if r.chain == "X"}
    txs = every_tx(c, "x-chain")
    assert {t["txHash"] for t in txs} == set(records)
    formats = set()
    for t in txs:
        r = records[t["txHash"]]
        assert t["txType"] == r.type
        if r.index == X_VTX:
            assert t["chainFormat"] == "non-linear"
            (vertex,) = t["vertices"]
            assert vertex["height"] == r.height and vertex["hash"] == t["blockHash"]
            assert 0 <= vertex["timestamp"] - r.time <= 1 and t["timestamp"] == vertex["timestamp"]
        else:
            assert t["chainFormat"] == "linear" and "vertices" not in t
            assert t["blockHeight"] == r.height and t["timestamp"] == r.time
        formats.add(t["chainFormat"])
        assert t["memo"].startswith("0x")
        for key, total in (("consumedUtxos", "amountUnlocked"), ("emittedUtxos", "amountCreated")):
            sums: dict[str, int] = {}
            for u in t[key]:
                assert u["creationTxHash"] == u["txHash"] and u["locktime"] == 0
                assert u["timestamp"] == u["blockTimestamp"]
                sums[u["assetId"]] = sums.get(u["assetId"], 0) + int(u["amount"])
            assert {a["assetId"]: int(a["amount"]) for a in t[total]} == sums
        for u in t["consumedUtxos"]:
            assert u["consumingTxHash"] == t["txHash"]
            assert u["consumingTxTimestamp"] == t["timestamp"]
    assert formats == {"linear", "non-linear"}


def test_c_chain_atomic_txs_against_the_simulator(world: World) -> None:
    c, sim = world
    built = {
        cb58_encode(tx.id_bytes(ATOMIC_TABLE)): (number, tx)
        for number, txs in sim.c_atomic.items()
        for tx in txs
    }
    times = {r.tx_id: r.time for r in sim.records if r.chain == "C"}
    txs = every_tx(c, "c-chain")
    assert {t["txHash"] for t in txs} == set(built) and len(built) >= 10
    c_chain = "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"
    signers = {u.eth_address: u for u in sim.keys.users}
    kinds = set()
    for t in txs:
        number, tx = built[t["txHash"]]
        unsigned = tx.unsigned
        assert t["blockHeight"] == number and t["timestamp"] == times[t["txHash"]]
        assert t["memo"] == ""
        burned = {a["assetId"]: int(a["amount"]) for a in t["amountBurned"]}
        assert burned == {cb58_encode(AVAX_ASSET_ID): C_ATOMIC_FEE}
        if isinstance(unsigned, UnsignedImportTx):
            kinds.add("ImportTx")
            assert t["txType"] == "ImportTx" and t["destinationChain"] == c_chain
            assert t["sourceChain"] == cb58_encode(unsigned.source_chain)
            assert [(o["toAddress"], o["asset"]["amount"]) for o in t["evmOutputs"]] == [
                ("0x" + o.address.hex(), str(o.amount)) for o in unsigned.outputs
            ]
            took = sorted((u["txHash"], int(u["outputIndex"])) for u in t["consumedUtxos"])
            assert took == sorted(
                (cb58_encode(i.tx_id), i.output_index) for i in unsigned.imported_inputs
            )
            assert all(u["consumingTxHash"] == t["txHash"] for u in t["consumedUtxos"])
        else:
            assert isinstance(unsigned, UnsignedExportTx)
            kinds.add("ExportTx")
            assert t["txType"] == "ExportTx" and t["sourceChain"] == c_chain
            assert t["destinationChain"] == cb58_encode(unsigned.destination_chain)
            assert [(i["fromAddress"], i["asset"]["amount"]) for i in t["evmInputs"]] == [
                ("0x" + i.address.hex(), str(i.amount)) for i in unsigned.inputs
            ]
            sigs = [["0x" + s.hex() for s in cr.signatures] for cr in tx.credentials]
            assert [[c["signature"] for c in i["credentials"]] for i in t["evmInputs"]] == sigs
            # The recovered key is the simulator's signer, whose EVM address is the input's.
            for evm_in in t["evmInputs"]:
                signer = signers[evm_in["fromAddress"]]
                for cred in evm_in["credentials"]:
                    assert cred["publicKey"] == "0x" + signer.public.hex()
                    key = bytes.fromhex(cred["publicKey"][2:])
                    assert eth_address_from_pubkey(key) == evm_in["fromAddress"]
            assert [int(u["amount"]) for u in t["emittedUtxos"]] == [
                o.output.amount for o in unsigned.exported_outputs
            ]
    assert kinds == {"ImportTx", "ExportTx"}


def _sdk(c: TestClient, settings: Settings | None, chain: str, addresses: str) -> dict[str, Any]:
    app = c.app if settings is None else create_app(settings)
    with serving(app) as base:
        args = {"toolsDir": str(TOOLS), "addresses": addresses, "blockchainId": chain}
        out, stderr = run_node(SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    summary: dict[str, Any] = out["summary"]
    return summary


def test_the_official_sdk_parses_every_page(world: World) -> None:
    c, sim = world
    user = sim.keys.users[4]
    x_addr, eth = "X-" + bech32_address(user.address, "fuji"), user.eth_address
    n_c, n_x = len(every_tx(c, "c-chain")), len(every_tx(c, "x-chain"))
    # The P-chain's integer outputIndex: P pages, and C pages with AVADATA_UTXO_OUTPUT_INDEX=
    # number, parse in the P-chain branch.
    numbers = c.app.state.number_settings
    p = _sdk(c, None, "p-chain", "P-" + bech32_address(user.address, "fuji"))
    every_p = every_tx(c, "p-chain")
    assert p["transactions.listLatest(all)"]["items"] == len(every_p)
    # The SDK keeps l1ValidatorDetails (unknown keys would be dropped): the shape fits.
    with_l1 = sum("l1ValidatorDetails" in t for t in every_p)
    assert with_l1 and p["transactions.listLatest(all)"]["kept"]["l1"] == with_l1
    cc = _sdk(c, numbers, "c-chain", eth)
    assert cc["transactions.listLatest(all)"]["items"] == n_c
    # The SDK's string outputIndex (default): X pages (CreateAssetTx, OperationTx are not
    # P-chain types) parse in the X-chain branch, C pages in the C-chain branch, UTXOs as Utxo.
    x = _sdk(c, None, "x-chain", x_addr)
    every = x["transactions.listLatest(all)"]
    assert every["items"] == n_x and every["kept"]["chainFormat"] == n_x
    # The X-chain branch keeps groupId (and payload) of NFT UTXOs.
    with_nft = sum(
        any("groupId" in u for u in t["consumedUtxos"] + t["emittedUtxos"])
        for t in every_tx(c, "x-chain")
    )
    assert with_nft and every["kept"]["nft"] == with_nft
    assert x["utxos.listByAddresses"]["kept"]["creationTxHash"] > 0
    cs = _sdk(c, None, "c-chain", eth)
    assert cs["transactions.listLatest(all)"]["kept"]["evm"] == n_c
    # The C-chain branch keeps the EVM input credentials' publicKey (UtxoCredential).
    exports = sum(t["txType"] == "ExportTx" for t in every_tx(c, "c-chain"))
    assert exports and cs["transactions.listLatest(all)"]["kept"]["publicKey"] == exports


L1_TYPES = (
    "ConvertSubnetToL1Tx",
    "RegisterL1ValidatorTx",
    "SetL1ValidatorWeightTx",
    "IncreaseL1ValidatorBalanceTx",
    "DisableL1ValidatorTx",
)


def test_l1_validation_id_lists_that_validations_txs(world: World) -> None:
    c, sim = world
    state = sim.p.state
    validations = {**state.l1_validators, **state.removed_l1_validators}
    assert len(validations) >= 3 and state.removed_l1_validators  # removed ones are listed too
    listed: set[str] = set()
    for vid in validations:
        txs = every_tx(c, "p-chain", l1ValidationId=cb58_encode(vid), sortOrder="asc")
        assert txs and txs[0]["txType"] in ("ConvertSubnetToL1Tx", "RegisterL1ValidatorTx")
        assert all(t["txType"] in L1_TYPES for t in txs)
        assert [t["blockTimestamp"] for t in txs] == sorted(t["blockTimestamp"] for t in txs)
        listed |= {t["txHash"] for t in txs}
        later = every_tx(
            c,
            "p-chain",
            l1ValidationId=cb58_encode(vid),
            txTypes="IncreaseL1ValidatorBalanceTx",
            startTimestamp=txs[0]["blockTimestamp"] + 1,
        )
        assert later == [
            t
            for t in reversed(txs)
            if t["txType"] == "IncreaseL1ValidatorBalanceTx"
            and t["blockTimestamp"] > txs[0]["blockTimestamp"]
        ]
    every_l1 = {r.tx_id for r in sim.records if r.chain == "P" and r.type in L1_TYPES}
    assert listed == every_l1
    bad = c.get(TXS.format("x-chain"), params={"l1ValidationId": cb58_encode(bytes(32))})
    assert bad.status_code == 400 and "l1ValidationId" in bad.json()["message"]
    bad = c.get(TXS.format("p-chain"), params={"l1ValidationId": "not-an-id"})
    assert bad.status_code == 400 and "l1ValidationId" in bad.json()["message"]
    unknown = c.get(TXS.format("p-chain"), params={"l1ValidationId": cb58_encode(bytes(32))})
    assert unknown.status_code == 200 and unknown.json()["transactions"] == []


def test_l1_validator_details_against_the_simulator(world: World) -> None:
    """Every L1 tx carries one entry per validation it touches: node, subnet and BLS key as
    the simulator registered them, the weight after the tx (the last one: the simulator's
    current weight, 0 once removed), what the tx moved into the balance, and the balance the
    node reports at the P-chain's current time (0 once disabled or removed)."""
    c, sim = world
    state = sim.p.state
    validations = {**state.l1_validators, **state.removed_l1_validators}
    disabled = removed = increased = 0
    refunded = {cb58_encode(tx_id): amount for tx_id, (_, amount, _) in state.refunds.items()}
    for vid, v in validations.items():
        txs = every_tx(c, "p-chain", l1ValidationId=cb58_encode(vid), sortOrder="asc")
        entries = []
        for t in txs:
            mine = [d for d in t["l1ValidatorDetails"] if d["validationId"] == cb58_encode(vid)]
            assert len(mine) == 1, t["txHash"]
            entries.append((t["txType"], mine[0]))
        for (tx_type, d), t in zip(entries, txs, strict=True):
            assert d["validationIdHex"] == "0x" + vid.hex()
            assert d["nodeId"] == node_id_str(v.node_id)
            assert d["subnetId"] == cb58_encode(v.subnet_id)
            assert d["blsCredentials"]["publicKey"] == "0x" + v.bls_public_key.hex()
            assert d["remainingBalance"] == v.remaining(state.time)
            if tx_type == "IncreaseL1ValidatorBalanceTx":
                increased += 1
                assert d["balanceChange"] > 0
            elif tx_type in ("ConvertSubnetToL1Tx", "RegisterL1ValidatorTx"):
                assert d["balanceChange"] > 0
            elif t["txHash"] in refunded:
                # A disable or removal: the balance left, returned to its owner.
                assert d["balanceChange"] == -refunded[t["txHash"]] < 0, t["txHash"]
            else:
                assert "balanceChange" not in d
        assert entries[-1][1]["weight"] == v.weight
        # An increase or a disable leaves the weight as the tx before it set it.
        for (_, before), (tx_type, d) in zip(entries, entries[1:], strict=False):
            if tx_type != "SetL1ValidatorWeightTx":
                assert d["weight"] == before["weight"], tx_type
        deposits = sum(
            d.get("balanceChange", 0) for _, d in entries if d.get("balanceChange", 0) > 0
        )
        if v.disabled:
            disabled += 1
            assert entries[-1][0] == "DisableL1ValidatorTx" and v.remaining(state.time) == 0
        elif vid in state.removed_l1_validators:
            removed += 1
            assert entries[-1][0] == "SetL1ValidatorWeightTx" and entries[-1][1]["weight"] == 0
        elif len(entries) == 1:
            # Never topped up: the deposit minus the continuous fee since its creation.
            elapsed = state.time - v.start
            assert v.remaining(state.time) == max(0, deposits - L1_FEE_PER_SECOND * elapsed)
    assert disabled and removed and increased
    every_l1 = [t for t in every_tx(c, "p-chain") if t["txType"] in L1_TYPES]
    converts = [t for t in every_l1 if t["txType"] == "ConvertSubnetToL1Tx"]
    assert converts and all(len(t["l1ValidatorDetails"]) == len(t["validators"]) for t in converts)
    assert all(len(t["l1ValidatorDetails"]) == 1 for t in every_l1 if t not in converts)
    assert all("l1ValidatorDetails" not in t for t in every_tx(c, "p-chain") if t not in every_l1)


def test_l1_deposits_are_not_fees(world: World) -> None:
    """A conversion, registration or top-up moves its balances into amountL1ValidatorBalanceBurned
    (the balances the tx itself carries); amountBurned keeps only the fee the simulator charged
    (CREATE_FEE for a conversion, FEE for the others): consumed = emitted + deposit + fee."""
    c, _ = world
    fees = {
        "ConvertSubnetToL1Tx": CREATE_FEE,
        "RegisterL1ValidatorTx": FEE,
        "IncreaseL1ValidatorBalanceTx": FEE,
    }
    seen = set()
    for t in every_tx(c, "p-chain"):
        deposit = sum(int(a["amount"]) for a in t["amountL1ValidatorBalanceBurned"])
        burned = sum(int(a["amount"]) for a in t["amountBurned"])
        if t["txType"] in fees:
            seen.add(t["txType"])
            balances = (
                [v["balance"] for v in t["validators"]]
                if t["txType"] == "ConvertSubnetToL1Tx"
                else [t["balance"]]
            )
            assert deposit == sum(balances) > 0, t["txHash"]
            assert burned == fees[t["txType"]], t["txHash"]
        else:
            assert t["amountL1ValidatorBalanceBurned"] == [], t["txHash"]
    assert seen == set(fees)


def test_x_chain_nft_utxos_carry_group_and_payload(world: World) -> None:
    """nftfx outputs as the simulator minted them: mint outputs (the CreateAssetTx's groups)
    with their groupId, transfer outputs (mints and transfers of NFTs) with groupId and the
    payload; no other UTXO carries either."""
    c, sim = world
    art = next(a for a in sim.x.assets.values() if a.kind == "nft")
    art_id = cb58_encode(art.asset_id)
    payload = "0x" + b"ipfs://devnet-art".hex()
    kinds: set[str] = set()
    for t in every_tx(c, "x-chain"):
        for u in t["consumedUtxos"] + t["emittedUtxos"]:
            if u["assetId"] != art_id:
                assert "groupId" not in u and "payload" not in u, u["utxoId"]
                continue
            assert u["groupId"] in range(3), u
            kinds.add("transfer" if "payload" in u else "mint")
            assert u.get("payload", payload) == payload
        if t["txType"] == "CreateAssetTx" and t["txHash"] == art_id:
            assert sorted(u["groupId"] for u in t["emittedUtxos"] if u["assetId"] == art_id) == [
                0,
                1,
                2,
            ]
    assert kinds == {"mint", "transfer"}
    held = [coin for coin in sim.x.utxos if coin.asset == art.asset_id]
    assert held
    for coin in held:
        owner = bech32_address(coin.owners[0], "fuji")
        r = c.get(
            "/v1/networks/fuji/blockchains/x-chain/utxos",
            params={"addresses": owner, "pageSize": 100},
        )
        assert r.status_code == 200, r.text
        served = {u["utxoId"]: u for u in r.json()["utxos"]}[cb58_encode(coin.utxo_id)]
        assert served["groupId"] == coin.output.group_id
        want = getattr(coin.output, "payload", None)
        assert served.get("payload") == (None if want is None else "0x" + want.hex())
    p_utxos = c.get(
        "/v1/networks/fuji/blockchains/p-chain/utxos",
        params={"addresses": bech32_address(held[0].owners[0], "fuji"), "pageSize": 100},
    )
    assert all("groupId" not in u for u in p_utxos.json()["utxos"])


def test_l1_refunds_against_the_simulator(world: World) -> None:
    """Every balance a disable or removal returned (the simulator's refund ledger: amount and
    owner, at index len(outputs) of the tx) is that tx's emitted UTXO, owned by the
    validation's remainingBalanceOwner: listed by /utxos of the owner while the simulator
    still holds it (the indexer asked the node), and consumed by a tx whose consumedUtxos
    name it once spent (rebuilt from the spending input). amountBurned stays the fee."""
    c, sim = world
    state = sim.p.state
    assert state.refunds
    by_hash = {t["txHash"]: t for t in every_tx(c, "p-chain")}
    unspent = spent = 0
    for tx_id, (index, amount, owner) in state.refunds.items():
        tx = by_hash[cb58_encode(tx_id)]
        owners = [bech32_address(a, "fuji") for a in owner.addresses]
        (refund,) = [u for u in tx["emittedUtxos"] if u["outputIndex"] == index]
        assert index == len(tx["emittedUtxos"]) - 1
        assert (int(refund["amount"]), refund["addresses"]) == (amount, owners)
        assert refund["threshold"] == owner.threshold and refund["platformLocktime"] == 0
        assert [int(a["amount"]) for a in tx["amountBurned"]] == [FEE], tx["txHash"]
        assert tx["amountL1ValidatorBalanceBurned"] == []
        assert tx["l1ValidatorDetails"][0]["balanceChange"] == -amount
        r = c.get(
            "/v1/networks/fuji/blockchains/p-chain/utxos",
            params={"addresses": ",".join(owners), "pageSize": 100, "sortBy": "amount"},
        )
        listed = {u["utxoId"]: u for u in r.json()["utxos"]}
        if sim.p.utxos.get(tx_id, index) is not None:
            unspent += 1
            assert "consumingTxHash" not in refund
            assert listed[refund["utxoId"]]["amount"] == str(amount)
        else:
            spent += 1
            assert refund["utxoId"] not in listed
            spender = by_hash[refund["consumingTxHash"]]
            assert refund["utxoId"] in {u["utxoId"] for u in spender["consumedUtxos"]}
        # The owner's transactions include the refund.
        mine = every_tx(c, "p-chain", addresses=owners[0])
        assert tx["txHash"] in {t["txHash"] for t in mine}
    # Users' refunds are spent before the indexer runs (rebuilt from the spending input);
    # the refund-keeper's stays unspent (found in the node's UTXOs when its tx was indexed).
    assert spent and unspent


def test_refund_utxos_from_the_node(world: World) -> None:
    """platform.getUTXOs as the indexer calls it (paged by 1,024, resumed at endIndex): the
    devnet node answers each address's UTXOs from the simulator's book, so a refund still
    unspent when its tx is indexed is found there."""
    _, sim = world
    owners = {a for _, _, o in sim.p.state.refunds.values() for a in o.addresses}

    async def ask(node: str, addresses: list[str]) -> list[Any]:
        client = JsonRpcClient(f"{node}/ext/bc/P", max_batch=1)
        try:
            return await indexer.owned_utxos(client, addresses)
        finally:
            await client.aclose()

    node = NODE_URL[0]
    for owner in sorted(owners):
        got = asyncio.run(ask(node, ["P-" + bech32_address(owner, "fuji")]))
        held = {(coin.tx_id, coin.index, coin.amount) for coin in sim.p.utxos.owned(owner)}
        assert {(u.tx_id, u.output_index, u.output.amount) for u in got} == held
        assert held


def test_consumed_utxos_carry_the_credentials_that_unlocked_them(world: World) -> None:
    """Every UTXO a P, X or C-chain tx consumed carries the signatures of that tx's credential
    for it, each with the key it recovers: a key of one of the UTXO's owners (their address is
    the key's hash), one per signature the owners' threshold asks for."""
    c, sim = world
    seen = 0
    for chain in ("p-chain", "x-chain", "c-chain"):
        for t in every_tx(c, chain):
            for u in t["consumedUtxos"]:
                owners = {parse_bech32_address(a)[2] for a in u["addresses"]}
                creds = u["credentials"]
                assert len(creds) == u["threshold"], (t["txHash"], u)
                for cred in creds:
                    key = bytes.fromhex(cred["publicKey"].removeprefix("0x"))
                    assert address_from_pubkey(key) in owners
                    assert len(bytes.fromhex(cred["signature"].removeprefix("0x"))) == 65
                seen += 1
    assert seen > 100
    # A spent UTXO listed by /utxos carries the same credentials as in its spender's list.
    spent_in = {
        u["utxoId"]: u["credentials"]
        for chain in ("p-chain", "x-chain", "c-chain")
        for t in every_tx(c, chain)
        for u in t["consumedUtxos"]
    }
    listed = 0
    for chain in ("p-chain", "x-chain"):
        for user in sim.keys.users[:6]:
            utxos = _all(
                c,
                f"/v1/networks/fuji/blockchains/{chain}/utxos",
                "utxos",
                addresses=bech32_address(user.address, "fuji"),
                includeSpent="true",
                pageSize=100,
            )
            for u in utxos:
                if "consumingTxHash" in u:
                    assert u["credentials"] == spent_in[u["utxoId"]]
                    listed += 1
                else:
                    assert "credentials" not in u
    assert listed > 20


@pytest.mark.parametrize("chain", ["p-chain", "x-chain"])
@pytest.mark.parametrize("order", ["desc", "asc"])
@pytest.mark.parametrize("users,size", [((1, 5), 7), ((0, 2), 1), ((6, 9), 2)])
def test_several_addresses_page_as_the_union_of_each_ones(
    world: World, chain: str, order: str, users: tuple[int, int], size: int
) -> None:
    """A listing for several addresses (walked in small pages) holds each address's own
    listing once, merged in the listing's order: the second computation is the single-address
    listings, merged here."""
    c, sim = world
    owners = [bech32_address(k.address, "fuji") for k in sim.keys.users[users[0] : users[1]]]
    base = "/v1/networks/fuji/blockchains/" + chain
    txs = _all(
        c,
        base + "/transactions",
        "transactions",
        sortOrder=order,
        pageSize=size,
        addresses=",".join(owners),
    )
    each = [
        _all(c, base + "/transactions", "transactions", sortOrder=order, pageSize=100, addresses=o)
        for o in owners
    ]
    assert len({t["txHash"] for t in txs}) == len(txs)
    assert {t["txHash"] for t in txs} == {t["txHash"] for one in each for t in one}
    place = {t["txHash"]: i for i, t in enumerate(txs)}
    for one in each:  # each address's own order survives the merge
        assert [place[t["txHash"]] for t in one] == sorted(place[t["txHash"]] for t in one)
    stamps = [(t["blockTimestamp"], int(t["blockNumber"])) for t in txs]
    assert stamps == sorted(stamps, reverse=order == "desc")
    for sort_by, key in (("timestamp", "blockTimestamp"), ("amount", "amount")):
        q = {"sortBy": sort_by, "sortOrder": order, "includeSpent": "true"}
        utxos = _all(c, base + "/utxos", "utxos", pageSize=size, addresses=",".join(owners), **q)
        merged = {
            u["utxoId"]: u
            for o in owners
            for u in _all(c, base + "/utxos", "utxos", pageSize=100, addresses=o, **q)
        }
        expected = sorted(
            merged.values(), key=lambda u: (int(u[key]), u["utxoId"]), reverse=order == "desc"
        )
        assert [u["utxoId"] for u in utxos] == [u["utxoId"] for u in expected]
        assert len(utxos) > 3 * size  # several pages
    assert len(txs) > 3 * size


def _one_tx_schema(chain: str, t: dict[str, Any]) -> str:
    if chain == "x-chain":
        linear = t["chainFormat"] == "linear"
        return "XChainLinearTransaction" if linear else "XChainNonLinearTransaction"
    if chain == "c-chain":
        return "CChainImportTransaction" if t["txType"] == "ImportTx" else "CChainExportTransaction"
    return "PChainTransaction"


def _unordered(t: dict[str, Any]) -> dict[str, Any]:
    """The tx with its UTXO lists in one order (neither response promises one)."""
    out = dict(t)
    for key in ("consumedUtxos", "emittedUtxos"):
        out[key] = sorted(t[key], key=lambda u: str(u["utxoId"]))
    return out


def test_get_tx_by_hash_on_every_chain(world: World) -> None:
    """getTxByHash: every tx the simulators made, on its chain, with their type and time (the
    vertex txs within the second of the vertex's acceptance), in its chain's reference shape;
    the same item as the chain's listing; the SDK parses one of each chain."""
    c, sim = world
    names = {"P": "p-chain", "X": "x-chain", "C": "c-chain"}
    url = "/v1/networks/fuji/blockchains/{}/transactions/{}"
    listed = {n: {t["txHash"]: t for t in every_tx(c, n)} for n in names.values()}
    picked: dict[str, list[str]] = {}
    for r in sim.records:
        chain = names[r.chain]
        got = c.get(url.format(chain, r.tx_id))
        assert got.status_code == 200, got.text
        t = got.json()
        conforms(t, _one_tx_schema(chain, t))
        assert t["txHash"] == r.tx_id and t["txType"] == r.type
        assert 0 <= t["blockTimestamp"] - r.time <= (1 if r.index == X_VTX else 0)
        assert _unordered(t) == _unordered(listed[chain][r.tx_id])
        picked.setdefault(chain, []).append(r.tx_id)
    assert sum(len(v) for v in listed.values()) == len(sim.records)
    # Bad input: malformed IDs are 400s naming txHash; a well-formed unknown one a 404; a tx
    # of another chain is unknown on this one.
    for bad in ("xyz", "0x" + "11" * 32, cb58_encode(bytes(20))):
        r = c.get(url.format("p-chain", bad))
        assert r.status_code == 400 and "txHash" in r.json()["message"], (bad, r.text)
    assert c.get(url.format("p-chain", cb58_encode(bytes(32)))).status_code == 404
    assert c.get(url.format("c-chain", picked["p-chain"][0])).status_code == 404
    assert c.get(url.format("moon-chain", picked["p-chain"][0])).status_code == 400
    pairs = [[chain, ids[len(ids) // 2]] for chain, ids in picked.items()]
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "P-" + bech32_address(bytes(20), "fuji"),
        "blockchainId": "p-chain",
        "txHashes": pairs,
    }
    with serving(c.app) as base:
        out, stderr = run_node(SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    kept = {tx: v["kept"] for tx, v in out["summary"]["get"].items()}
    assert kept == {tx: chain[0] for chain, tx in pairs}


def test_asset_details_equal_the_create_asset_txs(world: World) -> None:
    """getAssetDetails: each asset the X-chain simulator created, as it defined it; AVAX by
    its well-known ID; the SDK parses them."""
    c, sim = world
    records = {r.tx_id: r for r in sim.records if r.chain == "X"}
    url = "/v1/networks/fuji/blockchains/x-chain/assets/{}"
    made = {cb58_encode(a): v for a, v in sim.x.assets.items() if a != AVAX_ASSET_ID}
    assert len(made) >= 3
    for asset_id, asset in made.items():
        got = c.get(url.format(asset_id))
        assert got.status_code == 200, got.text
        details = got.json()
        conforms(details, "XChainAssetDetails")
        assert details == {
            "assetId": asset_id,
            "name": asset.name,
            "symbol": asset.symbol,
            "denomination": asset.denomination,
            "type": "nft" if asset.kind == "nft" else "secp256k1",
            "cap": "fixed" if asset.kind == "fungible" else "variable",
            "createdAtTimestamp": details["createdAtTimestamp"],
        }
        assert 0 <= details["createdAtTimestamp"] - records[asset_id].time <= 1
    avax = c.get(url.format(cb58_encode(AVAX_ASSET_ID))).json()
    assert (avax["symbol"], avax["denomination"], avax["cap"]) == ("AVAX", 9, "fixed")
    assert c.get(url.format(cb58_encode(bytes(32)))).status_code == 404
    for bad, named in (("zzz", "assetId"), (cb58_encode(bytes(20)), "assetId")):
        r = c.get(url.format(bad))
        assert r.status_code == 400 and named in r.json()["message"], r.text
    r = c.get("/v1/networks/fuji/blockchains/p-chain/assets/" + next(iter(made)))
    assert r.status_code == 400 and "blockchainId" in r.json()["message"]
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "X-" + bech32_address(bytes(20), "fuji"),
        "blockchainId": "x-chain",
        "assetIds": list(made),
    }
    with serving(c.app) as base:
        out, stderr = run_node(SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    for asset_id in made:
        assert out["summary"]["assets"][asset_id] == c.get(url.format(asset_id)).json()
        pages = out["summary"][f"transactions.listAssetTransactions {asset_id}"]
        assert pages["items"] >= 1


def _node_containers(chain: str, kind: str = "block") -> list[Any]:
    """Every container of the node's `chain` index (`kind` block or vtx), as its Index API
    serves them."""
    from avadata.sources.index_api import IndexApiSource, index_url

    async def ask() -> list[Any]:
        client = JsonRpcClient(index_url(NODE_URL[0], chain, kind), max_batch=1)
        try:
            source = IndexApiSource(client)
            last = await source.last_accepted_index()
            return [] if last is None else await source.range(0, last + 1)
        finally:
            await client.aclose()

    return asyncio.run(ask())


def _every_block(c: TestClient, chain: str, url: str = "", **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    url = url or f"/v1/networks/fuji/blockchains/{chain}/blocks"
    while True:
        r = c.get(url, params=dict(q, pageSize=100, **({"pageToken": token} if token else {})))
        assert r.status_code == 200, r.text
        body = r.json()
        conforms(body, "ListPrimaryNetworkBlocksResponse")
        out += body["blocks"]
        token = body.get("nextPageToken")
        if token is None:
            return out


@pytest.mark.parametrize("chain", ["P", "X"])
def test_blocks_are_the_nodes_containers(world: World, chain: str) -> None:
    """listLatestPrimaryNetworkBlocks and getBlockById against the node's Index API (container
    IDs, bytes, each wrapper's parent the previous container) and the simulator's records
    (the txs of each height); the SDK parses the pages."""
    c, sim = world
    name = {"P": "p-chain", "X": "x-chain"}[chain]
    containers = _node_containers(chain)
    blocks = _every_block(c, name)
    assert len(containers) > 10
    assert [b["blockHash"] for b in blocks] == [k.id for k in reversed(containers)]
    assert [b["blockSizeBytes"] for b in blocks] == [len(k.raw) for k in reversed(containers)]
    oldest_first = list(reversed(blocks))
    proposed: dict[str, list[dict[str, Any]]] = {}
    for k, b in enumerate(oldest_first):
        if "proposerDetails" in b:
            details = b["proposerDetails"]
            assert b["parentHash"] == details["proposerParentId"]
            if k:
                assert b["parentHash"] == oldest_first[k - 1]["blockHash"]
            proposed.setdefault(details["proposerNodeId"], []).append(b)
    # The devnet's nodes take turns proposing (signing with their certificates, which their
    # NodeIDs hash, as avalanchego's NodeIDFromCert).
    assert set(proposed) <= {node_id_str(n.node_id) for n in sim.keys.nodes}
    assert len(proposed) > 3
    by_height: dict[int, set[str]] = {}
    for r in sim.records:
        if r.chain == chain and r.index != X_VTX:
            by_height.setdefault(r.height, set()).add(r.tx_id)
    for b in blocks:
        assert set(b["transactions"]) == by_height.get(int(b["blockNumber"]), set())
        assert b["txCount"] == len(b["transactions"])
    url = f"/v1/networks/fuji/blockchains/{name}/blocks/"
    middle = blocks[len(blocks) // 2]
    for key in (middle["blockHash"], middle["blockNumber"]):
        got = c.get(url + key)
        assert got.status_code == 200, got.text
        conforms(got.json(), "GetPrimaryNetworkBlockResponse")
        assert got.json() == middle
    assert c.get(url + cb58_encode(bytes(32))).status_code == 404
    assert c.get(url + "99999999").status_code == 404
    bad = c.get(url + "not-a-block")
    assert bad.status_code == 400 and "blockId" in bad.json()["message"]
    t0, t1 = blocks[-5]["blockTimestamp"], blocks[4]["blockTimestamp"]
    window = _every_block(c, name, startTimestamp=t0, endTimestamp=t1)
    assert window == [b for b in blocks if t0 <= b["blockTimestamp"] <= t1]
    for node, theirs in proposed.items():
        url_node = f"/v1/networks/fuji/blockchains/{name}/nodes/{node}/blocks"
        assert _every_block(c, name, url_node) == list(reversed(theirs))
    idle = node_id_str(bytes(20))
    assert _every_block(c, name, f"/v1/networks/fuji/blockchains/{name}/nodes/{idle}/blocks") == []
    r = c.get(f"/v1/networks/fuji/blockchains/{name}/nodes/NodeID-xyz/blocks")
    assert r.status_code == 400 and "nodeId" in r.json()["message"]
    assert c.get("/v1/networks/fuji/blockchains/c-chain/blocks").status_code == 400
    args = {
        "toolsDir": str(TOOLS),
        "addresses": f"{chain}-" + bech32_address(bytes(20), "fuji"),
        "blockchainId": name,
        "blocks": True,
        "blockIds": [middle["blockHash"]],
    }
    with serving(c.app) as base:
        out, stderr = run_node(SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    assert out["summary"]["blocks.listLatest"]["items"] == len(blocks)
    assert out["summary"]["blocks"][middle["blockHash"]]["blockHash"] == middle["blockHash"]


def test_vertices_are_the_nodes_dag(world: World) -> None:
    """listLatestXChainVertices, getVertexByHash and getVertexByHeight against the node's
    X/vtx Index API (IDs, bytes, order), the DAG's own rule (a vertex stands one above its
    highest parent, every parent an earlier vertex) and the simulator's vertex txs."""
    c, sim = world
    base = "/v1/networks/fuji/blockchains/x-chain/vertices"
    containers = _node_containers("X", "vtx")
    got: list[dict[str, Any]] = []
    token = None
    while True:
        q = {"pageSize": 7, **({"pageToken": token} if token else {})}
        body = c.get(base, params=q).json()
        conforms(body, "ListXChainVerticesResponse")
        got += body["vertices"]
        token = body.get("nextPageToken")
        if token is None:
            break
    assert len(containers) > 3
    assert [v["vertexHash"] for v in got] == [k.id for k in reversed(containers)]
    assert [v["vertexSizeBytes"] for v in got] == [len(k.raw) for k in reversed(containers)]
    assert [v["vertexIndex"] for v in got] == [k.index for k in reversed(containers)]
    height = {v["vertexHash"]: v["vertexHeight"] for v in got}
    for v in reversed(got):
        parents = v["parentHashes"]
        assert all(height[p] < v["vertexHeight"] for p in parents)
        assert v["vertexHeight"] == (max(height[p] for p in parents) + 1 if parents else 0)
    in_vertices: dict[int, set[str]] = {}
    for r in sim.records:
        if r.chain == "X" and r.index == X_VTX:
            in_vertices.setdefault(r.height, set()).add(r.tx_id)
    by_height: dict[int, set[str]] = {}
    for v in got:
        by_height.setdefault(v["vertexHeight"], set()).update(v["transactions"])
        assert v["txCount"] == len(v["transactions"])
    assert {h: t for h, t in by_height.items() if t} == in_vertices
    middle = got[len(got) // 2]
    one = c.get(f"{base}/{middle['vertexHash']}")
    assert one.status_code == 200 and one.json() == middle
    conforms(one.json(), "XChainVertex")
    at = c.get(f"{base}:listByHeight", params={"vertexHeight": middle["vertexHeight"]}).json()
    conforms(at, "ListXChainVerticesResponse")
    assert at["vertices"] == [v for v in got if v["vertexHeight"] == middle["vertexHeight"]]
    assert c.get(f"{base}/{cb58_encode(bytes(32))}").status_code == 404
    bad = c.get(f"{base}/nope")
    assert bad.status_code == 400 and "vertexHash" in bad.json()["message"]
    assert c.get(f"{base}:listByHeight").status_code == 400  # vertexHeight is required
    assert c.get("/v1/networks/fuji/blockchains/p-chain/vertices").status_code == 400
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "X-" + bech32_address(bytes(20), "fuji"),
        "blockchainId": "x-chain",
        "vertexHeight": middle["vertexHeight"],
    }
    with serving(c.app) as base_url:
        out, stderr = run_node(SDK_SCRIPT, base_url, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    assert out["summary"]["vertices.listLatest"]["items"] == len(got)
    assert out["summary"]["vertices.listByHeight"]["items"] == len(at["vertices"])


def _all_of(c: TestClient, url: str, key: str, schema: str, **q: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = None
    while True:
        r = c.get(url, params=dict(q, pageSize=2, **({"pageToken": token} if token else {})))
        assert r.status_code == 200, r.text
        conforms(r.json(), schema)
        out += r.json()[key]
        token = r.json().get("nextPageToken")
        if token is None:
            return out


OWNER_FORM = "P-{}"  # the codec prints P-chain owners with their chain prefix


def test_subnets_and_blockchains_equal_the_p_chain_state(world: World) -> None:
    """listSubnets / getSubnetById / listBlockchains / getBlockchainById against the P-chain
    simulator's subnets: owner after any TransferSubnetOwnershipTx, L1 conversion (tx,
    manager chain and address), chains."""
    c, sim = world
    state = sim.p.state
    records = {r.tx_id: r for r in sim.records if r.chain == "P"}
    subnets = _all_of(c, "/v1/networks/fuji/subnets", "subnets", "ListSubnetsResponse")
    assert {s["subnetId"] for s in subnets} == {cb58_encode(k) for k in state.subnets}
    assert any(records[t].type == "TransferSubnetOwnershipTx" for t in records)
    stamps = [s["createBlockTimestamp"] for s in subnets]
    assert stamps == sorted(stamps)
    converted = 0
    for s in subnets:
        truth = state.subnets[bytes_of(s["subnetId"])]
        owner = s["subnetOwnershipInfo"]
        assert owner["addresses"] == [OWNER_FORM.format(bech32_address(truth.owner, "fuji"))]
        assert owner["threshold"] == 1 and s["ownerAddresses"] == owner["addresses"]
        assert s["createBlockTimestamp"] == records[s["subnetId"]].time
        assert s["isL1"] == truth.converted
        if truth.converted:
            converted += 1
            assert truth.conversion_tx is not None and truth.manager_chain is not None
            assert s["l1ConversionTransactionHash"] == cb58_encode(truth.conversion_tx)
            manager = s["l1ValidatorManagerDetails"]
            assert manager["blockchainId"] == cb58_encode(truth.manager_chain)
            assert manager["contractAddress"] == "0x" + truth.manager_address.hex()
        assert [b["blockchainId"] for b in s["blockchains"]] == [
            cb58_encode(x) for x in truth.chains
        ]
        one = c.get(f"/v1/networks/fuji/subnets/{s['subnetId']}")
        assert one.status_code == 200 and one.json() == s
    assert converted
    chains = _all_of(c, "/v1/networks/fuji/blockchains", "blockchains", "ListBlockchainsResponse")
    every = {cb58_encode(x) for s in state.subnets.values() for x in s.chains}
    assert {b["blockchainId"] for b in chains} == every
    for b in chains:
        config = sim.evm_config(b["blockchainName"])
        if config is not None:
            assert b["evmChainId"] == config.chain_id
        one = c.get(f"/v1/networks/fuji/blockchains/{b['blockchainId']}")
        assert one.status_code == 200 and one.json() == b
        conforms(one.json(), "Blockchain")
    assert c.get(f"/v1/networks/fuji/subnets/{cb58_encode(bytes(32))}").status_code == 404
    bad = c.get("/v1/networks/fuji/subnets/nope")
    assert bad.status_code == 400 and "subnetId" in bad.json()["message"]
    assert c.get(f"/v1/networks/fuji/blockchains/{cb58_encode(bytes([1]) * 32)}").status_code == 404
    desc = _all_of(
        c, "/v1/networks/fuji/subnets", "subnets", "ListSubnetsResponse", sortOrder="desc"
    )
    assert desc == list(reversed(subnets))
    args = {
        "toolsDir": str(TOOLS),
        "addresses": "P-" + bech32_address(bytes(20), "fuji"),
        "blockchainId": "p-chain",
        "subnets": True,
    }
    with serving(c.app) as base:
        out, stderr = run_node(SDK_SCRIPT, base, json.dumps(args))
    assert out["_returncode"] == 0 and out["ok"], (out, stderr)
    assert out["summary"]["listSubnets"]["items"] == len(subnets)
    assert out["summary"]["listBlockchains"]["items"] == len(chains)


def bytes_of(cb58: str) -> bytes:
    from avadata.decode.codec.ids import cb58_decode

    return cb58_decode(cb58)
