"""The delivery worker in a process of its own, started, watched and stopped by the command that
hosts it (`avadata serve`, a following `avadata index`).

Stage: delivery. Why a process: the deliveries of a thousand webhooks can take a core, and
ingest matters more (a message waits in the store, safe; a block cannot be read before it is
indexed). In a process of its own the worker runs at `webhook_nice` below its host and the
indexer, so when cores are short it gets what they leave, and as fast as ever when cores are
free; and it shares no interpreter lock with the API or the writer (a niced thread would hold
their lock while the kernel keeps it waiting).

Invariants: the child dies with its host (kill -9 included), as a thread would, and a Ctrl-C
reaches the host only, which stops the child (its acknowledged positions written: worker.py);
a child that exits on its own is started again; the host reads the child's POST counts
(/metrics) from shared memory.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from typing import Any

from avadata.child_processes import die_with_parent, ignore_ctrl_c, nice_at_least
from avadata.settings import Settings

log = logging.getLogger(__name__)

OUTCOMES = ("acknowledged", "failed", "refused")
# How often the child publishes its counts, and how soon it sees the host's stop.
_TICK_S = 0.5
# A child that exited on its own is started again after this long, twice as long after each
# child that lived less than _RESTART_CAP_S (one that cannot start), at most that long.
_RESTART_S = 1.0
_RESTART_CAP_S = 30.0
_CTX = multiprocessing.get_context("spawn")


class DeliveryHost:
    def __init__(self, settings: Settings, *, defer_s: float = 0.0) -> None:
        """`defer_s`: as `DeliveryWorker`'s (a following `index` leaves the lease to a
        `serve` on the same store)."""
        self.settings = settings
        self.defer_s = defer_s
        self._counts: Any = _CTX.Array("q", len(OUTCOMES), lock=False)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._process: Any = None
        self._stop_pipe: Any = None
        self._watcher: threading.Thread | None = None

    def start(self) -> None:
        """Start the child from the calling thread (the host's main thread: the child dies
        when the thread that started it ends), and a thread that starts it again if it exits
        on its own."""
        self._spawn()
        self._watcher = threading.Thread(target=self._watch, name="avadata-delivery-watch")
        self._watcher.daemon = True
        self._watcher.start()

    def counts(self) -> dict[str, int]:
        """Messages POSTed since the host started, by outcome (sender.py)."""
        return dict(zip(OUTCOMES, self._counts[:], strict=True))

    @property
    def pid(self) -> int | None:
        return None if self._process is None else int(self._process.pid)

    def stop(self, timeout: float = 10.0) -> None:
        """Ask the child to stop (it writes what was acknowledged and leaves the lease), then
        SIGTERM it if it has not within `timeout`."""
        with self._lock:
            self._stopping.set()
            process, pipe = self._process, self._stop_pipe
        if process is None:
            return
        pipe.close()  # the child sees the end of the pipe
        process.join(timeout)
        if process.is_alive():
            process.terminate()
            process.join(timeout)

    def _spawn(self) -> None:
        with self._lock:
            if self._stopping.is_set():
                return
            stop_read, stop_write = _CTX.Pipe(duplex=False)
            args = (os.getpid(), self.settings, self.defer_s, self._counts, stop_read)
            process = _CTX.Process(target=_entry, args=args, name="avadata-delivery", daemon=True)
            process.start()
            stop_read.close()  # only the child reads it: its end of file is the host's stop
            self._process, self._stop_pipe = process, stop_write

    def _watch(self) -> None:
        wait = _RESTART_S / 2
        while not self._stopping.is_set():
            process, started = self._process, time.monotonic()
            process.join()
            lived = time.monotonic() - started
            wait = _RESTART_S if lived >= _RESTART_CAP_S else min(_RESTART_CAP_S, wait * 2)
            if self._stopping.wait(wait):
                return
            code = process.exitcode
            log.warning("webhook delivery: its process exited (%s); starting it again", code)
            self._stop_pipe.close()
            self._spawn()


def _entry(parent: int, settings: Settings, defer_s: float, counts: Any, stop: Any) -> None:
    die_with_parent(parent)
    ignore_ctrl_c()
    nice_at_least(settings.webhook_nice)
    from avadata.delivery.worker import DeliveryWorker
    from avadata.store.engine import make_engine

    db = settings.db_url
    worker = DeliveryWorker(
        make_engine(db, read_only=True), make_engine(db), settings, defer_s=defer_s
    )
    base = counts[:]  # a child started again adds to what its predecessors counted
    worker.start()
    try:
        while not stop.poll(_TICK_S):
            _publish(counts, base, worker.counts())
    finally:
        worker.stop()
        _publish(counts, base, worker.counts())


def _publish(counts: Any, base: list[int], now: dict[str, int]) -> None:
    counts[:] = [b + now[o] for b, o in zip(base, OUTCOMES, strict=True)]
