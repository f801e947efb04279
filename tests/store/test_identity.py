"""Chain identity in the store, on both engines: an older store upgrades and is re-labelled
without re-indexing; identities are written, merged and checked for conflicts."""

from __future__ import annotations

from sqlalchemy import select

from avadata.records.identity import ChainIdentity, NativeToken
from avadata.store import identity as store_identity
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.queries.chains import find_chain
from avadata.store.schema import chains
from avadata.store.writer import mark_chain

FUJI_C = "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp"


def test_an_older_store_is_relabelled_by_the_upgrade(empty_db_url: str) -> None:
    eng = make_engine(empty_db_url)
    try:
        migrate(eng, "20261125_0011")
        with eng.begin() as conn:
            for chain_id, network in ((43113, "testnet"), (777, "mainnet"), (99901, None)):
                conn.exec_driver_sql(
                    "INSERT INTO chains (chain_id, network, has_traces) VALUES (?, ?, ?)"
                    if eng.dialect.name == "sqlite"
                    else "INSERT INTO chains (chain_id, network, has_traces) VALUES (%s, %s, %s)",
                    (chain_id, network, True),
                )
        migrate(eng)
        with eng.connect() as conn:
            rows = {r.chain_id: r for r in conn.execute(select(chains))}
        assert (rows[43113].network_id, rows[43113].blockchain_id) == (5, FUJI_C)
        assert rows[43113].name == "C-Chain"
        assert rows[777].network_id == 1
        assert rows[99901].network_id is None and rows[99901].blockchain_id is None
    finally:
        eng.dispose()


def test_identity_is_written_and_relabels(engine) -> None:
    mark_chain(engine, 99901, rpc_url="http://x")
    ident = ChainIdentity(
        99901,
        network_id=12345,
        blockchain_id="2X",
        subnet_id="3S",
        name="alpha",
        vm_name="subnet-evm",
        token=NativeToken("Alpha", "ALP", 18, None),
        explorer_url="https://explorer",
    )
    store_identity.write_identities(engine, [ident])
    with engine.connect() as conn:
        row = find_chain(conn, "2X")
        assert row is not None and row.chain_id == 99901
        assert (row.network, row.network_id, row.name, row.token_symbol) == (
            "testnet",
            12345,
            "alpha",
            "ALP",
        )
        assert row.rpc_url == "http://x"  # not said: kept
        # Another blockchain ID for the same chain ID, or the same blockchain ID for another
        # chain, or another network: three conflicts.
        found = store_identity.conflicts(
            conn,
            [
                ChainIdentity(99901, blockchain_id="2Y", network_id=1),
                ChainIdentity(5, blockchain_id="2X"),
                ChainIdentity(99901, blockchain_id="2X", network_id=12345),
            ],
        )
        assert len(found) == 3, found
        assert "chain 99901 is blockchain 2X in the store, not 2Y" in found
        statuses = store_identity.chain_statuses(conn)
        assert [(s.chain_id, s.network_id, s.head) for s in statuses] == [(99901, 12345, None)]


def test_the_primary_network_is_recorded(engine) -> None:
    with engine.connect() as conn:
        assert store_identity.primary_network(conn) is None
    store_identity.record_primary_network(engine, 5)
    store_identity.record_primary_network(engine, 1)
    with engine.connect() as conn:
        assert store_identity.primary_network(conn) == 1


def test_merge_keeps_what_is_said() -> None:
    a = ChainIdentity(1, name="a", token=NativeToken(symbol="X"))
    b = ChainIdentity(1, name="b", network_id=5, token=NativeToken(name="N", symbol="Y"))
    m = a.merged(b)
    assert (m.name, m.network_id, m.token.name, m.token.symbol) == ("a", 5, "N", "X")


def test_the_chains_verb_lists_what_the_store_holds(db_url: str) -> None:
    import json

    from typer.testing import CliRunner

    from avadata.cli.main import app

    eng = make_engine(db_url)
    migrate(eng)
    store_identity.write_identities(
        eng,
        [
            ChainIdentity(43113, network_id=5, blockchain_id=FUJI_C, name="C-Chain"),
            ChainIdentity(99901, network_id=5, name="alpha", token=NativeToken(symbol="ALPHA")),
        ],
    )
    eng.dispose()
    result = CliRunner().invoke(app, ["chains", "--db", db_url, "--json", "--no-lag"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert [(r["chainId"], r["network"], r["name"], r["nativeToken"]) for r in rows] == [
        (43113, "fuji", "C-Chain", None),
        (99901, "fuji", "alpha", "ALPHA"),
    ]
    assert rows[0]["blockchainId"] == FUJI_C and rows[0]["head"] is None
