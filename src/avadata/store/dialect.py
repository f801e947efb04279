"""Where SQLite and PostgreSQL differ: dialect file 2 of 2 (the other is `coltypes.py`).

Stage: store. Only this module and `coltypes.py` may look at the dialect's name; every other
module of the store writes portable SQLAlchemy Core and calls these functions for the rest.
Each function here has a test in `tests/store/` that runs on both engines.

The divergences, all of them:
- URLs and engine options (driver, SQLite PRAGMAs, read-only connections);
- how a transaction begins on SQLite (BEGIN IMMEDIATE for the writer);
- INSERT ... ON CONFLICT (both engines spell it alike, but SQLAlchemy builds it per dialect);
  a batch's guarded upserts (`upsert_later`): one statement over unnest() arrays on
  PostgreSQL, executemany on SQLite;
- the bulk path for a batch's rows: executemany on SQLite; on PostgreSQL, COPY (binary) into
  a temp table then one INSERT ... SELECT ... ON CONFLICT DO NOTHING (faster per row than arrays,
  docs/store.md), or for a few rows one INSERT ... SELECT FROM unnest(arrays) (one round
  trip);
- "the latest row before block B for each of these keys" (balance histories): a LATERAL join
  over unnest() on PostgreSQL, a correlated LIMIT 1 subquery over a VALUES list on SQLite,
  both one index seek per key;
- a lock that serialises concurrent migrations;
- partitions of the large chain tables (PostgreSQL only, `partitions.py`);
- prepared reads (`read_rows`): on SQLite compiled once and run through the driver's cursor,
  elsewhere through SQLAlchemy's execute.
"""

from __future__ import annotations

import re
import sqlite3
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any, TypeVar

from sqlalchemy import Boolean, Connection, Engine, Index, Select, Table, event, make_url, text
from sqlalchemy.connectors.asyncio import AsyncAdapt_dbapi_connection
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.expression import ColumnElement, Insert
from sqlalchemy.util import await_

from avadata.store.coltypes import SQLITE_INTEGER_END, misfits

# Arbitrary constant naming our migration lock among PostgreSQL advisory locks.
_MIGRATION_LOCK_ID = 0x61766164  # "avad"

# Each PRAGMA with its reason; applied on every new SQLite connection of a writer engine.
_SQLITE_WRITER_PRAGMAS: tuple[tuple[str, str], ...] = (
    # Wait up to 10 s for a lock instead of failing at once with SQLITE_BUSY (first, so that
    # the pragmas below wait too).
    ("busy_timeout", "10000"),
    # 16 KiB pages for a new file (an existing one keeps its size; only here, before WAL mode,
    # can a new file still take it). A commit writes each page it dirtied to the WAL, and a
    # chunk's rows dirty pages all over the hash and address indexes: larger pages make fewer
    # of them to write, and the inserts got cheaper too (docs/benchmarks.md). Larger still cut
    # commits further but make every point read of the API copy that much more.
    ("page_size", "16384"),
    # Readers never block the writer and the writer never blocks readers (one indexer, many API
    # processes). Persistent in the file; set by the writer since a read-only handle cannot.
    ("journal_mode", "WAL"),
    # In WAL mode NORMAL loses no committed data on a process crash and never corrupts; a power
    # cut may drop the last commits, which the indexer re-fetches from its cursor.
    ("synchronous", "NORMAL"),
    # The WAL file otherwise keeps the size of the largest transaction until the last
    # connection closes, which a follower never does; the indexer's transactions span several
    # batches (indexer/sink.py). Trimmed to 64 MiB after each checkpoint that empties it.
    ("journal_size_limit", str(64 * 1024 * 1024)),
    # SQLite ignores declared foreign keys unless each connection asks for them.
    ("foreign_keys", "ON"),
    # A 128 MiB page cache: bulk inserts touch many index pages per transaction, and the
    # indexer's transactions span several batches (indexer/sink.py); a smaller cache read
    # pages back from the file that the writer had just written (docs/benchmarks.md). The
    # cache is capped, so the writer's peak stays flat in the chain's length.
    ("cache_size", "-131072"),
)

_SQLITE_READER_PRAGMAS: tuple[tuple[str, str], ...] = (
    # An API reader waits for a checkpoint rather than erroring.
    ("busy_timeout", "10000"),
    ("foreign_keys", "ON"),
    # Belt and braces on top of mode=ro: any write through this handle is an error.
    ("query_only", "ON"),
)


def _pragma(cur: Any, name: str, value: str) -> None:
    """Set one PRAGMA. Switching a new file to WAL needs an exclusive lock, and SQLite answers
    "database is locked" at once (without its busy handler) while another connection of a
    process starting at the same moment holds the file: retry that case for up to 10 s."""
    deadline = time.monotonic() + 10
    while True:
        try:
            cur.execute(f"PRAGMA {name}={value}")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def queries_in_process(engine: Engine) -> bool:
    """True when a query is CPU work inside this process (SQLite: no network wait to overlap,
    and the GIL is held for most of it), so running it in a worker thread buys nothing."""
    return engine.dialect.name == "sqlite"


def engine_label(engine: Engine) -> str:
    """The engine and its version as people name them ("SQLite 3.40.1", "PostgreSQL 15.4"),
    for reports that must say what they measured."""
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            return f"SQLite {conn.exec_driver_sql('SELECT sqlite_version()').scalar_one()}"
        version = str(conn.exec_driver_sql("SHOW server_version").scalar_one())
        return f"PostgreSQL {version.split()[0]}"


def store_bytes(conn: Connection) -> int:
    """The store's size on disk, indexes included: the database's on PostgreSQL
    (pg_database_size), the main file's pages on SQLite (the WAL aside)."""
    if conn.dialect.name == "sqlite":
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
        return int(pages) * int(conn.exec_driver_sql("PRAGMA page_size").scalar_one())
    return int(conn.exec_driver_sql("SELECT pg_database_size(current_database())").scalar_one())


def bounds_on_every_input(conn: Connection) -> bool:
    """True when each input of a keyset page must carry the page's bounds itself: PostgreSQL's
    planner (15, 16) neither merges a top-level UNION ALL's ordered arms (it sorts them whole)
    nor carries a bound across a join's equalities (a merge join then reads the joined table
    from its newest row down to the page); SQLite merges the arms as they come and looks each
    joined row up by key, and an arm's own LIMIT there would add a sort per arm."""
    return conn.dialect.name == "postgresql"


def round_trips(conn: Connection) -> bool:
    """True when each statement is a round trip to a server (PostgreSQL): the driver's work,
    the wait, two context switches; worth one larger statement instead of two. SQLite's
    statements are calls inside this process."""
    return conn.dialect.name == "postgresql"


def has_partitions(conn: Connection) -> bool:
    """True when the large chain tables are partitioned by chain and block range
    (`store/partitions.py`): PostgreSQL. SQLite keeps each table whole."""
    return conn.dialect.name == "postgresql"


def has_hash_indexes(conn: Connection) -> bool:
    """True when the engine has hash indexes (PostgreSQL); SQLite's are all B-trees."""
    return conn.dialect.name == "postgresql"


def hash_lookup(table: str, scope: str, column: str) -> tuple[Index, Index]:
    """The indexes of `table` that find a row by `column` (a hash) within `scope`: a B-tree on
    (scope, column) on SQLite, a hash index on `column` alone on PostgreSQL (smaller entries
    and no key comparisons to maintain; an equality lookup is all either serves, the scope a
    filter on the few rows found). Each is built on its engine only (`Index.ddl_if`)."""
    return (
        Index(None, scope, column).ddl_if(dialect="sqlite"),
        Index(f"ix_{table}_{column}", column, postgresql_using="hash").ddl_if(dialect="postgresql"),
    )


def is_sqlite_url(url: str) -> bool:
    """True for `sqlite://...` URLs (the embedded engine)."""
    return make_url(url).get_backend_name() == "sqlite"


def normalize_url(url: str, *, read_only: bool = False) -> URL:
    """Map our URLs onto SQLAlchemy's: postgresql:// -> psycopg 3; read-only SQLite -> mode=ro.

    Raises ValueError for any other database, and for a read-only in-memory SQLite.
    """
    u = make_url(url)
    backend = u.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return u.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        if not read_only:
            return u
        if not u.database or u.database == ":memory:":
            raise ValueError("a read-only engine needs an SQLite file, not an in-memory database")
        query = dict(u.query)
        query.update({"mode": "ro", "uri": "true"})
        return u.set(database=f"file:{u.database}", query=query)
    raise ValueError(f"unsupported database URL {u.render_as_string(hide_password=True)!r}")


# The API's PostgreSQL connections, two pools per process. The route bodies' (an async engine,
# store/loop_readers.py): one per body running at once, each kept while busy, plus a few for a
# body's nested reads. The reader engine's: spares for what runs beside the bodies (the
# freshness headers' head lookups, API-key lookups, the metrics routes) so those rarely wait
# or open a connection: one past the pool's size is closed when it comes back, and opening
# one costs a server process.
READ_POOL_SIZE = 8
_READ_POOL_SPARE = 4
_READ_POOL_OVERFLOW = 4

# A pooled reader connection idle longer than this is pinged before use (a server restart or
# a proxy's idle timeout drops connections silently); a busy one is not, a ping being a round
# trip per request.
_PING_AFTER_IDLE_S = 10.0


# The reader sessions' server settings (docs/store.md, "Plans on a partitioned store"):
# - read only: the server refuses any write, as a read-only SQLite handle does;
# - generic plans: psycopg prepares a statement from its fifth execution on a connection, and
#   the server would still plan it anew at each execution (its generic plan of a LIMIT $n over
#   every leaf looks dearer than a custom one), when planning a statement over a partitioned
#   table costs more than running it, and more with every leaf a chain gains; a generic plan
#   is made once per connection and pruned to the request's leaves when it runs. The API's
#   reads are keyset seeks whose best plan does not depend on their values
#   (tests/api/test_query_plans.py checks the lists' generic plans);
# - no JIT: a generic plan's estimate covers every leaf, past jit_above_cost, and compiling it
#   at each execution costs far more than the page's read;
# - no parallel workers: a generic LIMIT $n is estimated at a tenth of the rows, enough for a
#   Gather whose workers take longer to start than a page takes to read.
READER_SETTINGS: dict[str, str] = {
    "default_transaction_read_only": "on",
    "plan_cache_mode": "force_generic_plan",
    "jit": "off",
    "max_parallel_workers_per_gather": "0",
}


def engine_kwargs(url: URL, *, read_only: bool, for_bodies: bool = False) -> dict[str, Any]:
    """Keyword arguments for `sqlalchemy.create_engine` on this URL (`for_bodies`: the API's
    route bodies' async engine)."""
    if url.get_backend_name() == "sqlite":
        return {}
    # A server that drops packets (a wrong host, a firewall) fails in 10 s instead of hanging
    # the command that opens the store (libpq waits forever by default).
    connect_args: dict[str, Any] = {"connect_timeout": 10}
    if not read_only:
        return {
            "pool_pre_ping": True,
            "pool_size": 5,
            "max_overflow": 10,
            "connect_args": connect_args,
        }
    connect_args["options"] = " ".join(f"-c {k}={v}" for k, v in READER_SETTINGS.items())
    return {
        # Each statement its own (read-only) transaction: a read in a transaction costs a BEGIN
        # and a ROLLBACK round trip besides its own, and buys nothing at READ COMMITTED, where
        # every statement takes a fresh snapshot anyway.
        "isolation_level": "AUTOCOMMIT",
        "pool_size": READ_POOL_SIZE if for_bodies else _READ_POOL_SPARE,
        "max_overflow": _READ_POOL_OVERFLOW,
        "connect_args": connect_args,
    }


# Reader threads on SQLite, where the API runs its reads on the event loop unless told not to
# (`queries_in_process`): threads buy no parallelism there, a few serve.
_SQLITE_READ_THREADS = 4


def read_concurrency(engine: Engine) -> int:
    """How many store-bound route bodies the API should run at once: reader threads on SQLite,
    greenlets on PostgreSQL (one pooled connection each, see READ_POOL_SIZE)."""
    if queries_in_process(engine):
        return _SQLITE_READ_THREADS
    return READ_POOL_SIZE


def _ping_when_idle(engine: Engine) -> None:
    """Ping a reader connection before use only when it sat idle in the pool for a while
    (`_PING_AFTER_IDLE_S`); a dead one is replaced (DisconnectionError makes the pool retry)."""
    from sqlalchemy.exc import DisconnectionError

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < _PING_AFTER_IDLE_S:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            error: Any = exc  # the driver's own exception class
            if engine.dialect.is_disconnect(error, dbapi_connection, None):
                raise DisconnectionError(str(exc)) from exc
            raise


def install_hooks(engine: Engine, *, read_only: bool) -> None:
    """Per-connection setup: SQLite PRAGMAs and transaction start; on PostgreSQL the readers'
    ping of idle connections (writers ping at every checkout: pool_pre_ping)."""
    if engine.dialect.name != "sqlite":
        if read_only:
            _ping_when_idle(engine)
        else:
            event.listen(engine, "connect", _follow_priority)
        return
    pragmas = _SQLITE_READER_PRAGMAS if read_only else _SQLITE_WRITER_PRAGMAS
    begin = "BEGIN" if read_only else "BEGIN IMMEDIATE"

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's begin event issue BEGIN itself: pysqlite would otherwise begin only
        # at the first write, leaving the reads before it outside the transaction.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        try:
            for name, value in pragmas:
                _pragma(cur, name, value)
        finally:
            cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # IMMEDIATE takes the write lock up front: a writer never fails halfway when it would
        # upgrade a read lock (busy_timeout does not apply to that upgrade in WAL mode).
        if read_only:
            # Straight to the driver: an API request begins one of these per request, and
            # SQLAlchemy's statement machinery cost more than the BEGIN itself.
            conn.connection.driver_connection.execute(begin)  # type: ignore[union-attr]
        else:
            conn.exec_driver_sql(begin)


def _follow_priority(dbapi_connection: Any, _record: Any) -> None:
    # A niced writer's server process niced alike (store/backend_priority.py).
    from avadata.store import backend_priority

    backend_priority.follow(dbapi_connection)


# Prepared reads. SQLAlchemy's execute() of a built statement costs more than SQLite takes to
# answer a keyset page (cache-key traversal, parameter processing, result metadata, Row
# objects; docs/api.md). A read statement is compiled once to its SQL text and, per
# parameter, the bound value's source and the column type's encoder; then each execution goes
# straight to the driver's cursor and only the columns whose types decode (U256, Boolean, ...)
# are touched. On PostgreSQL the decoders depend on the result's type OIDs, so they are made
# at the statement's first execution; psycopg prepares the statement server-side from its
# fifth execution on a connection. Statements SQLAlchemy must rewrite per execution
# (expanding IN lists, literal-rendered parameters) keep SQLAlchemy's path.

_REQUIRED: Any = object()


@dataclass(frozen=True, slots=True)
class _Prepared:
    sql: str
    # Per parameter (per "?" in order on SQLite): the parameter's name, its fixed value
    # (_REQUIRED when the caller gives it) and the column type's encoder.
    binds: tuple[tuple[str, Any, Callable[[Any], Any] | None], ...]
    keys: tuple[str, ...]
    # (column index, decoder) of the columns whose type converts what the driver returns;
    # on PostgreSQL filled at the first execution (the result's type OIDs), under key None.
    decoders: tuple[tuple[int, Callable[[Any], Any]], ...]
    late: dict[None, tuple[tuple[int, Callable[[Any], Any]], ...]] | None = None


@lru_cache(maxsize=1024)
def _prepare(dialect_: Any, stmt: Select[Any]) -> _Prepared | None:
    compiled: Any = stmt.compile(dialect=dialect_)
    if compiled.literal_execute_params or compiled.post_compile_params:
        return None
    if dialect_.name == "sqlite":
        if compiled.positiontup is None:
            return None
        names = list(compiled.positiontup)
    elif compiled.positiontup is None and not compiled.escaped_bind_names:
        names = list(compiled.binds)  # psycopg's %(name)s: passed by name
    else:
        return None
    binds = []
    for name in names:
        bind = compiled.binds[name]
        fixed = _REQUIRED if bind.required else bind.effective_value
        binds.append((name, fixed, bind.type.dialect_impl(dialect_).bind_processor(dialect_)))
    keys = tuple(stmt.selected_columns.keys())
    if dialect_.name != "sqlite":
        return _Prepared(str(compiled), tuple(binds), keys, (), late={})
    decoders = []
    for i, col in enumerate(stmt.selected_columns):
        decode = col.type.dialect_impl(dialect_).result_processor(dialect_, None)
        if decode is not None:
            decoders.append((i, decode))
    return _Prepared(str(compiled), tuple(binds), keys, tuple(decoders))


def _late_decoders(
    dialect_: Any, stmt: Select[Any], description: Sequence[Any]
) -> tuple[tuple[int, Callable[[Any], Any]], ...]:
    """The decoders of a PostgreSQL result, from its columns' type OIDs."""
    decoders = []
    for i, (col, desc) in enumerate(zip(stmt.selected_columns, description, strict=True)):
        decode = col.type.dialect_impl(dialect_).result_processor(dialect_, desc.type_code)
        if decode is not None:
            decoders.append((i, decode))
    return tuple(decoders)


def _instrumented(conn: Connection) -> bool:
    """True when something watches this connection's statements (cursor-execute listeners,
    echo): SQLAlchemy's execute() then runs them, so logging and tracing keep seeing them."""
    d = conn.dispatch
    return bool(d.before_cursor_execute or d.after_cursor_execute or conn.engine.echo)


# The driver connection's info key of its kept psycopg cursor (read_rows).
_CURSOR = "avadata.read_cursor"


def is_driver_error(exc: BaseException) -> bool:
    """True for an error of the database or its driver: SQLAlchemy's wrapper, or the driver's
    own (read_rows goes straight to the driver). A connection that raised one may be unusable."""
    if isinstance(exc, (DBAPIError, sqlite3.Error)):
        return True
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.Error)


def connection_lost(conn: Connection) -> bool:
    """True when `conn`'s link to the server is gone (closed by the server or the network), as
    opposed to an error of the statement itself."""
    if conn.invalidated or conn.closed:
        return True
    driver: Any = conn.connection.driver_connection
    return bool(getattr(driver, "broken", False) or getattr(driver, "closed", False))


def _waits_on_loop(fairy: Any) -> bool:
    """True for a connection of an async engine (make_async_reader_engine): its driver's calls
    are awaited on the event loop from the greenlet the caller runs in."""
    return isinstance(fairy.dbapi_connection, AsyncAdapt_dbapi_connection)


def read_rows(
    conn: Connection, stmt: Select[Any], params: Mapping[str, Any]
) -> tuple[tuple[str, ...], list[Sequence[Any]]]:
    """The column keys and rows (decoded values, as `conn.execute` gives them) of a read
    statement. Build `stmt` once and reuse it: it is compiled once per object."""
    prepared = None if _instrumented(conn) else _prepare(conn.dialect, stmt)
    if prepared is None:
        result = conn.execute(stmt, params)
        return tuple(result.keys()), list(result)
    fairy = conn.connection
    driver: Any = fairy.driver_connection
    # As execute() would: one read transaction (snapshot) per connection use; but not for an
    # autocommit PostgreSQL reader (each statement its own snapshot), where SQLAlchemy's begin
    # and the rollback after it are Python work that sends nothing.
    if not conn.in_transaction() and not (prepared.late is not None and driver.autocommit):
        conn.begin()
    values = []
    for name, fixed, encode in prepared.binds:
        value = params[name] if fixed is _REQUIRED else params.get(name, fixed)
        values.append(value if encode is None else encode(value))
    if prepared.late is None:
        cursor = driver.execute(prepared.sql, values)
        try:
            rows: list[Sequence[Any]] = cursor.fetchall()
        finally:
            cursor.close()
        decoders = prepared.decoders
    else:
        # psycopg: one cursor per connection, kept with it (making one per statement, with
        # its adapters' map, cost a tenth of the statement's Python work).
        cursor = fairy.info.get(_CURSOR)
        if cursor is None:
            cursor = fairy.info[_CURSOR] = driver.cursor()
        named = dict(zip((b[0] for b in prepared.binds), values, strict=True))
        if _waits_on_loop(fairy):
            await_(cursor.execute(prepared.sql, named))
            rows = await_(cursor.fetchall())
        else:
            cursor.execute(prepared.sql, named)
            rows = cursor.fetchall()
        if None not in prepared.late:
            prepared.late[None] = _late_decoders(conn.dialect, stmt, cursor.description)
        decoders = prepared.late[None]
    if decoders:
        decoded: list[Sequence[Any]] = []
        for row in rows:
            items = list(row)
            for i, decode in decoders:
                items[i] = decode(items[i])
            decoded.append(items)
        rows = decoded
    return prepared.keys, rows


def _insert(conn: Connection, table: Table) -> Any:
    if conn.dialect.name == "sqlite":
        return sqlite.insert(table)
    if conn.dialect.name == "postgresql":
        return postgresql.insert(table)
    raise NotImplementedError(f"dialect {conn.dialect.name!r}")


_Built = TypeVar("_Built")


def per_dialect(build: Callable[[Connection], _Built]) -> Callable[[Connection], _Built]:
    """`build(conn)` made once per dialect and reused: for the statements a writer runs in
    every batch. Why: SQLAlchemy builds a statement's parts again on each construction (an
    upsert's `excluded` alias and its column proxies) and computes its cache key again before
    it finds the compiled form; a statement object keeps its key (docs/benchmarks.md)."""
    built: dict[str, _Built] = {}

    def get(conn: Connection) -> _Built:
        stmt = built.get(conn.dialect.name)
        if stmt is None:
            stmt = built[conn.dialect.name] = build(conn)
        return stmt

    return get


def upsert_once(
    table: Table,
    *,
    keys: Sequence[str],
    set_: Callable[[Excluded], Mapping[str, Any]],
    where: Callable[[Excluded], ColumnElement[bool]] | None = None,
) -> Callable[[Connection], Insert]:
    """`upsert`, built once per dialect (`per_dialect`): for an upsert every batch runs."""
    return per_dialect(lambda conn: upsert(conn, table, keys=keys, set_=set_, where=where))


def insert_or_ignore(conn: Connection, table: Table) -> Insert:
    """INSERT that skips rows whose primary key (or any unique key) already exists."""
    stmt: Insert = _insert(conn, table).on_conflict_do_nothing()
    return stmt


def insert_or_ignore_once(table: Table) -> Callable[[Connection], Insert]:
    """`insert_or_ignore`, built once per dialect (`per_dialect`): for an insert every batch
    runs."""
    return per_dialect(lambda conn: insert_or_ignore(conn, table))


# A bulk write's SQL and per column its value encoder (SQLite) or its COPY type's name
# (PostgreSQL), built once per (dialect, table, columns).
_BulkPlan = tuple[tuple[str, ...], tuple[Any, ...]]


# Below this many rows a PostgreSQL bulk write sends arrays (one round trip) instead of COPY
# (three statements and a temp table; faster per row, slower per call).
_COPY_MIN_ROWS = 1000


@lru_cache(maxsize=256)
def _bulk_plan(dialect_: Any, table: Table, columns: tuple[str, ...]) -> _BulkPlan:
    cols = [table.c[name] for name in columns]
    q = dialect_.identifier_preparer.quote
    names = ", ".join(q(c.name) for c in cols)
    target = dialect_.identifier_preparer.format_table(table)
    if dialect_.name == "postgresql":
        # COPY into a session temp table shaped like the target, then one INSERT ... SELECT that
        # skips existing keys: COPY is the fastest way in. The TRUNCATE right after leaves the
        # staging table empty at every commit; a rollback undoes the COPY just the same.
        # COPY's binary format: psycopg writes each value in its column type's wire form
        # (named per column: binary COPY converts nothing), which costs the writer less CPU
        # than formatting text (docs/benchmarks.md).
        staging = q(f"_bulk_{table.name}")
        arrays = ", ".join(f"%s::{c.type.compile(dialect=dialect_)}[]" for c in cols)
        steps = (
            f"CREATE TEMP TABLE IF NOT EXISTS {staging} (LIKE {target} INCLUDING DEFAULTS)",
            f"COPY {staging} ({names}) FROM STDIN (FORMAT BINARY)",
            f"INSERT INTO {target} ({names}) SELECT {names} FROM {staging} "
            f"ON CONFLICT DO NOTHING; TRUNCATE {staging}",
            # Few rows: one statement with an array per column, no temp table to touch.
            f"INSERT INTO {target} ({names}) SELECT * FROM unnest({arrays}) ON CONFLICT DO NOTHING",
            # Rows no stored key can meet (write_new_rows): straight into the table.
            f"COPY {target} ({names}) FROM STDIN (FORMAT BINARY)",
        )
        # COPY writes Python ints, str, bool and None as they are, in each column's type.
        return steps, tuple(_copy_type(c.type.compile(dialect=dialect_)) for c in cols)
    marks = ", ".join("?" for _ in cols)
    sql = f"INSERT INTO {target} ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING"
    # The column types' own encoders (U256 -> integer or padded text on SQLite, ...); None:
    # pass as is. The sqlite3 module binds a bool as the integer SQLAlchemy's would make.
    procs = tuple(
        None if isinstance(c.type, Boolean) else c.type.bind_processor(dialect_) for c in cols
    )
    return (sql,), procs


def _copy_type(compiled: str) -> str:
    """psycopg's name of a column type ("NUMERIC(78, 0)" -> "numeric")."""
    return compiled.split("(")[0].lower()


def encode_rows(
    dialect_: Any, table: Table, columns: tuple[str, ...], rows: Sequence[Sequence[Any]]
) -> Sequence[Sequence[Any]]:
    """`rows` with the column types' encoders applied (none on PostgreSQL, whose COPY takes
    Python ints, str, bool and None as they are). Rows no encoder changes are passed as they
    are; a U256 column is scanned for the few values that need it (misfits)."""
    if dialect_.name == "postgresql":
        return rows
    _, procs = _bulk_plan(dialect_, table, columns)
    out: list[Sequence[Any]] | None = None
    whole: dict[int, Callable[[Any], Any]] = {}
    for i, proc in enumerate(procs):
        if proc is None:
            continue
        col = list(map(itemgetter(i), rows))
        bad = misfits(proc, col)
        if bad is None or len(bad) * 2 > len(rows):
            whole[i] = proc
            continue
        for j in bad:
            out = out if out is not None else list(rows)
            r = out[j]
            out[j] = (*r[:i], proc(r[i]), *r[i + 1 :])
    rows = out if out is not None else rows
    if not whole:
        return rows
    # Column by column: the transposes run in C, only the encoders are Python calls (row by
    # row, copying each row to a list and back cost as much as the encoders).
    cols = [
        list(map(whole[i], col)) if i in whole else col
        for i, col in enumerate(zip(*rows, strict=True))
    ]
    return list(zip(*cols, strict=True))


def bulk_insert_ignore(
    conn: Connection,
    table: Table,
    columns: tuple[str, ...],
    rows: Sequence[Sequence[Any]],
) -> None:
    """Insert `rows` (tuples in `columns` order), skipping rows whose key already exists.

    The batch writer's fast path: it bypasses SQLAlchemy's per-row parameter handling, so the
    values must already be what the columns hold (ints, lower-case str, bool, None); the
    column types' encoders (U256, I256) are still applied where the driver needs them.
    Inside `write_new_rows` on PostgreSQL, a table keyed by block takes the rows by COPY
    straight into it (see there).
    """
    if not rows:
        return
    steps, procs = _bulk_plan(conn.dialect, table, columns)
    if conn.dialect.name == "postgresql":
        prepare, copy, insert, arrays, copy_direct = steps
        direct = conn.info.get(_DIRECT) and _keyed_by_block(table)
        if len(rows) < _COPY_MIN_ROWS and not direct:
            conn.exec_driver_sql(arrays, tuple(list(col) for col in zip(*rows, strict=True)))
            return
        cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            if direct:
                copy = copy_direct
            else:
                cur.execute(prepare)
            with cur.copy(copy) as pipe:
                pipe.set_types(procs)
                for row in rows:
                    pipe.write_row(row)
            if not direct:
                cur.execute(insert)
        finally:
            cur.close()
        return
    conn.exec_driver_sql(steps[0], encode_rows(conn.dialect, table, columns, rows))


# conn.info key: inside write_new_rows' savepoint (PostgreSQL only).
_DIRECT = "avadata.copy_direct"


@lru_cache(maxsize=128)
def _keyed_by_block(table: Table) -> bool:
    """True when the table's primary key holds the block number: its rows from blocks no
    stored row comes from can meet no stored key."""
    names = {c.name for c in table.primary_key.columns}
    return "block_number" in names or (table.name == "evm_blocks" and "number" in names)


def write_new_rows(conn: Connection, new: Callable[[], bool], write: Callable[[], None]) -> None:
    """Run `write` (bulk_insert_ignore calls). `new()` (asked on PostgreSQL only: SQLite has
    no faster path for new rows): the rows come from blocks above every block the chain has
    stored, so in a table keyed by block none can meet a stored key, and they go by COPY
    straight into their tables instead of through a staging table and an INSERT ... SELECT ...
    ON CONFLICT DO NOTHING (each row written once instead of twice, two statements fewer per
    table). In a savepoint: should the batch hold one key twice (unique violation), its rows
    are written again the usual way, which skips the repeats as before. SQLite, and rows that
    are not new, the usual way."""
    if conn.dialect.name != "postgresql" or not new():
        write()
        return
    from psycopg.errors import UniqueViolation
    from sqlalchemy.exc import IntegrityError

    try:
        with conn.begin_nested():
            conn.info[_DIRECT] = True
            try:
                write()
            finally:
                del conn.info[_DIRECT]
    except (IntegrityError, UniqueViolation):
        write()


def rows_source(
    conn: Connection, table: Table, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> tuple[str, tuple[Any, ...]]:
    """`rows` as the source of an INSERT into `table` (SQL and its parameters): on SQLite
    `VALUES (?, ...), ...`, a parameter per value; on PostgreSQL `SELECT * FROM unnest(...)`
    with one array parameter per column, so that a thousand rows are a few parameters to send
    and a short statement to parse instead of thousands. Integer and text columns."""
    if conn.dialect.name == "postgresql":
        arrays = _array_params(conn.dialect, table, tuple(columns))
        return f"SELECT * FROM unnest({arrays})", tuple(list(c) for c in zip(*rows, strict=True))
    one = "(" + ", ".join("?" * len(columns)) + ")"
    return "VALUES " + ", ".join([one] * len(rows)), tuple(v for row in rows for v in row)


@lru_cache(maxsize=64)
def _array_params(dialect_: Any, table: Table, columns: tuple[str, ...]) -> str:
    return ", ".join(f"%s::{table.c[c].type.compile(dialect=dialect_)}[]" for c in columns)


# Keys per latest-before lookup: (1 + key columns) * 500 stays far below SQLite's 32,766 binds.
_LOOKUP_CHUNK = 500


@lru_cache(maxsize=64)
def _latest_plan(dialect_: Any, table: Table, key_cols: tuple[str, ...], value_col: str) -> str:
    q = dialect_.identifier_preparer.quote
    target = dialect_.identifier_preparer.format_table(table)
    match = " AND ".join(f"t.{q(k)} = k.{q(k)}" for k in key_cols)
    names = ", ".join(q(k) for k in key_cols)
    if dialect_.name == "postgresql":
        arrays = ", ".join(f"%s::{table.c[k].type.compile(dialect=dialect_)}[]" for k in key_cols)
        return (
            f"SELECT k.i, v.val FROM unnest({arrays}) WITH ORDINALITY AS k({names}, i) "
            f"CROSS JOIN LATERAL (SELECT t.{q(value_col)} AS val FROM {target} t "
            f"WHERE t.chain_id = %s AND {match} AND t.block_number < %s "
            "ORDER BY t.block_number DESC LIMIT 1) v"
        )
    return (
        f"SELECT k.i, (SELECT t.{q(value_col)} FROM {target} t "
        f"WHERE t.chain_id = ? AND {match} AND t.block_number < ? "
        f"ORDER BY t.block_number DESC LIMIT 1) FROM k"
    )


def latest_before(
    conn: Connection,
    table: Table,
    key_cols: tuple[str, ...],
    value_col: str,
    chain_id: int,
    before_block: int,
    keys: Sequence[tuple[Any, ...]],
) -> dict[tuple[Any, ...], Any]:
    """For each key, `value_col` of its row with the greatest block_number < before_block.

    `table` has columns chain_id, *key_cols, block_number, value_col, with a primary key that
    starts (chain_id, *key_cols, block_number): each key is one backward index seek. Keys
    without such a row are absent from the result. Values come back decoded (ints for U256).
    """
    out: dict[tuple[Any, ...], Any] = {}
    if not keys:
        return out
    d = conn.dialect
    sql = _latest_plan(d, table, key_cols, value_col)
    key_procs = [table.c[k].type.bind_processor(d) for k in key_cols]
    decode = table.c[value_col].type.result_processor(d, None)
    for start in range(0, len(keys), _LOOKUP_CHUNK):
        chunk = keys[start : start + _LOOKUP_CHUNK]
        columns = [
            [p(v) for v in col] if p else list(col)
            for p, col in zip(key_procs, zip(*chunk, strict=True), strict=True)
        ]
        if d.name == "postgresql":
            result = conn.exec_driver_sql(sql, (*columns, chain_id, before_block))
            base = 1  # WITH ORDINALITY counts from 1
        else:
            width = len(key_cols) + 1
            marks = ", ".join(["(" + ", ".join("?" * width) + ")"] * len(chunk))
            names = ", ".join(d.identifier_preparer.quote(k) for k in key_cols)
            cte = f"WITH k(i, {names}) AS (VALUES {marks}) "
            params: list[Any] = []
            for i, row in enumerate(zip(*columns, strict=True)):
                params.append(i)
                params.extend(row)
            result = conn.exec_driver_sql(cte + sql, (*params, chain_id, before_block))
            base = 0
        for i, val in result:
            if val is not None:
                out[chunk[i - base]] = decode(val) if decode else val
    return out


Excluded = Any  # the `excluded` pseudo-row: excluded.c.<column> is the value we tried to insert


def upsert(
    conn: Connection,
    table: Table,
    *,
    keys: Sequence[str],
    set_: Callable[[Excluded], Mapping[str, Any]],
    where: Callable[[Excluded], ColumnElement[bool]] | None = None,
) -> Insert:
    """INSERT ... ON CONFLICT (keys) DO UPDATE SET set_(excluded) [WHERE where(excluded)].

    `set_` and `where` receive the `excluded` pseudo-row, so the new values can be combined
    with the stored ones (`table.c.x`). When `where` is false the stored row stays as it is.
    """
    base = _insert(conn, table)
    stmt: Insert = base.on_conflict_do_update(
        index_elements=list(keys),
        set_=dict(set_(base.excluded)),
        where=where(base.excluded) if where is not None else None,
    )
    return stmt


def upsert_later(
    conn: Connection,
    table: Table,
    keys: tuple[str, ...],
    columns: tuple[str, ...],
    rows: Sequence[Sequence[Any]],
    guard: tuple[str, ...],
) -> None:
    """INSERT `rows` (tuples in `columns` order, at most one per key); where a key is stored,
    its other columns take the row's values only when the row's `guard` columns are greater,
    compared as a tuple (a position: replaying an older row changes nothing). Values as
    `bulk_insert_ignore` takes them. How it is sent: `_upsert_rows`."""
    if rows:
        sql = _upsert_sql(conn.dialect, table, keys, columns, ("newer", guard))
        _upsert_rows(conn, table, columns, rows, sql)


def add_up(
    conn: Connection,
    table: Table,
    keys: tuple[str, ...],
    columns: tuple[str, ...],
    rows: Sequence[Sequence[Any]],
    added: tuple[str, ...],
) -> None:
    """INSERT `rows` (tuples in `columns` order, at most one per key); where a key is stored,
    its `added` columns grow by the row's values, atomically in SQL (counters that several
    writers raise). How it is sent: `_upsert_rows`."""
    if rows:
        sql = _upsert_sql(conn.dialect, table, keys, columns, ("add", added))
        _upsert_rows(conn, table, columns, rows, sql)


@lru_cache(maxsize=64)
def _upsert_sql(
    dialect_: Any,
    table: Table,
    keys: tuple[str, ...],
    columns: tuple[str, ...],
    how: tuple[str, tuple[str, ...]],
) -> str:
    """INSERT ... ON CONFLICT (keys) DO UPDATE: ("newer", guard) as upsert_later, ("add",
    added) as add_up; built once per shape (the writers run these every batch). The rows'
    source is unnest() arrays on PostgreSQL, one row's ? marks on SQLite."""
    q = dialect_.identifier_preparer.quote
    target = dialect_.identifier_preparer.format_table(table)
    kind, named = how
    if kind == "add":
        update = ", ".join(f"{q(c)} = {target}.{q(c)} + excluded.{q(c)}" for c in named)
    else:
        sets = ", ".join(f"{q(c)} = excluded.{q(c)}" for c in columns if c not in keys)
        newer = ", ".join(f"excluded.{q(c)}" for c in named)
        stored = ", ".join(f"{target}.{q(c)}" for c in named)
        update = f"{sets} WHERE ({newer}) > ({stored})"
    if dialect_.name == "postgresql":
        source = f"SELECT * FROM unnest({_array_params(dialect_, table, columns)})"
    else:
        source = "VALUES (" + ", ".join("?" for _ in columns) + ")"
    names = ", ".join(q(c) for c in columns)
    conflict = f"ON CONFLICT ({', '.join(q(k) for k in keys)}) DO UPDATE SET {update}"
    return f"INSERT INTO {target} ({names}) {source} {conflict}"


def _upsert_rows(
    conn: Connection,
    table: Table,
    columns: tuple[str, ...],
    rows: Sequence[Sequence[Any]],
    sql: str,
) -> None:
    """PostgreSQL: one statement over unnest() arrays, one round trip and one plan for the
    batch (executemany sent a statement per row, each parsed, bound and run by the server);
    SQLite: executemany of one row each."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(sql, tuple(list(c) for c in zip(*rows, strict=True)))
        return
    conn.exec_driver_sql(sql, encode_rows(conn.dialect, table, columns, rows))


def update_rows(
    conn: Connection,
    table: Table,
    keys: tuple[str, ...],
    columns: tuple[str, ...],
    rows: Sequence[Sequence[Any]],
) -> None:
    """UPDATE the stored rows of `rows`' keys (tuples in `columns` order, keys among them, at
    most one per key) to the rows' other columns. PostgreSQL: one UPDATE ... FROM unnest()
    arrays for the batch; SQLite: executemany of one row each."""
    if not rows:
        return
    q = conn.dialect.identifier_preparer.quote
    target = conn.dialect.identifier_preparer.format_table(table)
    if conn.dialect.name == "postgresql":
        sets = ", ".join(f"{q(c)} = v.{q(c)}" for c in columns if c not in keys)
        match = " AND ".join(f"{target}.{q(k)} = v.{q(k)}" for k in keys)
        arrays = _array_params(conn.dialect, table, columns)
        names = ", ".join(q(c) for c in columns)
        sql = f"UPDATE {target} SET {sets} FROM unnest({arrays}) AS v({names}) WHERE {match}"
        conn.exec_driver_sql(sql, tuple(list(c) for c in zip(*rows, strict=True)))
        return
    order = tuple(c for c in columns if c not in keys) + keys
    sets = ", ".join(f"{q(c)} = ?" for c in order[: -len(keys)])
    match = " AND ".join(f"{q(k)} = ?" for k in keys)
    at = [columns.index(c) for c in order]
    reordered = [tuple(row[i] for i in at) for row in rows]
    sql = f"UPDATE {target} SET {sets} WHERE {match}"
    conn.exec_driver_sql(sql, encode_rows(conn.dialect, table, order, reordered))


def migration_lock(conn: Connection) -> None:
    """Serialise concurrent migrations until the end of the current transaction.

    PostgreSQL: a transaction-scoped advisory lock (several indexers may start at once).
    SQLite: nothing to do, the writer's BEGIN IMMEDIATE already holds the database's write lock.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _MIGRATION_LOCK_ID})


def u256_storage(conn: Connection, columns: Mapping[str, Sequence[str]], *, integers: bool) -> None:
    """Revision 0011 (`integers`) or its downgrade: on SQLite, the uint256 `columns` (by table)
    declared BLOB with the values below 2**63 as INTEGERs, or VARCHAR(78) with every value as
    padded text (coltypes.U256). Nothing to do on PostgreSQL."""
    if conn.dialect.name != "sqlite":
        return
    bound = f"'{SQLITE_INTEGER_END:078d}'"  # as the padded text compares
    if integers:
        old, new = "VARCHAR(78)", "BLOB"
        value = "CASE WHEN typeof({c}) = 'text' AND {c} < " + bound + " THEN CAST({c} AS INTEGER)"
    else:
        old, new = "BLOB", "VARCHAR(78)"
        value = "CASE WHEN typeof({c}) = 'integer' THEN printf('%078d', {c})"
    for table, cols in columns.items():
        convert = {c: value.format(c=f'"{c}"') + f' ELSE "{c}" END' for c in cols}
        _retype_sqlite(conn, table, old, new, convert)


def _retype_sqlite(
    conn: Connection, table: str, old: str, new: str, convert: Mapping[str, str]
) -> None:
    """`table` with `convert`'s columns declared `new` where they were `old`, each value passed
    through the SQL expression `convert[column]`; nothing to do when none is `old`. SQLite
    cannot change a column's type in place: the table is rebuilt as its documentation
    describes (a new table from the stored CREATE statement with the types changed, the rows
    copied, the old table dropped, the new one renamed, the indexes recreated from their stored
    statements), so WITHOUT ROWID and partial indexes stay as they were."""
    create = conn.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).scalar_one()
    changed = create
    for col in convert:
        # A column declared at a line's start, or after a comma (a column an ALTER added).
        pattern = rf'([\s,(]"?{col}"?\s+){re.escape(old)}(?=[\s,)])'
        changed = re.sub(pattern, rf"\g<1>{new}", changed)
    if changed == create:
        return
    head = re.match(r'CREATE TABLE\s+("?)' + re.escape(table) + r"\1", changed)
    if head is None:
        raise RuntimeError(f"unexpected CREATE statement for {table}: {create[:80]}")
    indexes = (
        conn.exec_driver_sql(
            "SELECT sql FROM sqlite_master "
            "WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            (table,),
        )
        .scalars()
        .all()
    )
    names = [r[1] for r in conn.exec_driver_sql(f'PRAGMA table_info("{table}")')]
    scratch = f"_{table}_retyped"
    conn.exec_driver_sql(f'CREATE TABLE "{scratch}"' + changed[head.end() :])
    values = ", ".join(convert.get(n, f'"{n}"') for n in names)
    cols = ", ".join(f'"{n}"' for n in names)
    conn.exec_driver_sql(f'INSERT INTO "{scratch}" ({cols}) SELECT {values} FROM "{table}"')
    conn.exec_driver_sql(f'DROP TABLE "{table}"')
    conn.exec_driver_sql(f'ALTER TABLE "{scratch}" RENAME TO "{table}"')
    for sql in indexes:
        conn.exec_driver_sql(sql)
