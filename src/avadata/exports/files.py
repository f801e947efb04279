"""Where export files live and how they are written so that an export can resume.

Stage: exports. Files are written under `<data dir>/exports/` only, named by the server from
the operation's ID (a UUID it made), never from anything a request sent. A file is written
as `<id>.<ext>.partial` and renamed to `<id>.<ext>` when complete: only a complete file is
ever served.

Resuming: a sink's `mark()` makes what was written durable and returns the mark the worker
stores with its position (the same transaction). Reopened with that mark, a sink drops
whatever was written after it, so the file holds exactly the rows before the stored position.
- CSV: one file, appended to; the mark is its size in bytes (a resumed file is truncated
  there).
- Parquet: a file is only readable once its footer is written, so the rows go to numbered part
  files (one per mark) and `finish()` streams them, part by part, into the one file; the mark is
  the number of parts.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from avadata.errors import AvadataError
from avadata.exports.columns import Columns, Values
from avadata.settings import Settings

MEDIA_TYPES = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class LostFile(AvadataError):
    """The partial file an export would resume is gone or shorter than its stored mark."""


def data_dir(settings: Settings) -> Path:
    """The data directory: `settings.data_dir`, else the SQLite store's folder, else
    ./avadata-data (a PostgreSQL store has no folder of its own)."""
    if settings.data_dir is not None:
        return settings.data_dir
    url = settings.db_url
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url.removeprefix("sqlite:///")).resolve().parent
    return Path("avadata-data").resolve()


def exports_dir(settings: Settings) -> Path:
    return data_dir(settings) / "exports"


def final_path(directory: Path, operation_id: str, fmt: str) -> Path:
    """The complete file of an operation (its ID must be one the server made)."""
    if not _UUID.match(operation_id) or fmt not in MEDIA_TYPES:
        raise ValueError(f"not an export file: {operation_id!r}, {fmt!r}")
    return directory / f"{operation_id}.{fmt}"


class Sink(Protocol):
    def write(self, values: Sequence[Values]) -> None: ...

    def pending(self) -> int:
        """Rows written since the last mark."""
        ...

    def mark(self) -> int: ...

    def finish(self) -> Path: ...

    def close(self) -> None: ...


class CsvSink:
    def __init__(self, directory: Path, operation_id: str, columns: Columns, mark: int) -> None:
        self.final = final_path(directory, operation_id, "csv")
        self.path = self.final.with_name(self.final.name + ".partial")
        if mark:
            if not self.path.exists() or self.path.stat().st_size < mark:
                raise LostFile(f"{self.path} is gone or shorter than its {mark} bytes written")
            os.truncate(self.path, mark)
        # Write-only, appending: each batch is formatted in memory and written in one call.
        self._raw = open(self.path, "ab" if mark else "wb")  # noqa: SIM115 (kept open)
        self._pending = 0
        if mark == 0:
            self._put([columns.names])

    def _put(self, values: Sequence[Sequence[Any]]) -> None:
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(values)
        self._raw.write(text.getvalue().encode())

    def write(self, values: Sequence[Values]) -> None:
        self._put(values)
        self._pending += len(values)

    def pending(self) -> int:
        return self._pending

    def mark(self) -> int:
        self._raw.flush()
        os.fsync(self._raw.fileno())
        self._pending = 0
        return self._raw.tell()

    def finish(self) -> Path:
        self.mark()
        self.close()
        os.replace(self.path, self.final)
        return self.final

    def close(self) -> None:
        if not self._raw.closed:
            self._raw.close()


class ParquetSink:
    def __init__(self, directory: Path, operation_id: str, columns: Columns, mark: int) -> None:
        import pyarrow as pa

        self.final = final_path(directory, operation_id, "parquet")
        self.parts = self.final.with_name(self.final.name + ".parts")
        self.parts.mkdir(exist_ok=True)
        for stale in self.parts.iterdir():
            if not stale.name.endswith(".parquet") or int(stale.name.split(".")[0]) >= mark:
                stale.unlink()
        if len(list(self.parts.iterdir())) != mark:
            raise LostFile(f"{self.parts} holds fewer than its {mark} parts written")
        types = {"int": pa.int64(), "str": pa.string(), "u256": pa.string()}
        pairs = zip(columns.names, columns.kinds, strict=True)
        self._schema = pa.schema([(n, types[k]) for n, k in pairs])
        self._kinds = columns.kinds
        self._count = mark
        self._tables: list[Any] = []
        self._pending = 0

    def _part(self, n: int) -> Path:
        return self.parts / f"{n:06d}.parquet"

    def write(self, values: Sequence[Values]) -> None:
        import pyarrow as pa

        if not values:
            return
        arrays = []
        for i, column in enumerate(zip(*values, strict=True)):
            if self._kinds[i] == "u256":
                column = tuple(None if v is None else str(v) for v in column)
            arrays.append(pa.array(column, type=self._schema.field(i).type))
        self._tables.append(pa.Table.from_arrays(arrays, schema=self._schema))
        self._pending += len(values)

    def pending(self) -> int:
        return self._pending

    def mark(self) -> int:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._tables:
            tmp = self.parts / f"{self._count:06d}.tmp"
            pq.write_table(pa.concat_tables(self._tables), tmp)
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, self._part(self._count))
            self._count += 1
            self._tables, self._pending = [], 0
        return self._count

    def finish(self) -> Path:
        import pyarrow.parquet as pq

        self.mark()
        partial = self.final.with_name(self.final.name + ".partial")
        with pq.ParquetWriter(partial, self._schema) as out:
            if self._count == 0:
                out.write_table(self._schema.empty_table())
            for n in range(self._count):  # one part in memory at a time
                out.write_table(pq.read_table(self._part(n), schema=self._schema))
        os.replace(partial, self.final)
        shutil.rmtree(self.parts)
        return self.final

    def close(self) -> None:
        self._tables = []


def discard_leftovers(directory: Path, operation_id: str, fmt: str) -> None:
    """Remove what writing a now complete file left (a crash after its rename)."""
    final = final_path(directory, operation_id, fmt)
    final.with_name(final.name + ".partial").unlink(missing_ok=True)
    shutil.rmtree(final.with_name(final.name + ".parts"), ignore_errors=True)


def open_sink(
    fmt: str, directory: Path, operation_id: str, columns: Columns, mark: int
) -> CsvSink | ParquetSink:
    directory.mkdir(parents=True, exist_ok=True)
    if fmt == "parquet":
        return ParquetSink(directory, operation_id, columns, mark)
    return CsvSink(directory, operation_id, columns, mark)
