"""Where a store-bound route body runs: on the event loop for SQLite (no worker-thread hop),
in a worker thread for PostgreSQL (network waits overlap). The truth is the thread the body
actually ran on, against the loop's own thread."""

from __future__ import annotations

import asyncio
import dataclasses
import threading

import pytest

from avadata.api.app import create_app
from avadata.api.deps import AppState, on_store
from avadata.settings import Settings


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
