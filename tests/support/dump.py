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


def assert_same_rows(
    got: dict[str, list[tuple[object, ...]]], want: dict[str, list[tuple[object, ...]]]
) -> None:
    """Table by table, with the first differing rows in the message."""
    for name in sorted(set(got) | set(want)):
        a, b = got.get(name, []), set(want.get(name, []))
        if a != want.get(name, []):
            extra = [r for r in a if r not in b][:3]
            missing = [r for r in want.get(name, []) if r not in set(a)][:3]
            raise AssertionError(
                f"table {name}: {len(a)} rows vs {len(b)} expected; "
                f"unexpected {extra}; missing {missing}"
            )
