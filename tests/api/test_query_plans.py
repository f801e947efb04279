"""Every list query is an index range scan: no full scan of a chain table, no sort in a temp
B-tree, no OFFSET (checked with SQLite's EXPLAIN QUERY PLAN, and PostgreSQL's EXPLAIN, on the
statements the routes run, page 2 included, so the keyset condition is in the plan)."""

from __future__ import annotations

import re
from typing import Any

import psycopg
import pytest
from sqlalchemy import event

from avadata.api.app import create_app
from avadata.settings import Settings
from avadata.store.engine import make_reader_engine
from avadata.store.schema import evm_txs, token_transfers
from avadata.store.types import Engine
from tests.api.http import TestClient
from tests.api.routes import LISTS
from tests.api.synthetic import CAROL, CHAIN_ID

_SMALL_TABLES = ("chains", "api_keys", "api_secrets", "tokens")


def _statements(url: str, path: str) -> tuple[Engine, list[tuple[str, Any]]]:
    """A reader engine on `url` and the SELECTs the route at `path` sent for its second page
    (the keyset condition in them) with their parameters."""
    engine = make_reader_engine(url)
    seen: list[tuple[str, Any]] = []
    # PostgreSQL's statements with a CTE too (an address's transactions with their details,
    # the balance pages' recursive probes): the keyset and index checks hold for them there.
    reads = ("SELECT", "WITH") if url.startswith("postgresql") else ("SELECT",)

    def _capture(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith(reads):
            seen.append((statement, parameters))

    # Every engine's: on PostgreSQL the route bodies read through an async engine of their own
    # (store/loop_readers.py).
    event.listen(Engine, "before_cursor_execute", _capture)
    try:
        app = create_app(Settings(db_url=url, page_token_secret="plans-secret-0123"), engine=engine)
        with TestClient(app) as c:
            first = c.get(path, params={"pageSize": 1}).json()
            assert "nextPageToken" in first, path
            seen.clear()
            second = c.get(path, params={"pageSize": 1, "pageToken": first["nextPageToken"]})
            assert second.status_code == 200
    finally:
        event.remove(Engine, "before_cursor_execute", _capture)
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
                # A SELECT without FROM (the head and native balance, one row of scalar
                # subqueries) scans a constant row, not a table.
                if step.startswith("SCAN ") and step != "SCAN CONSTANT ROW":
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
    beside an empty chain's) are read for the listed chain only: partition pruning.

    Both plans a reader session runs: the custom one of a statement's first executions on a
    connection, and the generic one once psycopg has prepared it (dialect.READER_SETTINGS:
    made once per connection, not planned anew at each request over every leaf), whose
    leaves are pruned at run time from the parameters; neither with parallel workers or JIT."""
    engine, sent = _statements(pg_store, path)
    seen = list(sent)  # the engine goes on recording: the probes' own SELECTs are not the route's
    with engine.connect() as conn:
        settings = dict(conn.exec_driver_sql("SELECT name, setting FROM pg_settings").all())
        assert settings["plan_cache_mode"] == "force_generic_plan"
        assert (settings["jit"], settings["max_parallel_workers_per_gather"]) == ("off", "0")
        conn.exec_driver_sql("SET enable_seqscan = off")
        conn.exec_driver_sql("SET enable_sort = off")
        for sql, params in seen:
            # No paging by OFFSET; "OFFSET 0" is a fence for the planner (tx_detail).
            assert not re.search(r"\bOFFSET (?!0\))", sql.upper()), (path, sql)
            custom = [str(r[0]) for r in conn.exec_driver_sql("EXPLAIN " + sql, params)]
            generic = _generic_plan(conn, sql, params)
            assert "$1" in "\n".join(generic) or "%(" not in sql, (path, "not generic", generic)
            for plan in (custom, generic):
                text = "\n".join(plan)
                assert _pg_full_reads(plan) == [], (path, sql, text)
                assert not re.search(r"\b(Gather|JIT)\b", text), (path, text)
                chains = {int(c) for c in re.findall(r"\b\w+_c(\d+)_b\d+\b", text)}
                assert chains <= {CHAIN_ID}, (path, "partitions not pruned", text)
    engine.dispose()


def _generic_plan(conn: Any, sql: str, params: Any) -> list[str]:
    """EXPLAIN of `sql` (psycopg's %(name)s parameters) prepared on the server and executed
    with `params` under the session's plan_cache_mode (the reader's: generic)."""
    names: list[str] = []
    for name in re.findall(r"%\((\w+)\)s", sql):
        if name not in names:
            names.append(name)
    numbered = re.sub(r"%\((\w+)\)s", lambda m: f"${names.index(m.group(1)) + 1}", sql)
    conn.exec_driver_sql("DEALLOCATE ALL")
    conn.exec_driver_sql("PREPARE plan_probe AS " + numbered.replace("%%", "%"))
    # EXECUTE takes no server-side parameters: the values go in as literals.
    quote = psycopg.ClientCursor(conn.connection.driver_connection).mogrify
    values = ", ".join(quote("%s", (params[name],)) for name in names)
    run = f"EXPLAIN EXECUTE plan_probe({values})" if names else "EXPLAIN EXECUTE plan_probe"
    return [str(r[0]) for r in conn.exec_driver_sql(run)]


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


# listTransactions and listTransactionsV2: a page's transactions, then their transfers and
# internal calls (one statement, store/queries/tx_detail.py).
_DETAILED = [p for p, _, _ in LISTS if p.endswith("/transactions") and "/addresses/" in p]
_DETAILED += [p.replace("/v1/", "/v2/", 1) for p in _DETAILED]
_DETAIL_TABLES = ("token_transfers", "internal_calls")


def _read_table(sql: str) -> str:
    """The table a SELECT reads first ("" when it names none)."""
    found = re.search(r"\bFROM\s+(\w+)", sql)
    return found.group(1) if found else ""


def _page_and_details(
    conn: Any, seen: list[tuple[str, Any]]
) -> tuple[set[tuple[int, int]], list[tuple[str, Any]]]:
    """The page's transactions (its own statement run again: pageSize=1 and the row past it,
    a self-transfer's two copies counted once) and the statements that read their details."""
    (txs_sql, txs_params) = next((q, p) for q, p in seen if _read_table(q) == "evm_txs")
    keys: list[tuple[int, int]] = []
    for r in conn.exec_driver_sql(txs_sql, txs_params).mappings():
        key = (int(r["block_number"]), int(r["tx_index"]))
        if key not in keys:
            keys.append(key)
    # One statement reads both (a UNION ALL, store/queries/tx_detail.py): each arm alone.
    arms = [arm for q, p in seen for arm in _arms(q, p)]
    details = [(q, p) for q, p in arms if _read_table(q) in _DETAIL_TABLES]
    assert len(details) == 2, [q for q, _ in seen]
    return set(keys[:2]), details


def _arms(sql: str, params: Any) -> list[tuple[str, Any]]:
    """The SELECTs of a UNION ALL, each with its own parameters (by name on PostgreSQL, by
    position on SQLite)."""
    arms = sql.split(" UNION ALL ")
    if isinstance(params, dict):
        return [(a, params) for a in arms]
    out, at = [], 0
    for a in arms:
        out.append((a, params[at : at + a.count("?")]))
        at += a.count("?")
    return out


@pytest.mark.parametrize("path", _DETAILED)
def test_a_deep_pages_details_read_only_its_transactions(store, path: str) -> None:
    """A page past the first reads the transfers and internal calls of its own transactions:
    each read searches one of the page's blocks (no range of the chain, so its cost does not
    grow with the page's depth), and only the page's transactions' rows come back and are
    joined, not those of the other transactions in its blocks (a deep page straddling two
    busy blocks read and shaped both blocks' rows)."""
    engine, seen = _statements(store[0], path)
    with engine.connect() as conn:
        page, details = _page_and_details(conn, seen)
        blocks = {b for b, _ in page}
        others = 0
        for sql, params in details:
            plan = [str(r[3]) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql, params)]
            table = _read_table(sql)
            reads = [s for s in plan if s.startswith(("SEARCH", "SCAN")) and f" {table} " in s]
            assert 0 < len(reads) <= len(blocks), (path, plan)
            assert all("block_number=?" in s for s in reads), (path, plan)
            rows = conn.exec_driver_sql(sql, params).mappings().all()
            assert {(r["block_number"], r["tx_index"]) for r in rows} <= page, (path, rows)
            every = conn.exec_driver_sql(
                f"SELECT tx_index, block_number FROM {table} WHERE block_number IN "
                f"({', '.join(map(str, blocks))})"
            ).all()
            others += sum(1 for i, b in every if (b, i) not in page)
        assert others, "the page's blocks hold other transactions' rows (what is not read)"
    engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("path", _DETAILED)
def test_postgres_deep_page_details_read_only_its_transactions(pg_store: str, path: str) -> None:
    """The same on PostgreSQL, where the page and its details are one statement (the page a
    CTE, store/queries/address_txs.py), by what its executor did: each detail table is read
    through its primary key once per transaction of the page (chain, block and index: a
    nested loop over the page's keys), in the leaf of that block alone, and its rows that
    come back are the page's transactions' alone."""
    engine, seen = _statements(pg_store, path)
    found = [(q, p) for q, p in seen if q.lstrip().startswith("WITH")]
    assert len(found) == 1, [q[:60] for q, _ in seen]  # no second statement for the details
    sql, params = found[0]
    with engine.connect() as conn:
        conn.exec_driver_sql("ANALYZE token_transfers, internal_calls")
        conn.exec_driver_sql("SET enable_seqscan = off")
        (doc,) = conn.exec_driver_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, params).scalar_one()
        nodes = list(_pg_nodes(doc["Plan"]))
        rows = conn.exec_driver_sql(sql, params).all()
    engine.dispose()
    # The page's first n transactions (n: the page and the row past it), newest first.
    page = sorted({(int(r.block_number), int(r.tx_index)) for r in rows if r.arm == 0})[::-1]
    keys = set(page[: params["n"]])
    for table in _DETAIL_TABLES:
        mine = [n for n in nodes if _is_of(str(n.get("Relation Name")), table)]
        ran = [n for n in mine if n["Actual Loops"] > 0]
        assert ran, (path, table, mine)
        for read in ran:
            cond = str(read.get("Index Cond", read.get("Recheck Cond")))
            assert "block_number" in cond, (path, cond)
            assert "tx_index" in cond + str(read.get("Filter")), (path, read.get("Filter"))
        used = {str(n["Index Name"]) for n in nodes if _is_of(str(n.get("Index Name")), table)}
        assert used and all(u.endswith("_pkey") or u == f"pk_{table}" for u in used), used
        # Once per transaction of the page, in the leaf of its block alone: however deep.
        assert sum(n["Actual Loops"] for n in ran) <= len(keys), (path, ran)
    at = [1 + _WIDTH + _TRANSFER_KEYS.index(k) for k in ("block_number", "tx_index")]
    transfers = [(r[at[0]], r[at[1]]) for r in rows if r.arm == 1]
    assert transfers and set(transfers) <= keys, (path, transfers, keys)


_WIDTH = len(evm_txs.c)  # the page arm's columns, before the transfers' (queries/arms.py)
_TRANSFER_KEYS = [c.key for c in token_transfers.c]


def _is_of(relation: str, table: str) -> bool:
    """The table itself, or one of its leaves (`<table>_c<chain>...`)."""
    return relation == table or relation.startswith(f"{table}_c")


def _pg_nodes(node: dict[str, Any]) -> Any:
    yield node
    for child in node.get("Plans", ()):
        yield from _pg_nodes(child)


@pytest.mark.parametrize("kind", ["balances:listErc1155", "balances:listCollectibles"])
def test_an_erc1155_page_is_one_statement(store, kind: str) -> None:
    """The holder's ERC-1155 pairs, their balances and metadata come from one statement per
    page (a recursive CTE chaining the index probes), not three statements per pair: on
    PostgreSQL each statement is a round trip, and a page of 10 cost 33 of them."""
    engine = make_reader_engine(store[0])
    sent: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _capture(conn, cursor, statement, parameters, context, executemany) -> None:
        sent.append(statement)

    app = create_app(
        Settings(db_url=store[0], page_token_secret="plans-secret-0123"), engine=engine
    )
    path = f"/v1/chains/{CHAIN_ID}/addresses/{CAROL}/{kind}"
    with TestClient(app) as c:
        for size in (1, 10):  # a page cut short, and the holder's every pair
            sent.clear()
            body = c.get(path, params={"pageSize": size}).json()
            held = body.get("erc1155TokenBalances", body.get("collectibleBalances"))
            assert len(held) == min(size, 2), body
            reads = [sql for sql in sent if "erc1155_balances" in sql]
            assert len(reads) == 1, reads
    engine.dispose()
