"""How `pytest -n N --dist loadfile` (scripts/test.sh) hands the suite to its workers.

- Whole files, as loadfile does: a module's fixtures (an anvil, a served app, an indexed
  store) start once, on one worker.
- A package whose fixtures are package-scoped goes whole to one worker (tests/dashboard: one
  devnet indexed and served for both of its files).
- The packages whose tests wait on processes (devnets, indexers, servers killed and restarted)
  go out first: a long file handed out last would leave one worker running it alone while the
  other idles. The rest follows by size, as loadfile orders it.
"""

from __future__ import annotations

from typing import Any

# Package-scoped fixtures: every file below each goes to the same worker.
WHOLE_PACKAGES = ("tests/dashboard/",)
# Long files, mostly waiting on subprocesses: started first.
FIRST = ("tests/dashboard/", "tests/e2e/")


def make_scheduler(config: Any, log: Any) -> Any:
    """The scheduler for `--dist loadfile` (None leaves other modes to xdist)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class WholeFiles(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = str(super()._split_scope(nodeid))
            return next((p for p in WHOLE_PACKAGES if path.startswith(p)), path)

        def _assign_work_unit(self, node: Any) -> None:
            # The queue is built (by size) before the first unit goes out: FIRST ones to the
            # front, in the same order among themselves.
            if not getattr(self, "_ranked", False):
                ranked = sorted(self.workqueue.items(), key=lambda kv: not kv[0].startswith(FIRST))
                self.workqueue.clear()
                self.workqueue.update(ranked)
                self._ranked = True
            super()._assign_work_unit(node)

    return WholeFiles(config, log)
