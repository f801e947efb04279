"""Where a store-bound route body runs: on the event loop for SQLite (no worker-thread hop), in
a reader thread when told not to run inline (PostgreSQL's greenlets: test_loop_readers.py).
The truth is the thread the body actually ran on, against the loop's own thread."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from sqlalchemy import Connection, Engine, select

from avadata.api import deps, readers
from avadata.api.app import create_app
from avadata.api.deps import AppState, on_store, read_conn
from avadata.settings import Settings
from avadata.store.dialect import read_concurrency
from avadata.store.engine import make_engine
from avadata.store.migrate import migrate
from avadata.store.schema import chains
from tests.api.http import TestClient


@on_store
def _body(st: AppState, seen: list[int]) -> str:
    seen.append(threading.get_ident())
    return "done"


async def _run(st: AppState, seen: list[int]) -> int:
    assert await _body(st=st, seen=seen) == "done"
    return threading.get_ident()


@pytest.mark.parametrize("inline", [True, False])
def test_body_runs_inline_only_when_told(store: tuple[str, object], inline: bool) -> None:
    app = create_app(Settings(db_url=store[0], page_token_secret="test-secret-0123456789"))
    st = dataclasses.replace(app.state.avadata, inline=inline)
    seen: list[int] = []
    loop_thread = asyncio.run(_run(st, seen))
    assert (seen == [loop_thread]) is inline


def test_sqlite_store_runs_inline(store: tuple[str, object]) -> None:
    app = create_app(Settings(db_url=store[0], page_token_secret="test-secret-0123456789"))
    assert app.state.avadata.inline


def test_a_route_without_state_is_a_programming_error() -> None:
    @on_store
    def stateless(x: int) -> int:
        return x

    with pytest.raises(TypeError, match="State parameter"):
        asyncio.run(stateless(x=1))


# The loop's connection (LoopConnection): inline bodies take turns on one connection, each
# turn its own read transaction; everyone else gets a connection of their own.


@on_store
def _connections(st: AppState, out: list[Connection], nested: bool = False) -> None:
    with read_conn(st) as conn:
        conn.execute(select(chains.c.chain_id)).all()  # a read transaction is open
        out.append(conn)
        if nested:
            with read_conn(st) as inner:
                out.append(inner)


def test_inline_bodies_share_one_connection_and_each_ends_its_transaction(
    store: tuple[str, object],
) -> None:
    app = create_app(Settings(db_url=store[0], page_token_secret="test-secret-0123456789"))
    st: AppState = app.state.avadata
    seen: list[Connection] = []

    async def two_requests() -> None:
        await _connections(st=st, out=seen)
        await _connections(st=st, out=seen)

    asyncio.run(two_requests())
    assert seen[0] is seen[1]
    assert not seen[0].in_transaction()  # rolled back after each body: the next sees new commits
    st.loop.close()
    assert seen[0].closed


def test_a_nested_or_threaded_use_gets_a_connection_of_its_own(
    store: tuple[str, object],
) -> None:
    app = create_app(Settings(db_url=store[0], page_token_secret="test-secret-0123456789"))
    st: AppState = app.state.avadata
    seen: list[Connection] = []
    asyncio.run(_connections(st=st, out=seen, nested=True))
    outer, inner = seen
    assert inner is not outer and inner.closed and not outer.closed
    # Outside an inline body (here, a plain call from a thread), always one's own.
    with read_conn(st) as own:
        assert own is not outer
    # In a reader thread: the thread's own kept connection, not the loop's.
    threaded = dataclasses.replace(st, inline=False)
    asyncio.run(_connections(st=threaded, out=seen))
    assert seen[-1] is not outer
    st.readers.close()
    assert seen[-1].closed  # a stopped reader hands its connection back
    st.loop.close()


@pytest.fixture
def empty(tmp_path: Path) -> Iterator[tuple[Engine, FastAPI]]:
    """A writer on an empty SQLite store and the app serving it."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    writer = make_engine(url)
    migrate(writer)
    try:
        yield writer, create_app(Settings(db_url=url, page_token_secret="test-secret-0123456789"))
    finally:
        writer.dispose()


def _add_chain_seven(writer: Engine) -> None:
    with writer.begin() as conn:
        conn.execute(chains.insert().values(chain_id=7, name="seven", blockchain_id="b7"))


def test_a_request_sees_what_was_committed_before_it(empty: tuple[Engine, FastAPI]) -> None:
    writer, app = empty
    with TestClient(app) as client:
        assert client.get("/v1/chains/7").status_code == 404
        _add_chain_seven(writer)
        assert client.get("/v1/chains/7").json()["chainId"] == "7"
    assert app.state.avadata.loop.open_count() == 0  # closed at shutdown


def test_a_new_chain_is_listed_once_the_list_expires(
    empty: tuple[Engine, FastAPI], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chain list is kept per process for `list_ttl_s` (a statement fewer per list request);
    the new chain's own path serves it at once, the lists show it once the kept list expires."""
    monkeypatch.setattr(deps._ChainCache, "list_ttl_s", 0.3)
    writer, app = empty
    with TestClient(app) as client:
        assert client.get("/v1/chains").json()["chains"] == []
        _add_chain_seven(writer)
        assert client.get("/v1/chains/7").status_code == 200
        assert client.get("/v1/chains").json()["chains"] == []  # the kept list
        time.sleep(0.35)
        assert [c["chainId"] for c in client.get("/v1/chains").json()["chains"]] == ["7"]
        assert client.get("/v1/blocks").status_code == 200


# The reader threads (api/readers.py), where bodies run on SQLite when told not to run inline.

_REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="none")


@on_store
def _reader_body(st: AppState, out: list[tuple[int, Connection, bool, str]]) -> int:
    with read_conn(st) as conn:
        conn.execute(select(chains.c.chain_id)).all()
        out.append((threading.get_ident(), conn, conn.in_transaction(), _REQUEST.get()))
    return len(out)


@on_store
def _failing_body(st: AppState) -> None:
    raise LookupError("from the reader thread")


def _threaded(store: tuple[str, object]) -> AppState:
    app = create_app(Settings(db_url=store[0], page_token_secret="test-secret-0123456789"))
    return dataclasses.replace(app.state.avadata, inline=False)


def test_reader_threads_keep_their_connection_and_carry_context_and_errors(
    store: tuple[str, object],
) -> None:
    st = _threaded(store)
    seen: list[tuple[int, Connection, bool, str]] = []

    async def requests() -> None:
        _REQUEST.set("r1")
        for _ in range(20):  # one after another: any reader may take each
            await _reader_body(st=st, out=seen)
        with pytest.raises(LookupError, match="reader thread"):
            await _failing_body(st=st)

    asyncio.run(requests())
    loop_thread = threading.get_ident()  # asyncio.run's loop runs on this thread
    threads = {t for t, *_ in seen}
    assert loop_thread not in threads and len(threads) <= read_concurrency(st.engine)
    by_thread = {t: {id(c) for tt, c, *_ in seen if tt == t} for t in threads}
    assert all(len(conns) == 1 for conns in by_thread.values())  # kept across requests
    assert all(in_tx for *_, in_tx, _ in seen) and {r for *_, r in seen} == {"r1"}
    assert not any(c.in_transaction() for _, c, *_ in seen)  # each turn ended its transaction
    assert st.loop.open_count() >= 1
    st.readers.close()
    assert st.loop.open_count() == 0 and all(c.closed for _, c, *_ in seen)


def test_reader_threads_run_at_most_their_count_at_once(store: tuple[str, object]) -> None:
    st = _threaded(store)
    count = read_concurrency(st.engine)
    running, peak, lock = [0], [0], threading.Lock()
    gate = threading.Event()

    @on_store
    def body(st: AppState) -> None:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            if running[0] == count:
                gate.set()
        gate.wait(5)
        with lock:
            running[0] -= 1

    async def many() -> None:
        await asyncio.gather(*(body(st=st) for _ in range(3 * count)))

    asyncio.run(many())
    st.readers.close()
    assert peak[0] == count


def test_an_idle_reader_hands_its_connection_back(
    store: tuple[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(readers, "_KEEP_IDLE_S", 0.01)
    st = _threaded(store)
    asyncio.run(_reader_body(st=st, out=[]))
    deadline = time.monotonic() + 5
    while st.loop.open_count() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert st.loop.open_count() == 0
    st.readers.close()
