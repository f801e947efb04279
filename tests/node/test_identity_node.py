"""The devnet node as avalanchego: its info API and the C-chain's eth_getChainConfig, and the
identity `avadata index` gathers from it, checked against the node's own P-chain
(platform.getBlockchains), avalanchego's constants and Fuji's upgrade dates (written here as
calendar dates, a second computation), on both engines where the store is involved."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.decode.codec.ids import cb58_encode
from avadata.devnet.facade.coreth import coreth_methods
from avadata.devnet.facade.index_api import index_routes
from avadata.devnet.facade.pnode_routes import node_routes
from avadata.devnet.facade.routes import ChainRoute
from avadata.devnet.facade.server import FacadeServer
from avadata.devnet.primary.network_ids import C_CHAIN_ID
from avadata.devnet.primary.node import NodeOptions, PrimaryNode
from avadata.devnet.primary.simulator import PrimaryConfig
from avadata.indexer import identity
from avadata.records.identity import ChainIdentity
from avadata.store import identity as store_identity
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.queries.chains import find_chain, list_chains
from tests.store import conftest as store_engines

# The store's engine fixtures (SQLite and PostgreSQL), used here as in tests/store.
db_url = store_engines.db_url
engine = store_engines.engine
pg_cluster = store_engines.pg_cluster
pg_template = store_engines.pg_template
sqlite_template = store_engines.sqlite_template

CONFIG = PrimaryConfig(seed=3, start=1_767_225_600, days=10, p_blocks=40, x_blocks=10)
P_CHAIN = "11111111111111111111111111111111LpoYY"
# avalanchego utils/constants: network 5 is "fuji"; upgrade/upgrade.go: Fuji's dates (UTC).
FUJI_UPGRADES = {
    "apricotPhase1BlockTimestamp": (2021, 3, 26, 14),
    "apricotPhase2BlockTimestamp": (2021, 5, 5, 14),
    "apricotPhase3BlockTimestamp": (2021, 8, 16, 19),
    "apricotPhase4BlockTimestamp": (2021, 9, 16, 21),
    "apricotPhase5BlockTimestamp": (2021, 11, 24, 15),
    "apricotPhasePre6BlockTimestamp": (2022, 9, 6, 20),
    "apricotPhase6BlockTimestamp": (2022, 9, 6, 20),
    "apricotPhasePost6BlockTimestamp": (2022, 9, 7, 6),
    "banffBlockTimestamp": (2022, 10, 3, 14),
    "cortinaBlockTimestamp": (2023, 4, 6, 15),
    "durangoBlockTimestamp": (2024, 2, 13, 16),
    "etnaTimestamp": (2024, 11, 25, 16),
    "fortunaTimestamp": (2025, 3, 13, 15),
    "graniteTimestamp": (2025, 10, 29, 15),
}


def _evm_route(name: str, chain_id: int, alias: str) -> ChainRoute:
    """An EVM chain that answers eth_chainId and eth_blockNumber itself (no anvil needed)."""

    async def chain(params: Any) -> str:
        return hex(chain_id)

    async def head(params: Any) -> str:
        return "0x64"

    methods = {"eth_chainId": chain, "eth_blockNumber": head}
    if name == "C":
        methods |= coreth_methods(chain_id)
    return ChainRoute(name, chain_id, "http://127.0.0.1:9", (alias,), methods)


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, PrimaryNode]]:
    folder: Path = tmp_path_factory.mktemp("identity-node")
    sim_node = PrimaryNode(NodeOptions(CONFIG, data_dir=folder, live_interval=None))
    sim_node.start()
    routes = [_evm_route("C", 43113, cb58_encode(C_CHAIN_ID))]
    for spec in CONFIG.l1s:
        routes.append(
            _evm_route(spec.name, spec.chain_id, cb58_encode(sim_node.sim.chain_of[spec.name]))
        )
    extra = [*index_routes(sim_node.index_store), *node_routes(lambda: sim_node.sim, sim_node.lock)]
    server = FacadeServer(routes, port=0, extra_routes=extra)
    server.start()
    try:
        yield server.url, sim_node
    finally:
        server.stop()
        sim_node.stop()


def _call(url: str, method: str, params: Any = None) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {} if params is None else params}
    answer: dict[str, Any] = httpx.post(url, json=body, timeout=10).json()
    return answer


def _blockchains(url: str) -> list[dict[str, str]]:
    result: list[dict[str, str]] = _call(f"{url}/ext/bc/P", "platform.getBlockchains")["result"][
        "blockchains"
    ]
    return result


def test_info_api_names_the_network_and_chains_as_the_p_chain_does(
    node: tuple[str, PrimaryNode],
) -> None:
    url, _ = node
    info = f"{url}/ext/info"
    assert _call(info, "info.getNetworkID")["result"] == {"networkID": "5"}
    assert _call(info, "info.getNetworkName")["result"] == {"networkName": "fuji"}
    by_name = {c["name"]: c["id"] for c in _blockchains(url)}
    for alias, name in (("X", "X-Chain"), ("avm", "X-Chain"), ("C", "C-Chain"), ("evm", "C-Chain")):
        got = _call(info, "info.getBlockchainID", {"alias": alias})["result"]["blockchainID"]
        assert got == by_name[name]
    for alias in ("P", "platform", P_CHAIN):
        got = _call(info, "info.getBlockchainID", {"alias": alias})["result"]["blockchainID"]
        assert got == P_CHAIN
    for spec in CONFIG.l1s:  # an L1's own ID resolves to itself
        chain = by_name[spec.name]
        assert _call(info, "info.getBlockchainID", {"alias": chain})["result"] == {
            "blockchainID": chain
        }
    missing = _call(info, "info.getBlockchainID", {"alias": "nope"})["error"]
    assert (missing["code"], missing["message"]) == (-32000, "there is no ID with alias nope")
    assert _call(info, "info.isBootstrapped", {"chain": "X"})["result"] == {"isBootstrapped": True}
    nope = _call(info, "info.isBootstrapped", {"chain": "Z"})["error"]
    assert nope["message"] == "there is no chain with alias/ID 'Z'"
    node_id = _call(info, "info.getNodeID")["result"]
    assert node_id["nodeID"].startswith("NodeID-")
    assert len(bytes.fromhex(node_id["nodePOP"]["publicKey"][2:])) == 48
    assert _call(info, "info.getNodeVersion")["result"]["version"].startswith("avalanchego/")
    wrong = _call(info, "info.GetNetworkID")["error"]
    assert wrong["message"] == "method must start with a non-uppercase letter"


def test_c_chain_config_as_coreth(node: tuple[str, PrimaryNode]) -> None:
    url, _ = node
    config = _call(f"{url}/ext/bc/C/rpc", "eth_getChainConfig", [])["result"]
    assert config["chainId"] == 43113
    for key, date in FUJI_UPGRADES.items():
        assert config[key] == int(datetime(*date, tzinfo=UTC).timestamp()), key
    assert config["shanghaiTime"] == config["durangoBlockTimestamp"]
    assert config["cancunTime"] == config["etnaTimestamp"]
    keys = list(config)
    assert keys[-1] == "upgrades" and keys[:-1] == sorted(keys[:-1])
    bad = _call(f"{url}/ext/bc/C/rpc", "eth_getChainConfig", [1])["error"]
    assert bad["code"] == -32602


def test_identity_from_the_node(node: tuple[str, PrimaryNode]) -> None:
    url, sim_node = node
    network_id, found = asyncio.run(identity.from_node(url))
    assert network_id == 5
    chains = {c["id"]: c for c in _blockchains(url)}
    c_chain = found[43113]
    assert (c_chain.name, c_chain.subnet_id) == ("C-Chain", P_CHAIN)
    assert chains[c_chain.blockchain_id]["name"] == "C-Chain"
    for spec in CONFIG.l1s:
        ident = found[spec.chain_id]
        p_chain_record = chains[ident.blockchain_id]  # the P-chain's CreateChainTx
        assert ident.name == p_chain_record["name"] == spec.name
        assert ident.subnet_id == p_chain_record["subnetID"]
        assert ident.network_id == 5
        assert ident.blockchain_id == cb58_encode(sim_node.sim.chain_of[spec.name])


def test_gather_writes_and_conflicts_stop(node: tuple[str, PrimaryNode], engine: Any) -> None:
    url, _ = node
    rpc = [f"{url}/ext/bc/C/rpc", f"{url}/ext/bc/alpha/rpc"]
    found = asyncio.run(identity.gather(engine, rpc, url, {}))
    store_identity.write_identities(engine, found)
    with engine.connect() as conn:
        rows = {r.chain_id: r for r in list_chains(conn)}
        alpha = rows[99901]
        assert find_chain(conn, alpha.blockchain_id or "") == alpha  # by blockchain ID too
    assert rows[43113].name == "C-Chain" and rows[43113].network_id == 5
    assert (alpha.name, alpha.rpc_url, alpha.vm_name) == ("alpha", rpc[1], "EVM")
    # The file says alpha is another blockchain: the node contradicts it.
    wrong = {99901: ChainIdentity(99901, blockchain_id=rows[43113].blockchain_id)}
    with pytest.raises(identity.IdentityError, match="chain 99901: blockchain_id"):
        asyncio.run(identity.gather(engine, rpc, url, wrong))
    # Without the node, the store holds the truth the file contradicts.
    with pytest.raises(identity.IdentityError, match="the store says otherwise"):
        asyncio.run(identity.gather(engine, rpc[1:], None, wrong))


def test_index_stops_at_start_with_nothing_written(
    node: tuple[str, PrimaryNode], tmp_path: Path
) -> None:
    url, _ = node
    db = f"sqlite:///{tmp_path / 's.db'}"
    eng = make_engine(db)
    migrate(eng)
    store_identity.write_identities(eng, [ChainIdentity(99901, blockchain_id="2abc")])
    env = {**os.environ, "COLUMNS": "200"}
    base = [sys.executable, "-m", "avadata", "index", "--db", db, "--once"]
    typo = tmp_path / "chains.toml"
    typo.write_text("[[chains]]\nchain_id = 99901\ntoken_symbol = 'ALP'\n")
    cases = [
        (["--rpc", f"{url}/ext/bc/alpha/rpc", "--chains", str(typo)], "unknown key 'token_symbol'"),
        (["--rpc", f"{url}/ext/bc/alpha/rpc", "--node", url], "the store says otherwise"),
        (["--rpc", f"{url}/ext/bc/alpha/rpc", "--network", "devnet"], "--network"),
    ]
    for args, message in cases:
        done = subprocess.run(
            [*base, *args], capture_output=True, text=True, env=env, timeout=120, check=False
        )
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
    with eng.connect() as conn:
        (row,) = list_chains(conn)
        assert (row.chain_id, row.blockchain_id, row.name) == (99901, "2abc", None)
        assert store_identity.chain_statuses(conn)[0].head is None
    eng.dispose()


def test_the_devnets_chains_file_and_the_node_label_every_chain(
    node: tuple[str, PrimaryNode], db_url: str
) -> None:
    """What `avadata up` runs: the node labels every chain, the devnet's chains file adds the
    L1's own gas token; the API then shows each chain as the node names it."""
    from avadata.api.app import create_app
    from avadata.devnet import chains_file as devnet_chains
    from avadata.indexer.chains_file import parse
    from avadata.settings import Settings
    from tests.api.http import TestClient

    url, sim_node = node
    named = [("C", 43113), *((s.name, s.chain_id) for s in CONFIG.l1s)]
    given = parse(devnet_chains.text(named, sim_node))
    rpc = [f"{url}/ext/bc/{name}/rpc" for name, _ in named]
    eng = make_engine(db_url)
    store_identity.write_identities(eng, asyncio.run(identity.gather(eng, rpc, url, given)))
    eng.dispose()
    on_p_chain = {c["name"]: c for c in _blockchains(url)}
    settings = Settings(db_url=db_url, page_token_secret="test-secret-0123456789")
    with TestClient(create_app(settings)) as c:
        chains = {int(x["chainId"]): x for x in c.get("/v1/chains?network=fuji").json()["chains"]}
    assert sorted(chains) == [43113, 99901, 99902]
    assert chains[43113]["chainName"] == "C-Chain"
    assert chains[43113]["platformChainId"] == on_p_chain["C-Chain"]["id"]
    for spec in CONFIG.l1s:
        shown = chains[spec.chain_id]
        assert shown["chainName"] == spec.name
        assert shown["platformChainId"] == on_p_chain[spec.name]["id"]
        assert shown["subnetId"] == on_p_chain[spec.name]["subnetID"]
    assert chains[99901]["networkToken"]["symbol"] == "ALPHA"  # its own gas token
    assert chains[99902]["networkToken"]["symbol"] == "AVAX"
