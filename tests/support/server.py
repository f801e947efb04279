"""Test kit: our app served by uvicorn on 127.0.0.1, and Node scripts run against it."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """Serve `app` in a thread until the block ends; yields its base URL."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


def run_node(script: Path, *args: str, timeout: float = 120) -> tuple[dict[str, Any], str]:
    """Run a Node script of ours; its last stdout line starting with `{` is its JSON result.

    The scripts import the official SDK and avalanchejs from tools/node_modules, which
    scripts/setup.sh installs: a missing install fails here, loudly, rather than skipping.
    """
    proc = subprocess.run(
        ["node", str(script), *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise AssertionError(f"{script.name} printed no result:\n{proc.stdout}\n{proc.stderr}")
    result: dict[str, Any] = json.loads(lines[-1])
    result.setdefault("_returncode", proc.returncode)
    return result, proc.stderr
