"""Apply the store's Alembic history programmatically (no alembic.ini, no CLI).

Stage: store. Writers call `migrate(engine)` at start; it is idempotent and safe to run from
several processes at once (a lock serialises them, see `dialect.migration_lock`).

Two cases skip Alembic, whose import and history walk are a large part of a writer's start
(docs/store.md): a store already at `HEAD` (read from the version table with one query), and
an empty database, which gets schema.py's tables and the head's stamp in one transaction, as
Alembic's documentation advises for a new database. A test keeps that equal, table by table
and index by index, to what the history builds on both engines, and `HEAD` equal to the
history's head. Anything else (an older store) upgrades through the history.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Column, Connection, Engine, MetaData, PrimaryKeyConstraint, String, Table
from sqlalchemy import inspect as sa_inspect

from avadata.errors import StoreError
from avadata.store import dialect

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).with_name("migrations")

# The history's head revision: a new migration moves it (tests/store/test_migrations.py fails
# until it does).
HEAD = "20261126_0026"

# Alembic's version table as Alembic itself creates it.
_VERSION = Table(
    "alembic_version",
    MetaData(),
    Column("version_num", String(32), nullable=False),
    PrimaryKeyConstraint("version_num", name="alembic_version_pkc"),
)


def alembic_config() -> Config:
    """An Alembic Config pointing at our migrations folder."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def heads() -> list[str]:
    """The history's head revisions (exactly one, a test asserts)."""
    from alembic.script import ScriptDirectory

    return list(ScriptDirectory.from_config(alembic_config()).get_heads())


def migrate(engine: Engine, revision: str = "head", *, refuse_foreign: bool = False) -> None:
    """Upgrade the database behind `engine` to `revision` (default: head) in one transaction.
    StoreError for a store of a newer revision than HEAD; with `refuse_foreign` (the command
    line's stores: probe.py), also for a database holding tables but no version table."""
    with engine.begin() as conn:
        dialect.migration_lock(conn)
        if revision in ("head", HEAD):
            tables = set(sa_inspect(conn).get_table_names())
            if not tables:
                _create_at_head(conn)
                return
            if _VERSION.name in tables:
                current = conn.execute(_VERSION.select()).scalar()
                if current == HEAD:
                    return
                _check_not_newer(current)
            elif refuse_foreign:
                raise StoreError(_FOREIGN)
        upgrade_through_history(conn, revision)


# A database with tables but no version table: someone else's; Alembic would add ours beside.
_FOREIGN = (
    "the database holds tables but no avadata store (no alembic_version table): "
    "point --db at a store written by `avadata index`, or at an empty database"
)


def _check_not_newer(current: str | None) -> None:
    """StoreError for a store stamped with a revision past this build's HEAD (revision IDs
    start with their date, so they sort in the history's order): a newer avadata wrote it."""
    if current is not None and current > HEAD:
        raise StoreError(
            f"schema revision {current} is newer than this build's ({HEAD}): "
            "upgrade avadata, or use a store this version wrote"
        )


def upgrade_through_history(conn: Connection, revision: str = "head") -> None:
    """Every revision up to `revision`, as Alembic runs them, on the caller's connection (no
    shortcut: what `migrate` does for an older store, and what a new migration is generated
    against, docs/store.md)."""
    from alembic import command

    cfg = alembic_config()
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, revision)


def _create_at_head(conn: Connection) -> None:
    """schema.py's tables and the head's stamp, on an empty database (module doc)."""
    from avadata.store.schema import metadata

    metadata.create_all(conn)
    _VERSION.create(conn)
    conn.execute(_VERSION.insert().values(version_num=HEAD))
