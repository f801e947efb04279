"""Misconfiguration, as a user meets it: each case runs the real command (`python -m avadata`)
and checks the exit code (2 for a malformed value, 1 for the rest), that stderr is one or two
lines naming the value, and that no traceback is printed."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from avadata.devnet.evm.anvil import AnvilOptions, AnvilProcess, start_anvil
from avadata.store.migrate import HEAD
from tests.primary.test_cli_node import node  # noqa: F401  (a stub node's Index API)
from tests.support import pg_cluster as pgc

pytestmark = pytest.mark.e2e

SECRET = "s3cr3t-pw"


def avadata(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "avadata", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200", **env},
    )


def one_line(result: subprocess.CompletedProcess[str], code: int, *names: str) -> str:
    """stderr, after checking the exit code, its one or two lines, `names` in it, and no
    traceback anywhere."""
    err = result.stderr
    assert result.returncode == code, (result.returncode, err, result.stdout[-2000:])
    assert "Traceback" not in err + result.stdout, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 2, err
    for name in names:
        assert name in err, (name, err)
    return err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


# --- SQLite stores ---------------------------------------------------------------------------


def test_a_store_folder_that_does_not_exist(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/no/such/dir/a.db"
    for verb in (["serve", "--port", str(free_port())], ["metrics", "rebuild"], ["keys", "list"]):
        one_line(avadata(*verb, "--db", db), 1, f"{tmp_path}/no/such/dir", "does not exist")
    assert not (tmp_path / "no").exists()


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n" * 20)
    db = f"sqlite:///{text}"
    dead = f"http://127.0.0.1:{free_port()}"
    one_line(avadata("index", "--rpc", dead, "--db", db, "--once"), 1, str(text), "not an SQLite")
    one_line(avadata("serve", "--db", db, "--port", str(free_port())), 1, str(text))
    assert text.read_text().startswith("root:")  # untouched


def test_serve_refuses_a_file_holding_no_store(tmp_path: Path) -> None:
    empty, missing = tmp_path / "empty.db", tmp_path / "missing.db"
    empty.touch()
    for path in (empty, missing):
        err = one_line(
            avadata("serve", "--db", f"sqlite:///{path}", "--port", str(free_port())),
            1,
            str(path),
            "avadata index",
            "--create",
        )
        assert "holds no store" in err
    assert empty.stat().st_size == 0
    assert not missing.exists()


def test_serve_create_starts_an_empty_store(tmp_path: Path) -> None:
    port, path = free_port(), tmp_path / "new.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "avadata", "serve", "--db", f"sqlite:///{path}", "--port", str(port)]
        + ["--create"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                resp = httpx.get(f"http://127.0.0.1:{port}/v1/chains", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert resp.status_code == 200
        assert resp.json()["chains"] == []
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)


def _stamp(path: Path, revision: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = ?", (revision,))


def test_a_store_of_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    assert avadata("keys", "list", "--db", f"sqlite:///{path}").returncode == 0  # a new store
    newer = "29991231_9999"
    assert newer > HEAD
    _stamp(path, newer)
    db = f"sqlite:///{path}"
    for verb in (["serve", "--port", str(free_port())], ["metrics", "rebuild"], ["keys", "list"]):
        one_line(avadata(*verb, "--db", db), 1, newer, HEAD, "upgrade avadata")
    dead = f"http://127.0.0.1:{free_port()}"
    one_line(avadata("index", "--rpc", dead, "--db", db, "--once"), 1, newer)


def test_a_database_of_someone_else(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    one_line(avadata("keys", "list", "--db", f"sqlite:///{path}"), 1, "no avadata store")
    with sqlite3.connect(path) as conn:  # nothing of ours was added
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert names == ["notes"]


def test_a_db_value_that_is_no_url() -> None:
    one_line(avadata("keys", "list", "--db", "nonsense"), 2, "nonsense", "sqlite:///")


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path}/no/such/dir/a.db"
    for result in (
        avadata("metrics", "rebuild", "--db", db, "--debug"),
        avadata("metrics", "rebuild", "--db", db, AVADATA_DEBUG="1"),
    ):
        assert result.returncode == 1
        assert "Traceback" in result.stderr
        assert "StoreError" in result.stderr


# --- PostgreSQL ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Iterator[pgc.PgCluster]:
    assert pgc.available(), "PostgreSQL 15 binaries (initdb, pg_ctl) not found"
    c = pgc.PgCluster().start()
    try:
        yield c
    finally:
        c.stop()


@pytest.mark.postgres
def test_a_postgres_database_that_does_not_exist(cluster: pgc.PgCluster) -> None:
    # Trust authentication ignores the password: the server answers, the database is missing.
    db = f"postgresql://{cluster.user}:{SECRET}@127.0.0.1:{cluster.port}/nosuchdb"
    for verb in (["serve", "--port", str(free_port())], ["metrics", "rebuild"], ["keys", "list"]):
        err = one_line(avadata(*verb, "--db", db), 1, "nosuchdb", "createdb", "***")
        assert SECRET not in err


@pytest.mark.postgres
def test_a_postgres_database_holding_no_store(cluster: pgc.PgCluster) -> None:
    name = cluster.create_database()
    db = f"postgresql://{cluster.user}:{SECRET}@127.0.0.1:{cluster.port}/{name}"
    err = one_line(avadata("serve", "--db", db, "--port", str(free_port())), 1, name, "--create")
    assert SECRET not in err


@pytest.mark.postgres
def test_a_postgres_server_that_does_not_answer() -> None:
    port = free_port()  # nothing listens there
    db = f"postgresql://avadata:{SECRET}@127.0.0.1:{port}/avadata"
    dead = f"http://127.0.0.1:{free_port()}"
    for verb in (["serve", "--port", str(free_port())], ["index", "--rpc", dead, "--once"]):
        err = one_line(avadata(*verb, "--db", db), 1, f"127.0.0.1:{port}", "does not answer")
        assert SECRET not in err


def test_the_benches_check_their_stores_before_any_work() -> None:
    """A bench's store that cannot be used stops it at once (before the ingest bench's chain
    build, the API bench's store build), in one line, the password masked."""
    dead = f"postgresql://avadata:{SECRET}@127.0.0.1:{free_port()}/avadata"
    cases = [
        (["bench", "ingest", "--db", "mysql://x/y"], 2, "mysql://x/y"),
        (["bench", "ingest", "--db", dead], 1, "does not answer"),
        (["bench", "api", "--txs", "10", "--vs-db", dead], 1, "--vs-db"),
    ]
    for args, code, name in cases:
        result = avadata(*args, "--no-write-docs", timeout=60)
        err = one_line(result, code, name)
        assert SECRET not in err and "building" not in err


# --- ports -----------------------------------------------------------------------------------


def test_serve_on_a_taken_port(tmp_path: Path, taken_port: int) -> None:
    path = tmp_path / "a.db"
    args = ("serve", "--db", f"sqlite:///{path}", "--create", "--port", str(taken_port))
    one_line(avadata(*args), 1, str(taken_port), "--port", "in use")
    assert not path.exists()  # checked before any work


def _left_behind(mark: str) -> list[psutil.Process]:
    """Processes still running whose environment carries `mark` (the command's descendants,
    whoever adopted them: other tests' anvils may run on this machine meanwhile)."""
    found = []
    for p in psutil.process_iter():
        try:
            if p.environ().get("AVADATA_TEST_MARK") == mark:
                found.append(p)
        except (psutil.AccessDenied, psutil.NoSuchProcess, psutil.ZombieProcess):
            pass
    return found


@pytest.mark.parametrize("which", ["--port", "--node-port"])
def test_up_checks_its_ports_before_any_work(tmp_path: Path, taken_port: int, which: str) -> None:
    mark = uuid.uuid4().hex
    ports = {"--port": str(free_port()), "--node-port": str(free_port()), which: str(taken_port)}
    args = ["up", "--data-dir", str(tmp_path / "data"), *[x for kv in ports.items() for x in kv]]
    one_line(avadata(*args, timeout=60, AVADATA_TEST_MARK=mark), 1, str(taken_port), which)
    assert not (tmp_path / "data").exists()
    assert _left_behind(mark) == []


def test_devnet_on_a_taken_port(taken_port: int) -> None:
    mark = uuid.uuid4().hex
    args = ("devnet", "--port", str(taken_port))
    one_line(avadata(*args, timeout=60, AVADATA_TEST_MARK=mark), 1, str(taken_port))
    assert _left_behind(mark) == []


# --- nodes -----------------------------------------------------------------------------------


def test_a_node_url_that_does_not_answer(tmp_path: Path) -> None:
    dead = f"http://127.0.0.1:{free_port()}/ext/bc/C/rpc"
    err = one_line(
        avadata("index", "--rpc", dead, "--db", f"sqlite:///{tmp_path / 'a.db'}", "--once"),
        1,
        dead,
    )
    assert "is the node running" in err


def _anvil(genesis: int, blocks: int) -> AnvilProcess:
    anvil = start_anvil(AnvilOptions(chain_id=777, genesis_timestamp=genesis))
    _mine(anvil, blocks)
    return anvil


def _mine(anvil: AnvilProcess, blocks: int) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "anvil_mine", "params": [hex(blocks)]}
    httpx.post(anvil.rpc_url, json=body, timeout=30).raise_for_status()


def test_a_node_that_is_not_the_chain_the_store_holds(tmp_path: Path) -> None:
    """Two anvils with the same chain ID and different histories (genesis times): the store
    of the first refuses the second, behind it or past it."""
    db = f"sqlite:///{tmp_path / 'a.db'}"
    first = _anvil(1_700_000_000, 20)
    try:
        assert avadata("index", "--rpc", first.rpc_url, "--db", db, "--once").returncode == 0
    finally:
        first.stop()
    other = _anvil(1_710_000_000, 5)
    try:
        one_line(
            avadata("index", "--rpc", other.rpc_url, "--db", db, "--once"),
            1,
            other.rpc_url,
            "block 5",
            "up to 20",
        )
        _mine(other, 30)
        one_line(
            avadata("index", "--rpc", other.rpc_url, "--db", db, "--once"),
            1,
            other.rpc_url,
            "not the chain this store holds",
        )
    finally:
        other.stop()


def test_a_primary_node_that_is_not_the_one_the_store_holds(node: str, tmp_path: Path) -> None:  # noqa: F811
    """An Index API that ends below the store's cursor (the store moved 100 containers past
    the stub's 12 P-chain blocks): another node's, refused."""
    path = tmp_path / "p.db"
    db = f"sqlite:///{path}"
    assert avadata("index", "--node", node, "--db", db, "--once").returncode == 0
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE primary_cursors SET container_index = container_index + 100")
    one_line(avadata("index", "--node", node, "--db", db, "--once"), 1, node, "up to 111")


def test_up_stops_every_child_when_one_fails(tmp_path: Path) -> None:
    """A child dying under `up` (the server, killed): `up` says which, stops the rest with
    their own clean-up (the indexer's fetch processes: no leaked semaphores; no traceback),
    and leaves no process behind, the devnet's anvils included."""
    api, node_port, mark = free_port(), free_port(), uuid.uuid4().hex
    args = ["up", "--data-dir", str(tmp_path), "--port", str(api), "--node-port", str(node_port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "avadata", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "AVADATA_TEST_MARK": mark},
    )
    children: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{api}/v1/chains", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        children = psutil.Process(proc.pid).children(recursive=True)
        assert any(c.name().startswith("anvil") for c in children)
        serve = next(c for c in psutil.Process(proc.pid).children() if "serve" in c.cmdline())
        serve.kill()
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err
    assert "`avadata serve` exited with code -9; stopped the rest" in err, err
    assert "Traceback" not in err, err
    assert "leaked" not in err, err
    gone, alive = psutil.wait_procs(children, timeout=30)
    assert not alive, [p.cmdline() for p in alive]
    assert _left_behind(mark) == []


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("index",), ("--db", "avadata index --help")),
        (("index", "--db"), ("--db",)),
        (("serve", "--db", "sqlite:///x.db", "--port", "eighty"), ("--port",)),
        (("decode", "tx", "--chain", "q", "00"), ("--chain",)),
        (("nosuch",), ("nosuch", "avadata --help")),
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(args: tuple[str, ...], names: tuple[str, ...]):
    """click's own errors (a missing option, a malformed value, an unknown verb) are usage
    errors: one line naming the option, no boxed panel, exit 2."""
    err = one_line(avadata(*args), 2, *names)
    assert "╭" not in err and "Usage:" not in err, err
