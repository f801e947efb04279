"""One migration history, applied to an empty database, gives exactly schema.py on both engines;
a new store, created from schema.py without the history, is the same database."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from avadata.store.engine import make_engine
from avadata.store.migrate import HEAD, heads, migrate, upgrade_through_history
from avadata.store.partitions import PARTITIONED
from avadata.store.schema import metadata
from tests.store.conftest import ENGINES
from tests.support import pg_cluster as pgc


def test_one_head_and_the_code_knows_it():
    # migrate.HEAD lets an up-to-date store skip Alembic: a new revision must move it.
    assert heads() == [HEAD], "a migration was added: set avadata.store.migrate.HEAD to it"


def _through_history(url: str) -> None:
    """Every revision of the history, in order, as Alembic runs them (no shortcut)."""
    eng = make_engine(url)
    try:
        with eng.begin() as conn:
            upgrade_through_history(conn)
    finally:
        eng.dispose()


def _options(index: Any) -> str:
    """An index's dialect options as text (a partial index's condition is a clause object)."""
    return repr(sorted((k, str(v)) for k, v in (index.get("dialect_options") or {}).items()))


def _partition_keys(conn: Any) -> dict[str, str]:
    """{table: its partition key, as PostgreSQL states it} of the partitioned tables that are
    not partitions themselves (the store's parents); none on SQLite."""
    if conn.dialect.name == "sqlite":
        return {}
    rows = conn.exec_driver_sql(
        "SELECT relname, pg_get_partkeydef(oid) FROM pg_class "
        "WHERE relkind = 'p' AND NOT relispartition"
    )
    return dict(rows.all())


def _schema(url: str) -> dict[str, Any]:
    """Every table's columns (in order), keys, indexes, constraints and partition key, as the
    engine reports them (partitions are left out: a store's own rows decide them)."""
    eng = make_engine(url)
    try:
        with eng.connect() as conn:
            insp = inspect(conn)
            keys = _partition_keys(conn)
            out: dict[str, Any] = {}
            for t in sorted(set(insp.get_table_names()) - _partitions(conn)):
                out[t] = {
                    "partition_by": keys.get(t),
                    "columns": [
                        (c["name"], str(c["type"]), c["nullable"], str(c.get("default")))
                        for c in insp.get_columns(t)
                    ],
                    "pk": insp.get_pk_constraint(t),
                    "indexes": sorted(
                        (
                            i["name"],
                            tuple(i["column_names"]),
                            i["unique"],
                            _options(i),
                        )
                        for i in insp.get_indexes(t)
                    ),
                    "unique": sorted(repr(u) for u in insp.get_unique_constraints(t)),
                    "foreign": sorted(repr(f) for f in insp.get_foreign_keys(t)),
                    "checks": sorted(repr(c) for c in insp.get_check_constraints(t)),
                }
            return out
    finally:
        eng.dispose()


def _partitions(conn: Any) -> set[str]:
    if conn.dialect.name == "sqlite":
        return set()
    rows = conn.exec_driver_sql("SELECT relname FROM pg_class WHERE relispartition")
    return set(rows.scalars())


@pytest.fixture(params=ENGINES)
def two_empty_db_urls(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[str]]:
    if request.param == "sqlite":
        yield [f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"]
        return
    cluster: pgc.PgCluster = request.getfixturevalue("pg_cluster")
    names = [cluster.create_database(), cluster.create_database()]
    try:
        yield [cluster.url(n) for n in names]
    finally:
        for n in names:
            cluster.drop_database(n)


def test_a_new_store_is_the_database_the_history_builds(two_empty_db_urls):
    new, history = two_empty_db_urls
    eng = make_engine(new)
    try:
        migrate(eng)
    finally:
        eng.dispose()
    _through_history(history)
    built = _schema(new)
    assert set(built) == set(metadata.tables) | {"alembic_version"}
    assert built == _schema(history)
    partitioned = {t for t, v in built.items() if v["partition_by"]}
    assert partitioned == (set(PARTITIONED) if "postgresql" in new else set())


def test_the_partitioning_revision_converts_a_store_and_back(two_empty_db_urls, monkeypatch):
    """A store written before revision 0024 (two chains) is converted by it: the same rows,
    in a leaf per block range of each chain, and the database a new store is; its downgrade
    gives the whole tables back with the same rows."""
    from alembic import command

    from avadata.store import partitions, write_evm_batch
    from avadata.store.migrate import alembic_config
    from tests.store import builders as B

    old, new = two_empty_db_urls
    eng = make_engine(old)
    with eng.begin() as conn:
        upgrade_through_history(conn, "20261125_0021")
    with monkeypatch.context() as m:
        m.setattr(partitions, "ensure", lambda *a, **k: None)  # what the writer did then
        for chain, first in ((43113, 0), (43113, 3), (7, 5)):
            write_evm_batch(eng, B.rich_batch(chain, first, first + 2))

    def rows() -> dict[str, list[Any]]:
        with eng.connect() as conn:
            return {
                t: sorted(map(tuple, conn.exec_driver_sql(f"SELECT * FROM {t}").all()))
                for t in PARTITIONED
            }

    before = rows()
    assert all(before.values())
    monkeypatch.setenv(partitions.WIDTH_ENV, "4")
    migrate(eng)
    assert rows() == before
    fresh = make_engine(new)
    migrate(fresh)
    fresh.dispose()
    assert _schema(old) == _schema(new)
    if "postgresql" in old:
        with eng.connect() as conn:
            got = (
                partitions._leaves(conn, 43113, ("evm_txs",)),
                partitions._leaves(conn, 7, ("evm_txs",)),
            )
        assert [sorted(g["evm_txs"]) for g in got] == [[(0, 4), (4, 8)], [(4, 8)]]
    with eng.begin() as conn:
        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "20261125_0021")
    assert rows() == before
    with eng.connect() as conn:
        assert _partition_keys(conn) == {} and _partitions(conn) == set()
    eng.dispose()


def test_a_new_store_is_created_without_alembic(tmp_path: Path) -> None:
    # The shortcut is the point: Alembic's import and history walk were ~0.3 CPU-s of every
    # writer's start. The probe sees Alembic when the history does run (an older store).
    code = (
        "import sys\n"
        "from avadata.store.engine import make_engine\n"
        "from avadata.store.migrate import migrate\n"
        "eng = make_engine(sys.argv[1])\n"
        "migrate(eng, sys.argv[2])\n"
        "print('alembic' in sys.modules)\n"
        "migrate(eng)\n"
        "print('alembic' in sys.modules)\n"
    )

    def probe(name: str, first: str) -> list[str]:
        url = f"sqlite:///{tmp_path / name}"
        out = subprocess.run([sys.executable, "-c", code, url, first], capture_output=True)
        assert out.returncode == 0, out.stderr.decode()
        return out.stdout.decode().split()

    assert probe("new.db", "head") == ["False", "False"]
    # Created at the head's parent through the history, then upgraded: Alembic both times.
    assert probe("old.db", "20261124_0008") == ["True", "True"]


def _built_here(dialect_name: str) -> Any:
    """Alembic's include_object: leave out schema.py's indexes declared for another engine
    only (`Index.ddl_if(dialect=...)`, which create_all honours and autogenerate does not)."""

    def include(obj: Any, _name: Any, type_: str, reflected: bool, _other: Any) -> bool:
        cond = getattr(obj, "_ddl_if", None)
        return reflected or type_ != "index" or cond is None or cond.dialect in (None, dialect_name)

    return include


def test_upgrade_empty_database(empty_db_url):
    _through_history(empty_db_url)
    eng = make_engine(empty_db_url)
    try:
        migrate(eng)  # idempotent: the store is at the head, nothing to do
        with eng.connect() as conn:
            names = set(inspect(conn).get_table_names())
            assert set(metadata.tables) <= names
            opts = {"compare_type": True, "include_object": _built_here(conn.dialect.name)}
            ctx = MigrationContext.configure(conn, opts=opts)
            assert ctx.get_current_revision() == heads()[0]
            # The migrated database and schema.py agree on every table, column and index.
            diffs = compare_metadata(ctx, metadata)
            assert diffs == []
    finally:
        eng.dispose()


def test_concurrent_migrations_serialise(empty_db_url):
    """Several processes may start at once (indexer workers, API): all upgrades succeed.

    Processes, not threads: Alembic keeps its migration context in module globals, so threads of
    one process would share it, which no deployment does.
    """
    code = (
        "import sys\n"
        "from avadata.store.engine import make_engine\n"
        "from avadata.store.migrate import migrate\n"
        "migrate(make_engine(sys.argv[1]))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, empty_db_url], stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in procs if p.wait(timeout=120) != 0]
    assert errors == []
    eng = make_engine(empty_db_url)
    try:
        with eng.connect() as conn:
            ctx = MigrationContext.configure(conn)
            assert ctx.get_current_revision() == heads()[0]
    finally:
        eng.dispose()


def test_sqlite_uint256_text_becomes_integers_and_back(tmp_path: Path) -> None:
    """Revision 0011 on a store written before it: every uint256 below 2**63 becomes an
    INTEGER, larger ones stay padded text, the values and their order are those written; a
    downgrade restores the stored text byte for byte."""
    from sqlalchemy import select, text

    from avadata.store.schema import native_balances

    url = f"sqlite:///{tmp_path / 'old.db'}"
    eng = make_engine(url)
    values = [0, 7, 25 * 10**9, 2**63 - 1, 2**63, 10**30, 2**256 - 1]
    # The format revisions before 0011 wrote: 78 zero-padded digits, whatever the value.
    old = [f"{v:078d}" for v in values]
    with eng.begin() as conn:
        upgrade_through_history(conn, "20261125_0010")
        conn.execute(
            text("INSERT INTO native_balances VALUES (1, :a, :n, :v)"),
            [{"a": f"0x{i:040x}", "n": i, "v": v} for i, v in enumerate(old)],
        )
    migrate(eng)
    c = native_balances.c
    with eng.connect() as conn:
        back = conn.execute(select(c.balance).order_by(c.balance)).scalars().all()
        raw = conn.execute(
            text("SELECT typeof(balance) FROM native_balances ORDER BY block_number")
        )
        kinds = raw.scalars().all()
        ranged = conn.execute(select(c.block_number).where(c.balance >= 2**63 - 1)).scalars()
        above = sorted(ranged.all())
    assert back == values  # sorted by the stored column: numeric order
    assert kinds == ["integer"] * 4 + ["text"] * 3
    assert above == [3, 4, 5, 6]
    with eng.begin() as conn:
        from alembic import command

        from avadata.store.migrate import alembic_config

        cfg = alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "20261125_0010")
    with eng.connect() as conn:
        raw = conn.execute(text("SELECT balance FROM native_balances ORDER BY block_number"))
        assert raw.scalars().all() == old
    eng.dispose()
