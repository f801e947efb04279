"""Route bodies on PostgreSQL run on the event loop in greenlets (store/loop_readers.py). The
truths: the thread a body ran on against the loop's own, the server's own clock (pg_sleep)
against the wall clock, the server's backend pid of each connection, and what a ticker on the
same loop managed to do while the bodies waited."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from avadata.api.app import create_app
from avadata.api.deps import AppState, on_store, read_conn
from avadata.settings import Settings
from avadata.store.dialect import read_concurrency, read_rows
from avadata.store.loop_readers import LoopReaders

pytestmark = [pytest.mark.postgres]

_REQUEST: contextvars.ContextVar[str] = contextvars.ContextVar("request", default="none")


@pytest.fixture
def st(pg_store: str) -> Iterator[AppState]:
    app = create_app(Settings(db_url=pg_store, page_token_secret="test-secret-0123456789"))
    state: AppState = app.state.avadata
    assert isinstance(state.readers, LoopReaders) and not state.inline
    yield state


@on_store
def _sleep(st: AppState, seconds: float, out: list[tuple[int, int, str]]) -> None:
    with read_conn(st) as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        conn.execute(text("SELECT pg_sleep(:s)"), {"s": seconds}).all()
        out.append((threading.get_ident(), pid, _REQUEST.get()))


@on_store
def _pid(st: AppState, nested: bool = False) -> tuple[int, ...]:
    with read_conn(st) as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
        if not nested:
            return (pid,)
        with read_conn(st) as inner:
            return pid, inner.execute(text("SELECT pg_backend_pid()")).scalar_one()


@on_store
def _fail(st: AppState) -> None:
    with read_conn(st) as conn:
        conn.execute(text("SELECT 1 / 0")).all()


def test_bodies_wait_for_the_server_without_holding_the_loop(st: AppState) -> None:
    seen: list[tuple[int, int, str]] = []
    ticks: list[float] = []

    async def ticker(until: float) -> None:
        while time.monotonic() < until:
            ticks.append(time.monotonic())
            await asyncio.sleep(0.01)

    async def requests() -> float:
        _REQUEST.set("r1")
        start = time.monotonic()
        await asyncio.gather(
            *(_sleep(st=st, seconds=0.5, out=seen) for _ in range(4)), ticker(start + 0.4)
        )
        took = time.monotonic() - start
        await st.readers.stop()
        return took

    took = asyncio.run(requests())
    # Four half-second sleeps on four connections at once: about half a second, not two.
    assert took < 1.5, took
    assert {t for t, _, _ in seen} == {threading.get_ident()}  # the loop's own thread
    assert len({pid for _, pid, _ in seen}) == 4
    assert {r for *_, r in seen} == {"r1"}  # the caller's context
    assert len(ticks) >= 10  # the loop went on meanwhile


def test_a_connection_is_kept_between_bodies_and_nested_uses_get_their_own(
    st: AppState,
) -> None:
    async def requests() -> list[tuple[int, ...]]:
        pids = [await _pid(st=st) for _ in range(5)]
        pids.append(await _pid(st=st, nested=True))
        assert st.readers.open_count() >= 1
        await st.readers.stop()
        assert st.readers.open_count() == 0
        return pids

    pids = asyncio.run(requests())
    assert len({p for (p,) in pids[:5]}) == 1  # one after another: one connection
    outer, inner = pids[5]
    assert outer == pids[0][0] and inner != outer


def test_a_failed_or_cancelled_body_does_not_hand_its_connection_out_again(
    st: AppState,
) -> None:
    async def requests() -> tuple[int, int, int, int]:
        first = (await _pid(st=st))[0]
        with pytest.raises(DBAPIError, match="division by zero"):
            await _fail(st=st)
        after_error = (await _pid(st=st))[0]
        cut = asyncio.ensure_future(_sleep(st=st, seconds=5, out=[]))
        await asyncio.sleep(0.3)
        cut.cancel()
        start = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await cut
        cancelled_in = time.monotonic() - start
        after_cancel = (await _pid(st=st))[0]
        await st.readers.stop()
        return first, after_error, after_cancel, int(cancelled_in * 1000)

    first, after_error, after_cancel, cancelled_ms = asyncio.run(requests())
    assert after_error != first  # the erring connection was dropped
    assert after_cancel != after_error  # so was the one cut off mid-statement
    assert cancelled_ms < 2000


def test_at_most_count_bodies_run_at_once(st: AppState) -> None:
    count = read_concurrency(st.engine)
    seen: list[tuple[int, int, str]] = []

    async def many() -> float:
        start = time.monotonic()
        await asyncio.gather(*(_sleep(st=st, seconds=0.3, out=seen) for _ in range(2 * count)))
        took = time.monotonic() - start
        await st.readers.stop()
        return took

    took = asyncio.run(many())
    assert len(seen) == 2 * count
    assert len({pid for _, pid, _ in seen}) <= count
    assert took >= 0.6  # two rounds of `count`, not one of 16


def test_a_new_event_loop_gets_connections_of_its_own(st: AppState) -> None:
    """An async engine's connections belong to the loop they were made on (a test client runs
    a loop per client): a body on another loop gets a new connection, and the old loop's kept
    one is closed (its server process gone), not leaked."""
    (first,) = asyncio.run(_pid(st=st))  # not stopped: its connection stays kept

    async def on_a_second_loop() -> int:
        (pid,) = await _pid(st=st)
        await st.readers.stop()
        return pid

    second = asyncio.run(on_a_second_loop())
    assert second != first
    with st.engine.connect() as conn:
        alive = conn.execute(
            text("SELECT count(*) FROM pg_stat_activity WHERE pid = :p"), {"p": first}
        ).scalar_one()
    assert alive == 0


def _terminate(st: AppState, pid: int) -> None:
    with st.engine.connect() as conn:  # another connection: the server's own kill
        assert conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar_one()


def test_a_kept_connection_the_server_closed_costs_no_request(st: AppState) -> None:
    """A server restart or an idle timeout closes the connections kept between bodies: the next
    body on one runs again on a new connection (it only reads) instead of failing its request.
    A statement's own error is not retried."""

    async def requests() -> tuple[int, int]:
        (first,) = await _pid(st=st)
        _terminate(st, first)
        (second,) = await _pid(st=st)  # on the kept, now dead, connection first
        with pytest.raises(DBAPIError, match="division by zero"):
            await _fail(st=st)
        await st.readers.stop()
        return first, second

    first, second = asyncio.run(requests())
    assert second != first


_PID = select(func.pg_backend_pid().label("pid"))


@on_store
def _driver_pid(st: AppState) -> int:
    """The backend pid through read_rows, the routes' path straight to the driver."""
    with read_conn(st) as conn:
        return int(read_rows(conn, _PID, {})[1][0][0])


def test_the_driver_path_is_retried_alike(st: AppState) -> None:
    async def requests() -> tuple[int, int]:
        first = await _driver_pid(st=st)
        _terminate(st, first)
        second = await _driver_pid(st=st)
        await st.readers.stop()
        return first, second

    first, second = asyncio.run(requests())
    assert second != first
