"""The devnet node's persisted Index API: an append-only SQLite file in the data dir.

Stage: devnet. Holds, per index (C/block, P/block, X/tx, X/block, X/vtx), every container the
node accepted while indexing was on, as avalanchego's indexer does: (index, ID, bytes,
acceptance time in unix ns), numbered from 0 in acceptance order. The same file holds the
indexer's flags (avalanchego's hasRun / previouslyIndexed / isIncomplete) and the simulators'
state, so that one SQLite transaction commits a round of accepted containers together with
the state that produced them: a kill -9 at any point leaves an index that is whole and
continuous, and a restart resumes from exactly the state that index reflects.

Invariants: containers are never updated or deleted (triggers refuse it); within an index,
`idx` runs 0..n-1 without gaps and an ID appears once (accepting an indexed ID is a no-op).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from avadata.devnet.primary.containers import INDEXES, Container

CHAINS = ("C", "P", "X")  # avalanchego keeps the indexer flags per chain
_SCHEMA = """
CREATE TABLE IF NOT EXISTS containers (
    index_name TEXT NOT NULL,
    idx INTEGER NOT NULL,
    id BLOB NOT NULL,
    bytes BLOB NOT NULL,
    accepted_ns INTEGER NOT NULL,
    PRIMARY KEY (index_name, idx)
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS containers_by_id ON containers (index_name, id);
CREATE TRIGGER IF NOT EXISTS containers_no_update BEFORE UPDATE ON containers
BEGIN SELECT RAISE(ABORT, 'the index is append-only'); END;
CREATE TRIGGER IF NOT EXISTS containers_no_delete BEFORE DELETE ON containers
BEGIN SELECT RAISE(ABORT, 'the index is append-only'); END;
CREATE TABLE IF NOT EXISTS index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS node_state (id INTEGER PRIMARY KEY CHECK (id = 1), blob BLOB NOT NULL);
"""
# What avalanchego's indexer logs before it shuts the node down (indexer/indexer.go).
INCOMPLETE_WOULD_BE_CREATED = (
    "running would cause index to become incomplete but incomplete indices are disabled"
)
INCOMPLETE_REFUSED = "index is incomplete but incomplete indices are disabled. Shutting down"


class IndexConfigError(RuntimeError):
    """The index flags forbid starting (rule 5 and avalanchego's incomplete-index checks)."""


@dataclass(frozen=True, slots=True)
class StoredContainer:
    index: int
    id: bytes
    bytes: bytes
    accepted_ns: int


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=30, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA journal_mode = WAL")  # readers (the facade) never block the writer
    conn.execute("PRAGMA synchronous = FULL")  # a committed round survives a power cut too
    return conn


class IndexStore:
    """One SQLite file. Writes come from one thread (the node's producer); reads from any."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._write = _connect(path)
        self._write.executescript(_SCHEMA)
        self._read = _connect(path)
        self._read_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._counts = {name: self._count(name) for name in INDEXES}

    def close(self) -> None:
        with self._write_lock, self._read_lock:
            self._write.close()
            self._read.close()

    # -- flags (indexing rules 1, 2 and 5) ------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        row = self._write.execute("SELECT value FROM index_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def check_flags(self, enabled: bool, allow_incomplete: bool) -> None:
        """avalanchego's RegisterChain checks, per chain, then marks this run. Raises
        IndexConfigError (and marks nothing) when the node must refuse to start."""
        has_run = self._meta("has_run") == "1"
        marks: list[tuple[str, str]] = [("has_run", "1")]
        for chain in CHAINS:
            previously = self._meta(f"previously_indexed/{chain}") == "1"
            incomplete = self._meta(f"incomplete/{chain}") == "1"
            if not enabled:
                if previously and not allow_incomplete:
                    raise IndexConfigError(f"{INCOMPLETE_WOULD_BE_CREATED} (chain {chain})")
                marks.append((f"incomplete/{chain}", "1"))
            else:
                if not allow_incomplete and incomplete and (previously or has_run):
                    raise IndexConfigError(f"{INCOMPLETE_REFUSED} (chain {chain})")
                marks.append((f"previously_indexed/{chain}", "1"))
        with self._write_lock:
            self._write.execute("BEGIN IMMEDIATE")
            self._write.executemany(
                "INSERT INTO index_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                marks,
            )
            self._write.execute("COMMIT")

    def is_incomplete(self, chain: str) -> bool:
        with self._write_lock:
            return self._meta(f"incomplete/{chain}") == "1"

    def get_meta(self, key: str) -> str | None:
        with self._write_lock:
            return self._meta(key)

    def set_meta(self, key: str, value: str) -> None:
        with self._write_lock:
            self._write.execute(
                "INSERT INTO index_meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- writing --------------------------------------------------------------------------------

    def commit(self, containers: Iterable[Container], state: bytes | None, index: bool) -> int:
        """Append `containers` (when `index`: indexing is on) and replace the saved state, in
        one transaction. Returns how many containers were appended."""
        appended = 0
        with self._write_lock:
            conn = self._write
            counts = dict(self._counts)
            conn.execute("BEGIN IMMEDIATE")
            try:
                if index:
                    for c in containers:
                        seen = conn.execute(
                            "SELECT 1 FROM containers WHERE index_name = ? AND id = ?",
                            (c.index, c.id),
                        ).fetchone()
                        if seen is not None:
                            continue  # avalanchego: accepting an indexed container is a no-op
                        conn.execute(
                            "INSERT INTO containers VALUES (?, ?, ?, ?, ?)",
                            (c.index, counts[c.index], c.id, c.bytes, c.accepted_ns),
                        )
                        counts[c.index] += 1
                        appended += 1
                if state is not None:
                    conn.execute(
                        "INSERT INTO node_state (id, blob) VALUES (1, ?) "
                        "ON CONFLICT (id) DO UPDATE SET blob = excluded.blob",
                        (state,),
                    )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            self._counts = counts
        return appended

    def load_state(self) -> bytes | None:
        with self._write_lock:
            row = self._write.execute("SELECT blob FROM node_state WHERE id = 1").fetchone()
        return None if row is None else bytes(row[0])

    # -- reading --------------------------------------------------------------------------------

    def _count(self, name: str) -> int:
        row = self._write.execute(
            "SELECT COALESCE(MAX(idx) + 1, 0) FROM containers WHERE index_name = ?", (name,)
        ).fetchone()
        return int(row[0])

    def count(self, name: str) -> int:
        """Containers in `name` as committed (what readers see)."""
        with self._read_lock:
            row = self._read.execute(
                "SELECT COALESCE(MAX(idx) + 1, 0) FROM containers WHERE index_name = ?", (name,)
            ).fetchone()
        return int(row[0])

    def _rows(self, sql: str, args: Sequence[object]) -> list[StoredContainer]:
        with self._read_lock:
            rows = self._read.execute(sql, args).fetchall()
        return [StoredContainer(int(r[0]), bytes(r[1]), bytes(r[2]), int(r[3])) for r in rows]

    def by_index(self, name: str, idx: int) -> StoredContainer | None:
        rows = self._rows(
            "SELECT idx, id, bytes, accepted_ns FROM containers WHERE index_name = ? AND idx = ?",
            (name, idx),
        )
        return rows[0] if rows else None

    def by_id(self, name: str, container_id: bytes) -> StoredContainer | None:
        rows = self._rows(
            "SELECT idx, id, bytes, accepted_ns FROM containers WHERE index_name = ? AND id = ?",
            (name, container_id),
        )
        return rows[0] if rows else None

    def range(self, name: str, start: int, count: int) -> list[StoredContainer]:
        return self._rows(
            "SELECT idx, id, bytes, accepted_ns FROM containers "
            "WHERE index_name = ? AND idx >= ? AND idx < ? ORDER BY idx",
            (name, start, start + count),
        )

    def last(self, name: str) -> StoredContainer | None:
        rows = self._rows(
            "SELECT idx, id, bytes, accepted_ns FROM containers WHERE index_name = ? "
            "ORDER BY idx DESC LIMIT 1",
            (name,),
        )
        return rows[0] if rows else None
