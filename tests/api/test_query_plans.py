"""Every list query is an index range scan: no full scan of a chain table, no sort in a temp
B-tree, no OFFSET (checked with SQLite's EXPLAIN QUERY PLAN, and PostgreSQL's EXPLAIN, on the
statements the routes run, page 2 included, so the keyset condition is in the plan)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import event

from avadata.api.app import create_app
from avadata.settings import Settings
from avadata.store.engine import make_reader_engine
from avadata.store.types import Engine
from tests.api.http import TestClient
from tests.api.routes import LISTS
from tests.api.synthetic import CHAIN_ID

_SMALL_TABLES = ("chains", "api_keys", "api_secrets", "tokens")


def _statements(url: str, path: str) -> tuple[Engine, list[tuple[str, Any]]]:
    """A reader engine on `url` and the SELECTs the route at `path` sent for its second page
    (the keyset condition in them) with their parameters."""
    engine = make_reader_engine(url)
    seen: list[tuple[str, Any]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _capture(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    app = create_app(Settings(db_url=url, page_token_secret="plans-secret-0123"), engine=engine)
    with TestClient(app) as c:
        first = c.get(path, params={"pageSize": 1}).json()
        assert "nextPageToken" in first, path
        seen.clear()
        second = c.get(path, params={"pageSize": 1, "pageToken": first["nextPageToken"]})
        assert second.status_code == 200
    assert seen
    return engine, seen


@pytest.mark.parametrize("path,key,limit", LISTS)
def test_list_queries_use_index_ranges(store, path: str, key: str, limit: int) -> None:
    engine, seen = _statements(store[0], path)
    with engine.connect() as conn:
        for sql, params in seen:
            assert " OFFSET " not in sql.upper() or "OFFSET ?" in sql and params[-1] == 0
            plan = [str(r[3]) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, params)]
            for step in plan:
                assert "TEMP B-TREE" not in step, (path, sql, plan)
                if step.startswith("SCAN "):
                    table = step.split()[1]
                    assert table in _SMALL_TABLES, (path, sql, plan)
    engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("path,key,limit", LISTS)
def test_postgres_list_queries_use_index_ranges(
    pg_store: str, path: str, key: str, limit: int
) -> None:
    """PostgreSQL's planner, asked to avoid sequential scans and sorts (a test store is so
    small that scanning it is cheapest): each list's plan reads an index range in the page's
    order. A node it cannot avoid stays in the plan, so a Seq Scan or Sort left over a chain
    table means no index serves that query. The partitioned tables' leaves (a few blocks each,
    beside an empty chain's) are read for the listed chain only: partition pruning."""
    engine, seen = _statements(pg_store, path)
    with engine.connect() as conn:
        conn.exec_driver_sql("SET enable_seqscan = off")
        conn.exec_driver_sql("SET enable_sort = off")
        for sql, params in seen:
            assert " OFFSET " not in sql.upper(), (path, sql)
            plan = [str(r[0]) for r in conn.exec_driver_sql("EXPLAIN " + sql, params)]
            assert _pg_full_reads(plan) == [], (path, sql, "\n".join(plan))
            chains = {int(c) for c in re.findall(r"\b\w+_c(\d+)_b\d+\b", "\n".join(plan))}
            assert chains <= {CHAIN_ID}, (path, "partitions not pruned", "\n".join(plan))
    engine.dispose()


def _pg_full_reads(plan: list[str]) -> list[str]:
    """The plan lines that scan a whole chain table, or sort rows that are not bounded: a
    sort is fine over a small table's rows, or over index ranges each cut by a LIMIT of its
    own (a UNION ALL's arms, address_txs)."""
    bad = []
    for i, line in enumerate(plan):
        scan = re.search(r"Seq Scan on (\w+)", line)
        index = re.search(r"Index (?:Only )?Scan(?: Backward)? using \w+ on (\w+)", line)
        if scan and scan.group(1) not in _SMALL_TABLES:
            bad.append(line)
        elif index and index.group(1) not in _SMALL_TABLES and i + 1 < len(plan):
            # A merge join reads each input in order: one bounded by the chain alone reads
            # the chain from its newest row down to the page (the test store being tiny, a
            # lone index scan with a filter is only the planner avoiding a Seq Scan).
            merged = any("Merge Join" in x for x in plan[:i])
            if merged and re.fullmatch(r"\s*Index Cond: \(chain_id = [^()]*\)", plan[i + 1]):
                bad.append(line)
        elif re.search(r"\b(Sort|Incremental Sort)\b", line) and "Sort Key" not in line:
            below = plan[i + 1 :]
            scans = [x for x in below if re.search(r"\bScan\b", x) and "Subquery" not in x]
            limits = [x for x in below if "->  Limit" in x]
            small = any(f" on {t}" in " ".join(below) for t in _SMALL_TABLES)
            if not small and len(limits) < len(scans):
                bad.append(line)
    return bad


def test_pg_full_read_detection() -> None:
    assert _pg_full_reads(["Limit", "  ->  Seq Scan on evm_txs"]) != []
    assert _pg_full_reads(["Limit", "  ->  Sort", "    Sort Key: x", "  ->  Index Scan"]) != []
    assert _pg_full_reads(["Limit", "  ->  Index Scan Backward using evm_txs_pkey"]) == []
    bounded = ["Limit", "  ->  Sort", "    ->  Append", "      ->  Limit", "        ->  Index Scan"]
    assert _pg_full_reads(bounded) == []
    merge = [
        "  ->  Merge Join",
        "    ->  Index Scan Backward using pk_token_transfers on token_transfers",
        "        Index Cond: (chain_id = '43112'::bigint)",
    ]
    assert _pg_full_reads(merge) != []


@pytest.mark.postgres
@pytest.mark.parametrize(
    "path,joined",
    [
        (p, "token_transfers" if p.endswith("listErc20") else "internal_calls")
        for p, _, _ in LISTS
        if p.endswith(("transactions:listErc20", "transactions:listInternals"))
    ],
)
def test_postgres_pages_bound_the_joined_rows_too(pg_store: str, path: str, joined: str) -> None:
    """A list joining a participants table to its rows bounds both by the page on
    PostgreSQL: on a large store its planner merge-joins them, and a merge join reads the
    rows' table from the chain's newest row down to the page unless that input is bounded
    itself (a deep page of the bench's hot address read 44,000 rows for 11)."""
    engine, seen = _statements(pg_store, path)
    engine.dispose()
    (sql,) = [q for q, _ in seen if f"JOIN {joined}" in q]
    assert f"({joined}.block_number, {joined}." in sql, sql
