"""A throwaway PostgreSQL 15 cluster for tests, from the installed binaries.

`PgCluster.start()` runs initdb into a temporary directory, starts `postgres` on a free
loopback port with its unix socket inside that directory, and `stop()` removes everything.
PostgreSQL refuses to run as root: when the tests run as root, the server runs as an
unprivileged system user (`avadata-pg`, created if absent) through `runuser`.

Use the session fixture `pg_cluster` (tests/store/conftest.py) rather than this class directly:
it is `shared()`, the process's one cluster, whichever conftest or module names the fixture.
initdb runs once per process: each later cluster starts on a copy of that data directory.
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

PG_USER = "avadata-pg"
_BIN_DIRS = ("/usr/lib/postgresql/15/bin", "/usr/local/bin")


def find_pg_bin(name: str) -> str | None:
    """Path of a PostgreSQL server binary (initdb, pg_ctl, postgres), or None if not installed."""
    for d in _BIN_DIRS:
        p = Path(d) / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return shutil.which(name)


def available() -> bool:
    return all(find_pg_bin(n) for n in ("initdb", "pg_ctl", "postgres"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ensure_os_user() -> str:
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
            check=True,
            capture_output=True,
        )
    return PG_USER


_template: Path | None = None
_shared: PgCluster | None = None


def _initdb_once(cluster: PgCluster) -> Path:
    """A data directory initdb made for this process (the cluster's superuser, trust, UTF8, C),
    made on first use: initdb is most of a cluster's start, a copy of its output a fraction."""
    global _template
    if _template is not None and _template.is_dir():
        return _template
    initdb = find_pg_bin("initdb")
    assert initdb, "PostgreSQL 15 binaries not found"
    root = Path(tempfile.mkdtemp(prefix="avadata-pg-initdb-"))
    atexit.register(shutil.rmtree, root, True)
    if cluster.run_as is not None:
        pw = pwd.getpwnam(cluster.run_as)
        os.chown(root, pw.pw_uid, pw.pw_gid)
    args = [initdb, "-D", str(root / "data"), "-U", cluster.user, "--auth=trust"]
    # --no-sync: a throwaway cluster needs no durability.
    args += ["--encoding=UTF8", "--locale=C", "--no-sync"]
    subprocess.run(cluster._cmd(args), check=True, capture_output=True)
    _template = root / "data"
    return _template


def shared() -> PgCluster:
    """The process's one cluster, started on first use and stopped at exit, for every test that
    needs only databases of its own (`create_database`), not a server of its own."""
    global _shared
    if _shared is None or not _shared._started:
        _shared = PgCluster().start()
    return _shared


class PgCluster:
    """One running cluster; `url(dbname)` gives a postgresql:// URL over TCP on 127.0.0.1."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="avadata-pg-"))
        self.data = self.root / "data"
        self.sock = self.root / "sock"
        self.port = _free_port()
        self.run_as: str | None = _ensure_os_user() if os.geteuid() == 0 else None
        # The cluster's superuser name, whatever OS user runs the server.
        self.user = "avadata"
        self._started = False

    def _cmd(self, args: list[str]) -> list[str]:
        if self.run_as is None:
            return args
        return ["runuser", "-u", self.run_as, "--", *args]

    def start(self) -> PgCluster:
        try:
            self.sock.mkdir()
            if self.run_as is not None:
                pw = pwd.getpwnam(self.run_as)
                for p in (self.root, self.sock):
                    os.chown(p, pw.pw_uid, pw.pw_gid)
            pg_ctl = find_pg_bin("pg_ctl")
            assert pg_ctl, "PostgreSQL 15 binaries not found"
            # cp -a keeps the owner and the 0700 mode the server insists on.
            template = _initdb_once(self)
            subprocess.run(["cp", "-a", str(template), str(self.data)], check=True)
            # Test-only settings: fsync off and small shared memory make a cluster start fast.
            opts = (
                f"-p {self.port} -k {self.sock} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c max_connections=100 -c shared_buffers=64MB"
            )
            subprocess.run(
                self._cmd(
                    [
                        pg_ctl,
                        "-D",
                        str(self.data),
                        "-o",
                        opts,
                        "-l",
                        str(self.root / "server.log"),
                        "-w",
                        "-t",
                        "60",
                        "start",
                    ]
                ),
                check=True,
                capture_output=True,
            )
            self._started = True
            # Backstop for exits that skip fixture teardown (an interrupted session, say).
            atexit.register(self.stop)
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(self.dsn("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def dsn(self, dbname: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={self.user} dbname={dbname}"

    def url(self, dbname: str) -> str:
        """A URL in the form users pass to avadata (postgresql://, mapped to psycopg 3)."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, name: str | None = None, *, template: str | None = None) -> str:
        """Create a database (empty, or a copy of `template`); returns its name."""
        name = name or f"t_{uuid.uuid4().hex[:16]}"
        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}'.encode())
        return name

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())

    def stop(self) -> None:
        """Stop the server (fast mode) and delete the cluster; safe to call twice."""
        pg_ctl = find_pg_bin("pg_ctl")
        if self._started and pg_ctl:
            subprocess.run(
                self._cmd([pg_ctl, "-D", str(self.data), "-m", "immediate", "-w", "stop"]),
                capture_output=True,
                check=False,
            )
            self._started = False
        shutil.rmtree(self.root, ignore_errors=True)
        atexit.unregister(self.stop)

    def __enter__(self) -> PgCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
