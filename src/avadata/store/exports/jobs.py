"""The export operations' rows: who asked, what to export, where each export stands.

Stage: store. The API creates an operation and reads it back for its owner (another key's
operation is "not found", like a missing one); the export worker (exports/) finds the running
ones and moves each forward.

Invariant: an operation moves only through `advance` while RUNNING, its position, row count
and file mark together, so the stored position always matches the file's durable part.
"""

from __future__ import annotations

import time
from dataclasses import astuple, dataclass

from sqlalchemy import Connection, Engine, select, update

from avadata.store.queries.keyset import AnyRow
from avadata.store.schema import export_operations

RUNNING = "RUNNING"
COMPLETED = "COMPLETED"
FAILED = "FAILED"
_C = export_operations.c


@dataclass(frozen=True, slots=True)
class Operation:
    """One row of export_operations, its fields in the table's column order."""

    operation_id: str
    owner: str
    created_at_ms: int
    updated_at_ms: int
    operation_type: str
    status: str
    plan: str
    position: str
    rows_written: int
    file_mark: int
    code: str | None
    message: str | None


def _operation(r: AnyRow) -> Operation:
    return Operation(*r)


def _now_ms() -> int:
    return int(time.time() * 1000)


def create(
    engine: Engine, owner: str, operation_id: str, operation_type: str, plan: str, position: str
) -> Operation:
    """A new RUNNING operation at `position` (the plan's start), no row written yet."""
    now = _now_ms()
    op = Operation(
        operation_id, owner, now, now, operation_type, RUNNING, plan, position, 0, 0, None, None
    )
    with engine.begin() as conn:
        conn.execute(
            export_operations.insert().values(dict(zip(_C.keys(), astuple(op), strict=True)))
        )
    return op


def get(engine: Engine | Connection, owner: str | None, operation_id: str) -> Operation | None:
    """The operation of `owner` with this id (None: absent or another key's); owner None: any
    owner's (the worker's)."""
    stmt = select(export_operations).where(_C.operation_id == operation_id)
    if owner is not None:
        stmt = stmt.where(_C.owner == owner)
    if isinstance(engine, Connection):
        row = engine.execute(stmt).first()
    else:
        with engine.connect() as conn:
            row = conn.execute(stmt).first()
    return None if row is None else _operation(row)


def running(engine: Engine) -> list[str]:
    """The RUNNING operations' ids, oldest first (the worker's queue)."""
    stmt = (
        select(_C.operation_id)
        .where(_C.status == RUNNING)
        .order_by(_C.created_at_ms, _C.operation_id)
    )
    with engine.connect() as conn:
        return [str(r[0]) for r in conn.execute(stmt)]


def advance(
    engine: Engine, operation_id: str, position: str, rows_written: int, file_mark: int
) -> bool:
    """Record where a running export stands; False when it is no longer RUNNING."""
    stmt = (
        update(export_operations)
        .where(_C.operation_id == operation_id, _C.status == RUNNING)
        .values(
            position=position,
            rows_written=rows_written,
            file_mark=file_mark,
            updated_at_ms=_now_ms(),
        )
    )
    with engine.begin() as conn:
        return conn.execute(stmt).rowcount == 1


def finish(
    engine: Engine,
    operation_id: str,
    status: str,
    *,
    code: str | None = None,
    message: str | None = None,
) -> bool:
    """Move a RUNNING operation to COMPLETED or FAILED (with the spec's code and a message)."""
    stmt = (
        update(export_operations)
        .where(_C.operation_id == operation_id, _C.status == RUNNING)
        .values(status=status, code=code, message=message, updated_at_ms=_now_ms())
    )
    with engine.begin() as conn:
        return conn.execute(stmt).rowcount == 1
