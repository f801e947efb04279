"""Every row of every table, in primary-key order: what 'the same rows' means in the tests."""

from __future__ import annotations

from sqlalchemy import Engine, select

from avadata.store import schema

# Columns that record where or when we indexed, not what the chain holds: the node's URL, and
# the writers' activity counters (rows handed to the store: a replayed batch counts again,
# store/metrics/rows_written.py; the node's staker snapshots taken, one per pass), whose row
# set is still compared.
VOLATILE = {
    ("chains", "rpc_url"),
    ("metric_rows_written", "rows"),
    ("primary_snapshot_counts", "taken"),
}


# A chain's identity: what `avadata index` labels a chain with (known networks, chains file,
# the node), which a library call of the indexer leaves to its caller.
IDENTITY = {
    ("chains", name)
    for name in ("name", "blockchain_id", "subnet_id", "network", "network_id", "vm_name")
    + ("token_name", "token_symbol", "token_decimals", "token_logo", "explorer_url")
}


def dump(engine: Engine, *, identity: bool = True) -> dict[str, list[tuple[object, ...]]]:
    """`identity=False`: without the chains' identity labels (to compare a store the command
    line wrote with one a library call wrote)."""
    skip = VOLATILE if identity else VOLATILE | IDENTITY
    out: dict[str, list[tuple[object, ...]]] = {}
    with engine.connect() as conn:
        for table in schema.metadata.sorted_tables:
            if not identity and table.name == "networks":  # the networks the labels name
                continue
            cols = [c for c in table.columns if (table.name, c.name) not in skip]
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
