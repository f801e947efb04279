"""Open a store for a command, or say in one line why it cannot be opened.

Stage: store. The command line opens every store through `open_store`: on success it costs
what `make_engine` and `migrate` cost (a few file-system checks on SQLite besides); on failure
the driver's exception is read here, where SQLAlchemy may be imported, and turned into a
`StoreError` whose message names the URL (its password masked: urls.py) and what to do. The
cases: the SQLite file's folder missing, a file that is not a database, a database holding no
store or someone else's tables, a store of a newer schema revision than this build, a
PostgreSQL server that does not answer, a database or role that does not exist, a password
refused.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from avadata.errors import NoStore, StoreError
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.urls import mask

# The first 16 bytes of every SQLite database file.
_SQLITE_MAGIC = b"SQLite format 3\x00"

# What `--db` takes, for the messages.
_URL_FORMS = "sqlite:///path/file.db or postgresql://user@host/db"


def open_store(url: str, *, create: bool = True) -> Engine:
    """A writer engine on the store at `url`, migrated to this build's schema. `create`: an
    empty database (or a new SQLite file) gets a new store; else it raises NoStore. Raises
    StoreError (one line, naming the URL) for whatever keeps the store from opening."""
    path = _sqlite_path(url)
    if path is not None:
        _check_sqlite_path(url, path, create=create)
    try:
        engine = make_engine(url)
    except (ArgumentError, ValueError) as exc:
        raise StoreError(
            f"--db {mask(url)!r} is not a store URL: give {_URL_FORMS}", exit_code=2
        ) from exc
    try:
        if not create:
            _require_store(engine, url)
        migrate(engine, refuse_foreign=True)
    except StoreError as exc:
        engine.dispose()
        if isinstance(exc, NoStore):
            raise
        raise StoreError(f"store {mask(url)}: {exc}") from exc
    except DBAPIError as exc:
        engine.dispose()
        raise StoreError(explain(url, exc)) from exc
    return engine


def check_replica(url: str, writer_url: str) -> None:
    """StoreError (exit 2) unless the store at `url` (`serve --read-db`) is at the schema
    revision of the one at `writer_url` (`--db`): a replica behind or ahead of its writer, or
    another database, would answer with columns the build does not expect. Reads only."""
    revisions: list[str | None] = []
    for where in (writer_url, url):
        try:
            engine = make_engine(where, read_only=True)
        except (ArgumentError, ValueError) as exc:
            raise StoreError(
                f"--read-db {mask(url)!r} is not a store URL: give {_URL_FORMS}", exit_code=2
            ) from exc
        try:
            with engine.connect() as conn:
                revisions.append(_revision(conn))
        except DBAPIError as exc:
            raise StoreError(explain(where, exc)) from exc
        finally:
            engine.dispose()
    if revisions[0] != revisions[1]:
        held = f"schema revision {revisions[1]}" if revisions[1] else "no store"
        raise StoreError(
            f"--read-db {mask(url)} is not a replica of --db {mask(writer_url)}: it holds "
            f"{held}, --db schema revision {revisions[0]}; point --read-db at a replica of "
            "--db that has caught up",
            exit_code=2,
        )


def _revision(conn: Connection) -> str | None:
    """The store's schema revision (Alembic's version table), None when it holds no store."""
    if "alembic_version" not in inspect(conn).get_table_names():
        return None
    found = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    return None if found is None else str(found)


def _sqlite_path(url: str) -> Path | None:
    """The file of an SQLite URL (None for PostgreSQL and in-memory databases)."""
    if not url.startswith("sqlite:"):
        return None
    try:
        database = make_url(url).database
    except Exception:  # unparseable: make_engine says so
        return None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _check_sqlite_path(url: str, path: Path, *, create: bool) -> None:
    """The failures a stat can tell before SQLite opens (and maybe creates) the file."""
    folder = path.parent
    if not folder.is_dir():
        raise StoreError(
            f"folder {folder} of the store {mask(url)} does not exist: create it "
            "(mkdir -p) or fix --db"
        )
    if path.is_dir():
        raise StoreError(f"{path} is a folder, not a store file: give --db sqlite:///{path}/a.db")
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as f:
            head = f.read(len(_SQLITE_MAGIC))
        if head != _SQLITE_MAGIC:
            raise StoreError(
                f"{path} is not an SQLite database: point --db at a store written by "
                "`avadata index`, or at a new file"
            )
    elif not create:
        raise NoStore(_no_store(url))


def _no_store(url: str) -> str:
    return (
        f"{mask(url)} holds no store: run `avadata index --db {mask(url)} ...` first "
        "(or pass --create to start an empty one)"
    )


def _require_store(engine: Engine, url: str) -> None:
    """NoStore when the database behind `engine` holds no table at all."""
    with engine.connect() as conn:
        if not inspect(conn).get_table_names():
            raise NoStore(_no_store(url))


def explain(url: str, exc: BaseException) -> str:
    """One line for a driver's failure to open or read the store at `url`."""
    orig = getattr(exc, "orig", None) or exc
    detail = mask(str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__)
    where = mask(url)
    low = detail.lower()
    path = _sqlite_path(url)
    if path is not None:
        if "not a database" in low:
            return f"{path} is not an SQLite database: point --db at a store or a new file"
        if "unable to open" in low:
            return f"cannot open {path} ({detail}): check that the file and its folder are writable"
        if "readonly" in low or "read-only" in low:
            return f"{path} is read-only: the command writes to its store; fix the permissions"
        return f"store {where}: {detail}"
    server = _server(url)
    if "does not exist" in low and "database" in low:
        name = url.rsplit("/", 1)[-1].split("?", 1)[0]
        return (
            f"database {name!r} does not exist on the PostgreSQL server at {server}: create it "
            f"(createdb {name}) or fix --db {where}"
        )
    if "password authentication failed" in low or "role" in low and "does not exist" in low:
        return f"PostgreSQL at {server} refused the login of {where}: {detail}"
    if "connection refused" in low or "could not connect" in low or "timeout" in low:
        return (
            f"PostgreSQL at {server} does not answer ({where}): is the server running? check --db"
        )
    return f"store {where}: {detail}"


def _server(url: str) -> str:
    """host:port of a PostgreSQL URL, for the messages."""
    u = make_url(url)
    return f"{u.host or 'localhost'}:{u.port or 5432}"
