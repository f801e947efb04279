"""Apply the store's Alembic history programmatically (no alembic.ini, no CLI).

Stage: store. Writers call `migrate(engine)` at start; it is idempotent and safe to run from
several processes at once (a lock serialises them, see `dialect.migration_lock`). Alembic is
imported only when a function here runs: processes that never migrate start faster.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from avadata.store import dialect

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


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


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the database behind `engine` to `revision` (default: head) in one transaction."""
    from alembic import command

    cfg = alembic_config()
    with engine.begin() as conn:
        dialect.migration_lock(conn)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
