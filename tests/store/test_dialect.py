"""Each fenced function of dialect.py, on both engines."""

from __future__ import annotations

import sqlite3

import pytest
from sqlalchemy import (
    Boolean,
    Column,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    bindparam,
    event,
    func,
    insert,
    literal,
    select,
    text,
    tuple_,
)
from sqlalchemy.exc import DBAPIError, StatementError

from avadata.store import dialect, make_engine, make_reader_engine
from avadata.store.coltypes import I256, U256
from avadata.store.migrate import migrate
from avadata.store.schema import chains


def _kv(engine):
    md = MetaData()
    t = Table(
        "kv",
        md,
        Column("k", Integer, primary_key=True),
        Column("v", String(20)),
        Column("version", Integer, nullable=False),
    )
    md.create_all(engine)
    return t


def _dump(engine, t):
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(select(t).order_by(t.c.k))]


def test_insert_or_ignore_keeps_the_first_row(engine):
    t = _kv(engine)
    with engine.begin() as conn:
        conn.execute(dialect.insert_or_ignore(conn, t), [{"k": 1, "v": "a", "version": 1}])
        # executemany with a mix of new and existing keys: only the new one lands.
        conn.execute(
            dialect.insert_or_ignore(conn, t),
            [{"k": 1, "v": "b", "version": 2}, {"k": 2, "v": "c", "version": 1}],
        )
    assert _dump(engine, t) == [(1, "a", 1), (2, "c", 1)]


def test_upsert_updates_and_guards(engine):
    t = _kv(engine)

    def up(conn, rows):
        stmt = dialect.upsert(
            conn,
            t,
            keys=("k",),
            set_=lambda ex: {"v": ex.v, "version": ex.version},
            where=lambda ex: ex.version > t.c.version,
        )
        conn.execute(stmt, rows)

    with engine.begin() as conn:
        up(conn, [{"k": 1, "v": "a", "version": 5}])
        up(conn, [{"k": 1, "v": "older", "version": 4}, {"k": 2, "v": "new", "version": 1}])
        up(conn, [{"k": 1, "v": "newer", "version": 6}])
    assert _dump(engine, t) == [(1, "newer", 6), (2, "new", 1)]


def test_upsert_without_guard_overwrites(engine):
    t = _kv(engine)
    with engine.begin() as conn:
        for v in ("a", "b"):
            stmt = dialect.upsert(conn, t, keys=("k",), set_=lambda ex: {"v": ex.v})
            conn.execute(stmt, {"k": 1, "v": v, "version": 1})
    assert _dump(engine, t) == [(1, "b", 1)]


def test_migration_lock_runs_inside_a_transaction(engine):
    with engine.begin() as conn:
        dialect.migration_lock(conn)
        assert conn.execute(text("SELECT 1")).scalar_one() == 1


def test_reader_engine_refuses_writes(engine, db_url):
    reader = make_reader_engine(db_url)
    try:
        with reader.connect() as conn:
            assert conn.execute(select(chains.c.chain_id)).all() == []
        with pytest.raises(DBAPIError), reader.begin() as conn:
            conn.execute(chains.insert().values(chain_id=1, has_traces=True))
    finally:
        reader.dispose()


def test_sqlite_writer_pragmas(tmp_path):
    eng = make_engine(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        with eng.connect() as conn:
            got = {
                name: conn.exec_driver_sql(f"PRAGMA {name}").scalar_one()
                for name in (
                    "journal_mode",
                    "synchronous",
                    "busy_timeout",
                    "foreign_keys",
                    "page_size",
                    "journal_size_limit",
                )
            }
    finally:
        eng.dispose()
    # synchronous: 1 is NORMAL.
    assert got == {
        "journal_mode": "wal",
        "synchronous": 1,
        "busy_timeout": 10000,
        "foreign_keys": 1,
        "page_size": 16384,
        "journal_size_limit": 64 * 1024 * 1024,
    }
    # What the file's header says, read without our engine.
    with (tmp_path / "p.db").open("rb") as f:
        assert int.from_bytes(f.read(18)[16:18], "big") == 16384


def test_sqlite_store_made_with_other_pages_keeps_them_and_migrates(tmp_path):
    path = tmp_path / "old.db"
    plain = sqlite3.connect(path)
    plain.execute("CREATE TABLE older (x INTEGER)")  # a file with the default 4 KiB pages
    plain.close()
    eng = make_engine(f"sqlite:///{path}")
    try:
        migrate(eng)
        with eng.begin() as conn:
            conn.execute(chains.insert().values(chain_id=1, has_traces=True))
        with eng.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA page_size").scalar_one() == 4096
            assert conn.execute(select(chains.c.chain_id)).scalars().all() == [1]
    finally:
        eng.dispose()


def test_sqlite_writer_takes_the_write_lock_at_begin(tmp_path):
    path = tmp_path / "lock.db"
    eng = make_engine(f"sqlite:///{path}")
    try:
        with eng.begin() as conn:
            conn.execute(text("SELECT 1"))  # only a read, yet the write lock is held
            other = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            finally:
                other.close()
    finally:
        eng.dispose()


@pytest.mark.parametrize(
    "url,driver",
    [
        ("postgresql://u@h:5432/db", "postgresql+psycopg"),
        ("postgres://u@h/db", "postgresql+psycopg"),
        ("sqlite:///x.db", "sqlite"),
    ],
)
def test_normalize_url(url, driver):
    assert dialect.normalize_url(url).drivername == driver


def test_normalize_url_read_only_sqlite():
    u = dialect.normalize_url("sqlite:////tmp/x.db", read_only=True)
    assert u.database == "file:/tmp/x.db" and u.query["mode"] == "ro"
    with pytest.raises(ValueError):
        dialect.normalize_url("sqlite://", read_only=True)
    with pytest.raises(ValueError):
        dialect.normalize_url("mysql://u@h/db")


def test_is_sqlite_url():
    assert dialect.is_sqlite_url("sqlite:///a.db")
    assert not dialect.is_sqlite_url("postgresql://u@h/db")


def _ledger(engine):
    md = MetaData()
    t = Table(
        "ledger",
        md,
        Column("chain_id", Integer, nullable=False),
        Column("token", String(42), nullable=False),
        Column("token_id", U256(), nullable=False),
        Column("block_number", Integer, nullable=False),
        Column("balance", I256(), nullable=False),
        Column("note", String(10), nullable=False, server_default="dflt"),
        PrimaryKeyConstraint("chain_id", "token", "token_id", "block_number"),
    )
    md.create_all(engine)
    return t


def test_bulk_insert_ignore_encodes_and_skips_existing_keys(engine):
    t = _ledger(engine)
    cols = ("chain_id", "token", "token_id", "block_number", "balance")
    rows = [(1, "0xa", 2**256 - 1, 5, -(2**255)), (1, "0xa", 0, 5, 2**255), (1, "0xb", 7, 1, 0)]
    with engine.begin() as conn:
        dialect.bulk_insert_ignore(conn, t, cols, rows)
        # Twice in one transaction, with one new row and one clash: the first value stays.
        dialect.bulk_insert_ignore(conn, t, cols, [(1, "0xa", 0, 5, 1), (2, "0xa", 0, 5, 3)])
        dialect.bulk_insert_ignore(conn, t, cols, [])
    got = set()
    with engine.connect() as conn:
        for r in conn.execute(select(t)):
            got.add(tuple(r))
    assert got == {
        (1, "0xa", 2**256 - 1, 5, -(2**255), "dflt"),
        (1, "0xa", 0, 5, 2**255, "dflt"),
        (1, "0xb", 7, 1, 0, "dflt"),
        (2, "0xa", 0, 5, 3, "dflt"),
    }


@pytest.mark.parametrize("large_every", [1, 3, 40, 0])
def test_bulk_insert_ignore_equals_sqlalchemys_own_insert(engine, large_every):
    """Rows whose U256 values mostly fit 64 bits (a few encoded, the rest bound as they are),
    mostly do not, or all do: read back as SQLAlchemy's own insert (per-value encoders) stores
    them, next to a Boolean column."""
    md = MetaData()
    cols = ("k", "amount", "flag")

    def table(name: str) -> Table:
        return Table(
            name,
            md,
            Column("k", Integer, primary_key=True),
            Column("amount", U256()),
            Column("flag", Boolean, nullable=False),
        )

    ours, theirs = table("t_bulk"), table("t_core")
    md.create_all(engine)

    def amount(i: int) -> int | None:
        if i % 7 == 0:
            return None
        return 2**63 + i if large_every and i % large_every == 0 else i

    rows = [(i, amount(i), i % 2 == 0) for i in range(200)]
    with engine.begin() as conn:
        dialect.bulk_insert_ignore(conn, ours, cols, rows)
        conn.execute(insert(theirs), [dict(zip(cols, r, strict=True)) for r in rows])
    with engine.connect() as conn:
        got = [tuple(r) for r in conn.execute(select(ours).order_by(ours.c.k))]
        want = [tuple(r) for r in conn.execute(select(theirs).order_by(theirs.c.k))]
    assert got == want == rows


def test_bulk_insert_ignore_rolls_back_with_the_transaction(engine):
    t = _ledger(engine)
    cols = ("chain_id", "token", "token_id", "block_number", "balance")
    with pytest.raises(RuntimeError), engine.begin() as conn:
        dialect.bulk_insert_ignore(conn, t, cols, [(1, "0xa", 1, 1, 1)])
        raise RuntimeError
    with engine.connect() as conn:
        assert conn.execute(select(t)).all() == []


def test_latest_before_seeks_the_last_row_under_the_block(engine):
    t = _ledger(engine)
    cols = ("chain_id", "token", "token_id", "block_number", "balance")
    history = [(1, "0xa", 2**256 - 1, n, -n) for n in (2, 5, 9)] + [(1, "0xb", 0, 3, 30)]
    history.append((2, "0xa", 2**256 - 1, 1, 999))  # another chain: never seen
    with engine.begin() as conn:
        dialect.bulk_insert_ignore(conn, t, cols, history)
        keys = [("0xa", 2**256 - 1), ("0xb", 0), ("0xc", 1)] * 400  # more than one chunk
        got = dialect.latest_before(conn, t, ("token", "token_id"), "balance", 1, 9, keys)
        assert got == {("0xa", 2**256 - 1): -5, ("0xb", 0): 30}
        assert dialect.latest_before(conn, t, ("token", "token_id"), "balance", 1, 2, keys) == {}
        assert dialect.latest_before(conn, t, ("token", "token_id"), "balance", 1, 10, []) == {}


def _read_cases(t):
    """Statements of the shapes the API prepares: typed and untyped parameters, U256/I256 both
    ways, a Boolean, row-value keyset bounds, internal literals (LIMIT/OFFSET, literal()), a
    scalar subquery, and an expanding IN (which keeps SQLAlchemy's path)."""
    c = t.c
    keyset = tuple_(c.block_number, c.token_id) < tuple_(
        bindparam("k0", type_=c.block_number.type), bindparam("k1", type_=c.token_id.type)
    )
    latest = (
        select(func.max(c.block_number))
        .where(c.chain_id == bindparam("chain"), c.token == c.token)
        .scalar_subquery()
    )
    return [
        (
            select(t)
            .where(c.chain_id == bindparam("chain"), keyset)
            .order_by(c.block_number.desc(), c.token_id.desc())
            .limit(bindparam("limit")),
            {"chain": 1, "k0": 9, "k1": 2**256 - 1, "limit": 3},
        ),
        (
            select(c.token, (c.balance > 0).label("positive"), literal(7).label("seven"))
            .where(c.balance >= bindparam("least", type_=c.balance.type))
            .order_by(c.token, c.block_number)
            .limit(2)
            .offset(1),
            {"least": -(2**255)},
        ),
        (select(latest.label("latest"), c.note).where(c.chain_id == 1).limit(1), {"chain": 1}),
        (
            select(c.token, c.balance).where(c.token.in_(bindparam("tokens", expanding=True))),
            {"tokens": ["0xa", "0xb"]},
        ),
        (select(c.token).where(c.chain_id == bindparam("chain")), {"chain": 3}),
    ]


def test_read_rows_reads_what_execute_reads(engine):
    t = _ledger(engine)
    cols = ("chain_id", "token", "token_id", "block_number", "balance")
    rows = [(1, "0xa", 2**256 - 1, n, n - 6) for n in (2, 5, 9)]
    rows += [(1, "0xb", 0, 3, 2**255), (1, "0xb", 2**200, 9, -(2**255)), (2, "0xa", 1, 1, 0)]
    with engine.begin() as conn:
        dialect.bulk_insert_ignore(conn, t, cols, rows)
    with engine.connect() as conn:
        # Every case but the expanding IN runs prepared, so this compares the two paths.
        cases = _read_cases(t)
        assert [dialect._prepare(conn.dialect, s) is not None for s, _ in cases] == [
            True,
            True,
            True,
            False,
            True,
        ]
        for stmt, params in _read_cases(t):
            expected = conn.execute(stmt, params)
            keys, got = dialect.read_rows(conn, stmt, params)
            assert keys == tuple(expected.keys())
            assert [tuple(r) for r in got] == [tuple(r) for r in expected], str(stmt)
            # A second run of the same statement object (prepared once) reads the same.
            assert [tuple(r) for r in dialect.read_rows(conn, stmt, params)[1]] == [
                tuple(r) for r in got
            ]
        # A missing parameter is an error on both paths (SQLAlchemy's StatementError, or the
        # prepared path's KeyError).
        with pytest.raises((KeyError, StatementError)):
            dialect.read_rows(conn, _read_cases(t)[0][0], {"chain": 1})


def test_a_reader_reads_through_its_connection_and_one_cursor(db_url, engine):
    """The API's reads on a reader engine read what execute() reads; on PostgreSQL
    (autocommit) they open no SQLAlchemy transaction and reuse one psycopg cursor per
    connection, and the server sees each statement in a transaction of its own."""
    t = _ledger(engine)
    with engine.begin() as conn:
        dialect.bulk_insert_ignore(
            conn,
            t,
            ("chain_id", "token", "token_id", "block_number", "balance"),
            [(1, "0xa", 1, 2, 3)],
        )
    reader = make_reader_engine(db_url)
    try:
        with reader.connect() as conn:
            for stmt, params in _read_cases(t):
                expected = [tuple(r) for r in conn.execute(stmt, params)]
                conn.rollback()
                for _ in range(2):
                    assert [tuple(r) for r in dialect.read_rows(conn, stmt, params)[1]] == expected
            if reader.dialect.name == "postgresql":
                assert not conn.in_transaction()
                assert not conn.connection.driver_connection.info.transaction_status
                cursor = conn.connection.info[dialect._CURSOR]
                dialect.read_rows(conn, _read_cases(t)[0][0], _read_cases(t)[0][1])
                assert conn.connection.info[dialect._CURSOR] is cursor
    finally:
        reader.dispose()


def test_read_rows_reads_one_snapshot_per_connection_use(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    writer = make_engine(url)
    migrate(writer)
    reader = make_reader_engine(url)
    stmt = select(func.count()).select_from(chains).where(chains.c.chain_id > bindparam("low"))
    try:
        with reader.connect() as conn:
            assert dialect.read_rows(conn, stmt, {"low": 0})[1] == [(0,)]
            assert conn.in_transaction()
            with writer.begin() as w:
                w.execute(chains.insert().values(chain_id=1, name="c", blockchain_id="b"))
            # Still the snapshot of the first read, as with conn.execute().
            assert dialect.read_rows(conn, stmt, {"low": 0})[1] == [(0,)]
        with reader.connect() as conn:
            assert dialect.read_rows(conn, stmt, {"low": 0})[1] == [(1,)]
    finally:
        reader.dispose()
        writer.dispose()


def test_read_rows_goes_through_execute_when_statements_are_watched(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    writer = make_engine(url)
    migrate(writer)
    writer.dispose()
    reader = make_reader_engine(url)
    seen: list[str] = []
    event.listen(reader, "before_cursor_execute", lambda *a: seen.append(a[2]))
    stmt = select(chains.c.name).where(chains.c.chain_id == bindparam("id"))
    try:
        with reader.connect() as conn:
            assert dialect.read_rows(conn, stmt, {"id": 1})[1] == []
    finally:
        reader.dispose()
    assert [s for s in seen if s.startswith("SELECT")] == [str(stmt.compile(reader))]


def test_engine_label_names_the_engine_and_its_version(engine):
    label = dialect.engine_label(engine)
    if engine.dialect.name == "sqlite":
        assert label == f"SQLite {sqlite3.sqlite_version}"
    else:
        with engine.connect() as conn:
            number = conn.exec_driver_sql("SHOW server_version_num").scalar_one()
        major = int(number) // 10_000
        assert label.startswith(f"PostgreSQL {major}."), label


def test_a_reader_replaces_a_dropped_idle_connection(db_url, engine, monkeypatch):
    """PostgreSQL readers ping a connection only after it sat idle (no round trip per
    request); one the server dropped meanwhile is replaced, the caller never sees it."""
    if engine.dialect.name == "sqlite":
        pytest.skip("an SQLite handle is a file, not a server connection")
    monkeypatch.setattr(dialect, "_PING_AFTER_IDLE_S", 0.0)
    reader = make_reader_engine(db_url)
    try:
        with reader.connect() as conn:
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
        with engine.begin() as w:
            w.exec_driver_sql(f"SELECT pg_terminate_backend({int(pid)})")
        with reader.connect() as conn:
            assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one() != pid
            # Each statement its own transaction: nothing is left open between them.
            assert not conn.connection.driver_connection.info.transaction_status
    finally:
        reader.dispose()
