"""An anvil started by avadata keeps the states it moves out of memory in its own directory,
which goes when it stops (anvil's default, ~/.foundry/anvil/tmp, is never cleaned: 3.3 GB per
bench chain filled this machine's disk)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from avadata.devnet.evm.anvil import AnvilOptions, start_anvil
from tests.support.node import Node

pytestmark = pytest.mark.e2e


def test_persisted_states_go_with_the_anvil() -> None:
    anvil = start_anvil(AnvilOptions(chain_id=99931, automine=True))
    try:
        assert anvil.cache_dir is not None
        Node(anvil.rpc_url).call("anvil_mine", ["0x1000"])  # more states than anvil keeps
        deadline = time.monotonic() + 30
        while not any(anvil.cache_dir.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert any(anvil.cache_dir.iterdir()), "anvil persisted nothing where it was told"
    finally:
        anvil.stop()
    assert not anvil.cache_dir.exists()


def test_a_killed_process_leftovers_go_at_the_next_start() -> None:
    """A process killed before it could stop its anvils (they die with it) leaves their cache
    directories; the next start removes those of dead processes, never a live one's."""
    dead = subprocess.Popen(["true"])  # a process ID nobody has any more
    dead.wait()
    tmp = Path(tempfile.gettempdir())
    stale = Path(tempfile.mkdtemp(prefix=f"avadata-anvil-{dead.pid}-", dir=tmp))
    (stale / "state").write_bytes(b"x" * 1024)
    live = Path(tempfile.mkdtemp(prefix=f"avadata-anvil-{os.getpid()}-", dir=tmp))
    try:
        anvil = start_anvil(AnvilOptions(chain_id=99932, automine=True))
        anvil.stop()
        assert not stale.exists()
        assert live.exists()
    finally:
        for d in (stale, live):
            shutil.rmtree(d, ignore_errors=True)
