"""Every list query is an index range scan: no full scan of a chain table, no sort in a temp
B-tree, no OFFSET (checked with SQLite's EXPLAIN QUERY PLAN on the statements the routes run,
page 2 included, so the keyset condition is in the plan)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

from avadata.api.app import create_app
from avadata.settings import Settings
from avadata.store.engine import make_reader_engine
from tests.api.http import TestClient
from tests.api.routes import LISTS

_SMALL_TABLES = ("chains", "api_keys", "api_secrets", "tokens")


@pytest.mark.parametrize("path,key,limit", LISTS)
def test_list_queries_use_index_ranges(store, path: str, key: str, limit: int) -> None:
    engine = make_reader_engine(store[0])
    seen: list[tuple[str, Any]] = []

    @event.listens_for(engine, "before_cursor_execute")
    def _capture(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            seen.append((statement, parameters))

    app = create_app(
        Settings(db_url=store[0], page_token_secret="plans-secret-0123"), engine=engine
    )
    with TestClient(app) as c:
        first = c.get(path, params={"pageSize": 1}).json()
        assert "nextPageToken" in first, path
        seen.clear()
        assert (
            c.get(path, params={"pageSize": 1, "pageToken": first["nextPageToken"]}).status_code
            == 200
        )
    assert seen
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
