"""`avadata serve --workers N` and `--read-db`, run as a user runs them: N processes answer on
one port with the same page tokens; a read database at another schema revision than --db
stops serve at start, with one line and exit 2."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from avadata.store.migrate import HEAD
from tests.api.synthetic import CHAIN_ID
from tests.e2e.test_cli_errors import avadata, free_port, one_line

BLOCKS = f"/v1/chains/{CHAIN_ID}/blocks"


def _serve(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "avadata", "serve", "--no-nft-worker", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "AVADATA_PAGE_TOKEN_SECRET": ""},
    )


def _up(proc: subprocess.Popen[str], base: str) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(base + "/healthz", timeout=2)
            return
        except httpx.TransportError:
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            assert time.monotonic() < deadline, "server did not come up"
            time.sleep(0.2)


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[subprocess.Popen[str], str]]:
    args: tuple[str, ...] = request.param(request)
    port = free_port()
    proc = _serve(*args, "--port", str(port))
    base = f"http://127.0.0.1:{port}"
    try:
        _up(proc, base)
        yield proc, base
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def _walk_on_fresh_connections(base: str, pages: int) -> list[int]:
    """Block numbers of `pages` pages of 2, each request on a new connection (so the kernel
    may hand it to any process), following nextPageToken."""
    numbers: list[int] = []
    token = None
    for _ in range(pages):
        params = {"pageSize": 2, **({"pageToken": token} if token else {})}
        with httpx.Client() as c:
            body = c.get(base + BLOCKS, params=params).json()
        numbers += [int(b["blockNumber"]) for b in body["blocks"]]
        token = body["nextPageToken"]
    return numbers


def _workers_sqlite(request: pytest.FixtureRequest) -> tuple[str, ...]:
    return ("--db", request.getfixturevalue("store")[0], "--workers", "2")


def _workers_pg_with_replica(request: pytest.FixtureRequest) -> tuple[str, ...]:
    url = request.getfixturevalue("pg_store")
    # The writer's own database stands in for a replica: same data, same revision.
    return ("--db", url, "--read-db", url, "--workers", "2")


@pytest.mark.parametrize(
    "served",
    [
        pytest.param(_workers_sqlite, id="sqlite"),
        pytest.param(_workers_pg_with_replica, id="postgres", marks=pytest.mark.postgres),
    ],
    indirect=True,
)
def test_workers_share_the_port_and_the_page_tokens(served, client) -> None:
    proc, base = served
    deadline = time.monotonic() + 30
    while len(_api_processes(proc.pid)) < 2:  # uvicorn starts them one after another
        assert time.monotonic() < deadline, _api_processes(proc.pid)
        time.sleep(0.2)
    walked = _walk_on_fresh_connections(base, 6)
    expected = [
        int(b["blockNumber"]) for b in client.get(BLOCKS, params={"pageSize": 12}).json()["blocks"]
    ]
    assert walked == expected


def _api_processes(parent: int) -> list[psutil.Process]:
    """The serve parent's worker processes (multiprocessing's spawn children that serve)."""
    kids = psutil.Process(parent).children()
    return [k for k in kids if "spawn_main" in " ".join(k.cmdline())]


def test_a_read_db_at_another_revision_stops_serve(store, tmp_path: Path) -> None:
    replica = tmp_path / "replica.db"
    shutil.copyfile(store[0].removeprefix("sqlite:///"), replica)
    with sqlite3.connect(replica) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '20261125_0011'")
    result = avadata(
        "serve", "--db", store[0], "--read-db", f"sqlite:///{replica}", "--port", str(free_port())
    )
    err = one_line(result, 2, "--read-db", "20261125_0011", HEAD, "replica")
    assert str(replica) in err


def test_a_read_db_holding_no_store_stops_serve(store, tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    result = avadata(
        "serve", "--db", store[0], "--read-db", f"sqlite:///{empty}", "--port", str(free_port())
    )
    one_line(result, 2, "--read-db", "no store")
