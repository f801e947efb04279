"""What the batches a writer wrote so far left in a few tables, kept for the next batch.

Stage: store, in the writing process. Why: the writer derives some rows from the value each key
had before the batch (a holder's balance, an address's last active hour for the metrics), and
in a backfill nearly all keys a batch touches were touched by the batch before: asking the
store for them again was a good part of those rows' cost (docs/benchmarks.md).

Valid while batches come in block order, each starting right after the previous one, and while
what was written stays written: `begin` forgets a chain whose batch does not follow on (a
replay, a gap), and the owner calls `clear` when a transaction rolls back. A key not held is
read from the store as before. Bounded: past `limit` keys per table it starts over.

Rows kept one per key (an address's last active hour) may also be held back to the commit
(`defer`): a key that changes in every batch is then written once per transaction instead of
once per batch. The owner calls `write_deferred` before it commits; what is held back is
written too before this cache forgets it, and dropped with it on `clear` (a rollback).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# Writes (key, value) pairs of one name's held keys (`Carried.defer`).
Writer = Callable[[list[tuple[Any, Any]]], None]


class Carried:
    """Per chain and per name (one per table, or per scope and kind), each key's value after
    the last batch written."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self._next: dict[int, int] = {}
        self._tables: dict[tuple[int, str], dict[Any, Any]] = {}
        # Per (chain, name): the keys whose held value is not written yet, and their writer.
        self._deferred: dict[tuple[int, str], tuple[set[Any], Writer]] = {}

    def begin(self, chain_id: int, first_block: int, last_block: int) -> None:
        """A batch of `chain_id` covering first_block..last_block is about to be written."""
        if self._next.get(chain_id) != first_block:
            self._forget(chain_id)
        self._next[chain_id] = last_block + 1

    def clear(self) -> None:
        """Forget everything, what is held back included (the transaction rolled back)."""
        self._next.clear()
        self._tables.clear()
        self._deferred.clear()

    def _forget(self, chain_id: int) -> None:
        for key in [k for k in self._tables if k[0] == chain_id]:
            self._write(key)
            del self._tables[key]

    def prior(
        self,
        chain_id: int,
        name: str,
        keys: list[Any],
        load: Callable[[list[Any]], dict[Any, Any]],
        absent: Any = 0,
    ) -> dict[Any, Any]:
        """Each key's value before the batch: held ones from here, the rest by `load` (`absent`
        for a key the store has no row of). The dict returned is the one held: the caller
        updates it in place to each key's value after the batch (see `done`)."""
        held = self._tables.setdefault((chain_id, name), {})
        missing = [k for k in keys if k not in held]
        if missing:
            loaded = load(missing)
            held.update({k: loaded.get(k, absent) for k in missing})
        return held

    def defer(self, chain_id: int, name: str, keys: Iterable[Any], write: Writer) -> None:
        """The rows of `keys` (their values as held after this batch) are written by `write`
        at `write_deferred` (before the commit), or before this cache forgets them, instead
        of now."""
        got = self._deferred.get((chain_id, name))
        if got is None:
            self._deferred[(chain_id, name)] = (set(keys), write)
        else:
            got[0].update(keys)

    def write_deferred(self) -> None:
        """Write every row held back (`defer`): the transaction is about to commit."""
        for key in list(self._deferred):
            self._write(key)

    def _write(self, key: tuple[int, str]) -> None:
        got = self._deferred.pop(key, None)
        if got is not None:
            keys, write = got
            held = self._tables[key]
            write([(k, held[k]) for k in sorted(keys)])

    def done(self, chain_id: int, name: str) -> None:
        """The batch's rows are written; start over past `limit` keys."""
        held = self._tables.get((chain_id, name))
        if held is not None and len(held) > self.limit:
            self._write((chain_id, name))
            held.clear()
