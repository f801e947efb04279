"""The dashboard's world: the devnet (three anvil chains and the simulated P/X/C network),
a store filled by the real indexer (`avadata index --once`), a real `avadata serve`, and the
system Chromium driven by Playwright (never a browser Playwright downloads)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from avadata.devnet.network import evm_rpc_paths
from tests.support.server import free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Site:
    url: str
    node: str
    db: str
    api: httpx.Client

    def get(self, path: str, **params: Any) -> Any:
        r = self.api.get(path, params=params)
        r.raise_for_status()
        return r.json()


def _wait(url: str, proc: subprocess.Popen[bytes], what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"{what} exited with {proc.returncode}"
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AssertionError(f"{what} did not answer at {url} within {timeout:.0f} s")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="package")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The devnet indexed once (no live blocks: the store holds still while pages and the
    test read it) and served by `avadata serve`. AVADATA_TEST_DASHBOARD_URL=<url> points the
    tests at such a server already running (while working on the page)."""
    running = os.environ.get("AVADATA_TEST_DASHBOARD_URL")
    if running:
        with httpx.Client(base_url=running, timeout=30) as api:
            yield Site(running, "", "", api)
        return
    root = tmp_path_factory.mktemp("dashboard")
    exe = [sys.executable, "-m", "avadata"]
    node_port, api_port = free_port(), free_port()
    node = f"http://127.0.0.1:{node_port}"
    log = (root / "devnet.log").open("wb")
    devnet = subprocess.Popen(
        [*exe, "devnet", "--port", str(node_port), "--data-dir", str(root / "devnet")]
        + ["--live-interval", "0"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    serve: subprocess.Popen[bytes] | None = None
    try:
        _wait(f"{node}/ext/health", devnet, "avadata devnet", 600)
        db = f"sqlite:///{root / 'store.db'}"
        rpcs = [a for p in evm_rpc_paths() for a in ("--rpc", f"{node}{p}")]
        subprocess.run(
            [*exe, "index", "--db", db, "--node", node, *rpcs, "--once"],
            check=True,
            timeout=900,
            stdout=subprocess.DEVNULL,
        )
        serve = subprocess.Popen(
            [*exe, "serve", "--db", db, "--port", str(api_port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{api_port}"
        _wait(f"{url}/healthz", serve, "avadata serve", 120)
        with httpx.Client(base_url=url, timeout=30) as api:
            yield Site(url, node, db, api)
    finally:
        if serve is not None:
            _stop(serve)
        _stop(devnet)
        log.close()


@dataclass
class Watch:
    """What a page did: console errors, uncaught exceptions, every URL it requested."""

    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


# Package scope, not session: Playwright's sync API runs an event loop in this thread while it
# is open, and the tests after this package call asyncio.run().
@pytest.fixture(scope="package")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: scripts/setup.sh installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser_context: Any, site: Site) -> Iterator[tuple[Any, Watch]]:
    """A new tab; after the test, no console error, no uncaught exception and no request
    that left the server (the page is offline by construction)."""
    tab = browser_context.new_page()
    watch = Watch()
    tab.on("console", lambda m: watch.errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: watch.errors.append(f"uncaught: {e}"))
    tab.on("request", lambda r: watch.requests.append(r.url))
    tab.on(
        "response",
        lambda r: watch.errors.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    try:
        yield tab, watch
    finally:
        tab.close()
    assert watch.errors == []
    outside = [u for u in watch.requests if not u.startswith(site.url + "/")]
    assert outside == []


@pytest.fixture
def shoot(tmp_path: Path) -> Callable[[Any, str], Path]:
    """Screenshots go under the test's temporary folder."""

    def take(tab: Any, name: str) -> Path:
        path = tmp_path / f"{name}.png"
        tab.screenshot(path=str(path), full_page=True)
        return path

    return take
