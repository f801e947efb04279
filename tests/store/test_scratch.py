"""A throwaway store in a schema of a PostgreSQL database (store/scratch.py, for `avadata bench
ingest --db postgresql://...`): the whole store, partitions included, lands in that schema,
the database's own tables are untouched, and the schema is gone afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text

from avadata.store import write_evm_batch
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.scratch import scratch_schema
from tests.store import builders as B
from tests.support import pg_cluster as pgc

pytestmark = pytest.mark.postgres


@pytest.fixture
def plain_db(pg_cluster: pgc.PgCluster) -> Iterator[str]:
    name = pg_cluster.create_database()
    try:
        yield pg_cluster.url(name)
    finally:
        pg_cluster.drop_database(name)


def _tables_by_schema(engine: Engine) -> dict[str, set[str]]:
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN "
                 "('pg_catalog', 'information_schema')")
        ).all()  # fmt: skip
    out: dict[str, set[str]] = {}
    for schema, table in rows:
        out.setdefault(schema, set()).add(table)
    return out


def test_a_scratch_store_lives_and_dies_in_its_own_schema(plain_db: str) -> None:
    admin = make_engine(plain_db)
    with admin.begin() as conn:
        conn.execute(text("CREATE TABLE keep_me (x int)"))
        conn.execute(text("CREATE SCHEMA bench_left_over"))  # an interrupted run's
        conn.execute(text("CREATE TABLE bench_left_over.old (x int)"))
    try:
        with scratch_schema(plain_db, "bench_left_over") as url:
            assert "bench_left_over" not in _tables_by_schema(admin)  # recreated empty
            store = make_engine(url)
            try:
                migrate(store)
                write_evm_batch(store, B.rich_batch(43113, 0, 3))
                with store.connect() as conn:
                    assert conn.execute(text("SELECT count(*) FROM evm_txs")).scalar_one() > 0
            finally:
                store.dispose()
            tables = _tables_by_schema(admin)
            assert tables["public"] == {"keep_me"}
            assert {"evm_txs", "evm_txs_c43113", "evm_txs_c43113_b0", "alembic_version"} <= (
                tables["bench_left_over"]
            )
        assert _tables_by_schema(admin) == {"public": {"keep_me"}}
    finally:
        admin.dispose()


def test_a_schema_name_is_checked_before_it_reaches_sql(plain_db: str) -> None:
    with pytest.raises(ValueError, match="schema name"), scratch_schema(plain_db, 'x"; DROP'):
        pass


def test_a_database_the_schema_cannot_be_made_in_is_one_line(plain_db: str) -> None:
    from avadata.errors import StoreError
    from avadata.store.scratch import check_scratch

    check_scratch(plain_db)  # a usable database: nothing raised, nothing left
    with pytest.raises(StoreError, match="not a PostgreSQL URL") as bad:
        check_scratch("mysql://x/y")
    assert bad.value.exit_code == 2
    missing = plain_db.rsplit("/", 1)[0] + "/no_such_db"
    with pytest.raises(StoreError, match="no_such_db.*does not exist"):
        check_scratch(missing)


def test_the_urls_own_server_options_stay_in_force(plain_db: str) -> None:
    with scratch_schema(plain_db + "?options=-cstatement_timeout%3D4321", "bench_opts") as url:
        store = make_engine(url)
        try:
            with store.connect() as conn:
                timeout = conn.exec_driver_sql("SHOW statement_timeout").scalar_one()
                schema = conn.exec_driver_sql("SELECT current_schema()").scalar_one()
        finally:
            store.dispose()
    assert (timeout, schema) == ("4321ms", "bench_opts")
