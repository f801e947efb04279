"""Every row of every table, in primary-key order: what 'the same rows' means in the tests."""

from __future__ import annotations

from sqlalchemy import Engine, select

from avadata.store import schema

# Columns that record where or when we indexed, not what the chain holds.
VOLATILE = {("chains", "rpc_url")}


def dump(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    out: dict[str, list[tuple[object, ...]]] = {}
    with engine.connect() as conn:
        for table in schema.metadata.sorted_tables:
            cols = [c for c in table.columns if (table.name, c.name) not in VOLATILE]
            order = list(table.primary_key.columns) or cols
            out[table.name] = [tuple(r) for r in conn.execute(select(*cols).order_by(*order))]
    return out
