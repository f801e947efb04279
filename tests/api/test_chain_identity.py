"""Chain identity in the API on both engines: `network=` filters and refuses an unknown
network naming it, an unknown chain by either ID is a 404, the Metrics API's aggregates
follow the stored networks, and an L1's own native token is its balance's token."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from avadata.api.app import create_app
from avadata.records.identity import ChainIdentity, NativeToken
from avadata.settings import Settings
from avadata.store.engine import make_engine
from avadata.store.identity import write_identities
from avadata.store.metrics.scope_rows import aggregate_sets
from avadata.store.queries.chains import list_chains
from tests.api.http import TestClient
from tests.store import conftest as store_engines

# The store's engine fixtures (SQLite and PostgreSQL), used here as in tests/store.
db_url = store_engines.db_url
engine = store_engines.engine
pg_cluster = store_engines.pg_cluster
pg_template = store_engines.pg_template
sqlite_template = store_engines.sqlite_template

L1_ID = "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU"


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    eng = make_engine(db_url)
    write_identities(
        eng,
        [
            ChainIdentity(43114, network_id=1, name="C-Chain"),
            ChainIdentity(
                99901,
                network_id=5,
                blockchain_id=L1_ID,
                name="alpha",
                token=NativeToken("Alpha Gas", "ALPHA", 18),
            ),
            ChainIdentity(77777, network_id=1337),
        ],
    )
    with eng.connect() as conn:
        sets = aggregate_sets(conn)
        assert len(list_chains(conn)) == 3
    # The Metrics API's aggregates follow the stored networks (network 1 is mainnet).
    assert sets == {"total": (43114, 77777, 99901), "mainnet": (43114,), "testnet": (77777, 99901)}
    eng.dispose()
    settings = Settings(db_url=db_url, page_token_secret="test-secret-0123456789")
    with TestClient(create_app(settings), raise_server_exceptions=False) as c:
        yield c


@pytest.mark.parametrize("path", ["/v1/chains", "/v2/chains"])
def test_unknown_network_is_a_400_naming_it(client: TestClient, path: str) -> None:
    r = client.get(path, params={"network": "devnet"})
    assert r.status_code == 400, r.text
    assert "network" in r.json()["message"]


UNKNOWN_BLOCKCHAIN = "2" + "Z" * 49


@pytest.mark.parametrize("key", ["99999", UNKNOWN_BLOCKCHAIN, "x"])
def test_unknown_chain_by_either_id_is_a_404(client: TestClient, key: str) -> None:
    for path in (f"/v1/chains/{key}", f"/v1/chains/{key}/blocks"):
        r = client.get(path)
        assert r.status_code == 404, r.text
        assert r.json()["message"].startswith("chainId")


def test_blockchain_id_on_evm_routes(client: TestClient) -> None:
    by_id = client.get("/v1/chains/99901").json()
    assert client.get(f"/v1/chains/{L1_ID}").json() == by_id
    assert by_id["networkToken"]["symbol"] == "ALPHA"
    blocks = client.get(f"/v1/chains/{L1_ID}/blocks")
    assert blocks.status_code == 200 and blocks.json()["blocks"] == []
    holder = "0x" + "11" * 20
    native = client.get(f"/v1/chains/{L1_ID}/addresses/{holder}/balances:listErc20")
    assert native.status_code == 200, native.text
    assert native.json()["nativeTokenBalance"]["symbol"] == "ALPHA"  # its own, not AVAX


def test_network_filters(client: TestClient) -> None:
    def ids(path: str, network: str) -> list[str]:
        body = client.get(path, params={"network": network}).json()
        return [str(c.get("chainId", c.get("evmChainId"))) for c in body["chains"]]

    assert ids("/v1/chains", "mainnet") == ["43114"]
    assert ids("/v1/chains", "fuji") == ["99901"]
    assert ids("/v1/chains", "testnet") == ["77777", "99901"]
    assert ids("/v2/chains", "testnet") == ["77777", "99901"]
    assert ids("/v2/chains", "fuji") == ["99901"]


@pytest.mark.parametrize(
    ("network", "hrp"),
    [("mainnet", "avax"), ("fuji", "fuji"), ("local", "local"), ("network-7", "custom")],
)
def test_addresses_take_the_networks_own_hrp(network: str, hrp: str) -> None:
    """Each network's addresses carry its HRP (avalanchego's GetHRP); another's is a 400."""
    from avadata.api.errors import ApiError
    from avadata.api.primary import params
    from avadata.decode.codec.ids import bech32_address
    from avadata.networks import parse

    net = params.network(network, parse(network).network_id)
    owner = bytes(range(20))
    mine = bech32_address(owner, hrp)
    assert params.addresses(net, "P", "P-" + mine) == [mine]
    other = bech32_address(owner, "fuji" if hrp != "fuji" else "avax")
    with pytest.raises(ApiError, match="addresses"):
        params.addresses(net, "P", other)
