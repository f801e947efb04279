"""The export worker: every running export operation, from the store to its file, in batches,
resumable.

Stage: exports (hosted by `avadata serve`, like delivery/; so `avadata up` runs it too). One
thread, its own read-only engine for the rows and a writer engine for the operations' rows.
Operations run one at a time, oldest first.

Invariants:
- the stored position, row count and file mark move together, and only after the file's rows
  up to them are durable (files.py), at most `settings.export_checkpoint_s` apart: a crash
  (kill -9 included) or a stop resumes at the stored position, and the file then holds every
  row once;
- an export's end is fixed in its plan (an EVM chain's indexed head when it was created), so it
  ends; it is never cut short: every row of the plan is written;
- memory is bounded: one batch of rows (`settings.export_batch_rows`) and, for Parquet, the
  rows since the last mark.
"""

from __future__ import annotations

import logging
import threading
import time

from avadata.exports import files
from avadata.exports.columns import SETS
from avadata.exports.plan import Part, Plan, Position
from avadata.settings import Settings
from avadata.store.exports import jobs, reads
from avadata.store.exports.reads import Batch
from avadata.store.types import Engine

log = logging.getLogger(__name__)

# A Parquet export marks at least this often in rows (its unmarked rows are held in memory).
_PARQUET_PART_ROWS = 200_000
# Failures in a row (the store unreachable, say; waits double from export_poll_s between
# them) before an operation is given up as FAILED.
_ATTEMPTS = 8


class _Stopped(Exception):
    """The worker was asked to stop, or the operation is no longer running."""


class ExportWorker:
    def __init__(self, engine: Engine, writer: Engine, settings: Settings) -> None:
        # Rows are read through `engine` (read-only: on SQLite a writer's every transaction
        # takes the write lock); positions move through `writer`.
        self.engine = engine
        self.writer = writer
        self.settings = settings
        self.directory = files.exports_dir(settings)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failures: dict[str, int] = {}

    def start(self) -> None:
        self._thread = threading.Thread(target=self._main, name="avadata-exports", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _main(self) -> None:
        while not self._stop.is_set():
            try:
                queue = jobs.running(self.engine)
                for operation_id in queue:
                    if self._stop.is_set():
                        return
                    self._attempt(operation_id)
            except Exception:
                log.exception("exports: cannot read or write the store")
                queue = []
            if not queue:
                self._stop.wait(self.settings.export_poll_s)

    def _attempt(self, operation_id: str) -> None:
        """Run one operation; a failure is retried (from the stored position) after a growing
        wait, and the operation given up as FAILED only after `_ATTEMPTS` failures in a row
        with no mark between them."""
        try:
            self.run(operation_id)
            self._failures.pop(operation_id, None)
        except _Stopped:
            pass
        except files.LostFile as exc:
            self._fail(operation_id, str(exc))
        except Exception as exc:
            log.exception("export %s failed", operation_id)
            n = self._failures[operation_id] = self._failures.get(operation_id, 0) + 1
            if n >= _ATTEMPTS:
                self._fail(operation_id, f"failed {n} times; last: {type(exc).__name__}: {exc}")
            else:
                self._stop.wait(self.settings.export_poll_s * 2**n)

    def _fail(self, operation_id: str, message: str) -> None:
        self._failures.pop(operation_id, None)
        jobs.finish(self.writer, operation_id, jobs.FAILED, code="ErrInternal", message=message)

    def run(self, operation_id: str) -> None:
        """Write one operation's file from its stored position to its end, and complete it."""
        op = jobs.get(self.engine, None, operation_id)
        if op is None or op.status != jobs.RUNNING:
            return
        plan = Plan.from_json(op.plan)
        if files.final_path(self.directory, operation_id, plan.format).exists():
            # Renamed complete before the completion reached the store (a crash in between).
            files.discard_leftovers(self.directory, operation_id, plan.format)
            jobs.finish(self.writer, operation_id, jobs.COMPLETED)
            return
        columns = SETS[plan.columns]
        sink = files.open_sink(plan.format, self.directory, operation_id, columns, op.file_mark)
        try:
            at, rows = Position.from_json(op.position), op.rows_written
            marked = time.monotonic()
            while at.part < len(plan.parts):
                part = plan.parts[at.part]
                batch = self._batch(plan, part, at.after)
                sink.write(columns.values(batch.rows, part.label))
                rows += len(batch.rows)
                at = Position(at.part + 1) if batch.done else Position(at.part, batch.after)
                if self._stop.is_set() or self._due(plan, sink, marked):
                    self._mark(operation_id, sink, at, rows)
                    marked = time.monotonic()
                if self._stop.is_set():
                    raise _Stopped
            self._mark(operation_id, sink, at, rows)
            sink.finish()
        finally:
            sink.close()
        jobs.finish(self.writer, operation_id, jobs.COMPLETED)

    def _due(self, plan: Plan, sink: files.Sink, marked: float) -> bool:
        if plan.format == "parquet" and sink.pending() >= _PARQUET_PART_ROWS:
            return True
        return time.monotonic() - marked >= self.settings.export_checkpoint_s

    def _mark(self, operation_id: str, sink: files.Sink, at: Position, rows: int) -> None:
        if not jobs.advance(self.writer, operation_id, at.to_json(), rows, sink.mark()):
            raise _Stopped  # no longer running (nothing else moves a running operation)
        self._failures.pop(operation_id, None)  # it moves: earlier failures no longer count

    def _batch(self, plan: Plan, part: Part, after: tuple[int, ...] | None) -> Batch:
        limit = self.settings.export_batch_rows
        with self.engine.connect() as conn:
            if plan.family == "primary":
                times = (part.first, part.last)
                return reads.primary_batch(
                    conn, part.chain, part.addresses, times, plan.tx_types, after, limit
                )
            chain_id = int(part.chain)
            if part.first is None or part.last is None:
                return Batch([], after, True)  # nothing indexed when it was planned
            if part.addresses:
                bounds = (part.first, part.last)
                return reads.evm_address_batch(conn, chain_id, part.addresses, bounds, after, limit)
            return reads.evm_chain_batch(conn, chain_id, part.first, part.last, after, limit)
