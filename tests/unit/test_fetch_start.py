"""`avadata index` starts its fetch processes before it parses its options (cli/index.py), and
the parse's own start then adds none for the same chains (indexer/fetch/spawn.py)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from avadata.cli import index as cli_index
from avadata.indexer.fetch import spawn
from avadata.indexer.fetch.protocol import Hint

URL = "http://127.0.0.1:9650/ext/bc/C/rpc"
DB = "sqlite:///x.db"


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[Hint | None]:
    """Hints of the children started, in order (no process is started)."""
    seen: list[Hint | None] = []

    def fake_spawn(hint: Hint | None) -> spawn.Child:
        seen.append(hint)
        return spawn.Child(process=None, jobs=None, out=None, hint=hint)

    monkeypatch.setattr(spawn, "_spawn", fake_spawn)
    monkeypatch.setattr(spawn, "_started", [])
    return seen


@pytest.mark.parametrize(
    ("args", "hints"),
    [
        (["--rpc", URL, "--db", DB, "--once"], [Hint(URL, DB, 50)]),
        (["--db=" + DB, "--rpc=" + URL, "--chunk-blocks", "20"], [Hint(URL, DB, 20)]),
        (
            ["--rpc", URL, "--rpc", URL + "2", "--db", DB],
            [Hint(URL, DB, 50), Hint(URL + "2", DB, 50)],
        ),
        (["--rpc", URL], []),  # no store: the parse will refuse it
        (["--rpc", "ftp://x", "--db", DB], []),  # not a node URL
        (["--rpc", URL, "--db", DB, "--chunk-blocks", "x"], []),
        (["--rpc", URL, "--db", DB, "--help"], []),
    ],
)
def test_the_early_scan_starts_what_the_options_say(
    spawned: list[Any], args: list[str], hints: list[Hint]
) -> None:
    before = os.getpriority(os.PRIO_PROCESS, 0)
    assert cli_index.start_fetch_early(args) is bool(hints)
    assert spawned == hints
    # The command line lowers its own priority (cli/main.py), the scan never: this process,
    # a library caller's, keeps its own.
    assert os.getpriority(os.PRIO_PROCESS, 0) == before


def test_a_hint_started_and_not_taken_starts_no_second_child(spawned: list[Any]) -> None:
    a, b = Hint(URL, DB, 50), Hint(URL + "2", DB, 50)
    spawn.start([a])
    spawn.start([a, b])  # the parse's start: only b is new
    assert spawned == [a, b]
    assert spawn.take().hint == a
    spawn.start([a])  # taken: a later run's start spawns again
    assert spawned == [a, b, a]


def test_a_feed_takes_the_child_hinted_at_its_node(spawned: list[Any]) -> None:
    a, b = Hint(URL, DB, 50), Hint(URL + "2", DB, 50)
    spawn.start([a, b])
    assert spawn.take(b.rpc_url).hint == b  # not the first started: its chunks are b's node's
    assert spawn.take("http://127.0.0.1:1/other").hint == a  # none hinted there: the first
