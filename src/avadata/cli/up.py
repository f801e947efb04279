"""`avadata up`: the whole system on one machine: devnet, indexer and API on an SQLite file.

Three child processes (the same verbs a user would run by hand), started in order, each waited
for, and all stopped together: Ctrl-C, or any child exiting, stops the rest. Before any of
them starts, everything a child would fail on late is checked here: both ports, the data
folder, the store. The children run in their own process group, so a Ctrl-C reaches `up`
alone, which stops each child once, as Ctrl-C would (SIGINT: each cleans up, the devnet stops
its anvils, the indexer its fetch processes), and only then harder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from avadata.errors import AvadataError, ConfigError

HELP = """Run the whole system: a devnet producing traffic, the indexer following it, and the API.

Everything lives in --data-dir (the devnet's state and the SQLite store). Prints the URLs.

Example: avadata up --data-dir data --port 8080 --node-port 9650
"""


def _wait_http(
    url: str, what: str, proc: subprocess.Popen[bytes], timeout: float, json: object = None
) -> None:
    import httpx  # here: every verb's start-up imports this module

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise _exited(what, proc)
        try:
            r = (
                httpx.post(url, json=json, timeout=2)
                if json is not None
                else httpx.get(url, timeout=2)
            )
            if r.status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise AvadataError(f"`avadata {what}` did not answer at {url} within {timeout:.0f}s")


def up(
    data_dir: Annotated[
        Path, typer.Option(help="where the devnet state and the store live")
    ] = Path("data"),
    port: Annotated[int, typer.Option(help="API port (Data API, Metrics API, /docs)")] = 8080,
    node_port: Annotated[
        int, typer.Option(help="node facade port (/ext/bc/..., /ext/index/...)")
    ] = 9650,
    seed: Annotated[int, typer.Option(help="traffic generator seed")] = 1,
    subsecond: Annotated[
        bool, typer.Option(help="add the devnet's sub-second L1 (avadata devnet --subsecond)")
    ] = False,
) -> None:
    db = _preflight(data_dir, port, node_port)
    exe = [sys.executable, "-m", "avadata"]
    node = f"http://127.0.0.1:{node_port}"
    procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        # Own process group: the terminal's Ctrl-C reaches `up` only (module doc).
        procs[name] = subprocess.Popen([*exe, name, *args], process_group=0, env=env)
        return procs[name]

    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        devnet_args = ["--port", str(node_port), "--data-dir", str(data_dir / "devnet")]
        devnet_args += ["--subsecond"] if subsecond else []
        devnet = start("devnet", *devnet_args, "--seed", str(seed))
        chain_id = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
        _wait_http(f"{node}/ext/bc/C/rpc", "devnet", devnet, 300, json=chain_id)
        index_args = ["--db", db, "--node", node]
        # What no node API tells (an L1's own gas token): the devnet writes it in its chains file.
        index_args += ["--chains", str(data_dir / "devnet" / "chains.toml")]
        for url in _evm_rpc_urls(node, subsecond):
            index_args += ["--rpc", url]
        start("index", *index_args)
        # The devnet's NFT metadata is served on 127.0.0.1: the worker may fetch from it.
        serve_env = {**os.environ, "AVADATA_NFT_FETCH_PRIVATE": "true"}
        serve_args = ["--db", db, "--port", str(port), "--data-dir", str(data_dir)]
        api = start("serve", *serve_args, env=serve_env)
        _wait_http(f"http://127.0.0.1:{port}/openapi.json", "serve", api, 120)
        typer.echo(_banner(port, node, db))
        while all(p.poll() is None for p in procs.values()):
            time.sleep(1)
        failed = next(n for n, p in procs.items() if p.poll() is not None)
        raise _exited(failed, procs[failed])
    except KeyboardInterrupt:
        pass
    finally:
        _stop(list(procs.values()))


def _exited(name: str, proc: subprocess.Popen[bytes]) -> AvadataError:
    """What `up` says when a child ended under it (the rest are stopped on the way out)."""
    return AvadataError(f"`avadata {name}` exited with code {proc.returncode}; stopped the rest")


def _preflight(data_dir: Path, port: int, node_port: int) -> str:
    """What would make a child fail after minutes of work, checked first: the two ports, the
    data folder, the store in it (opened, so a new one is created now). The store's URL."""
    from avadata.cli.ports import check_free
    from avadata.store.probe import open_store

    if port == node_port:
        raise ConfigError(
            f"--port and --node-port are both {port}: give them different ports", exit_code=2
        )
    check_free(port, "--port")
    check_free(node_port, "--node-port")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create --data-dir {data_dir} ({exc.strerror}): give a folder you can write"
        ) from None
    db = f"sqlite:///{(data_dir / 'avadata.db').resolve()}"
    open_store(db).dispose()
    return db


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    """Stop the children one at a time, last started first: SIGINT, as Ctrl-C would (each
    cleans up after itself); SIGTERM to one still running 20 s later, SIGKILL 10 s after that.
    One at a time, so that the devnet goes last: an indexer still stopping while the node it
    reads went away would retry that node until its SIGTERM. A second Ctrl-C meanwhile is
    ignored: it would cut this short and leave the children running."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for p in reversed(procs):
        if p.poll() is not None:
            continue
        p.send_signal(signal.SIGINT)
        for sig, wait in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 10.0)):
            try:
                p.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                p.send_signal(sig)
        else:
            p.wait()


def _banner(port: int, node: str, db: str) -> str:
    return (
        "\navadata is up:\n"
        f"  dashboard     http://127.0.0.1:{port}/\n"
        f"  Data API      http://127.0.0.1:{port}/v1/chains\n"
        f"  Metrics API   http://127.0.0.1:{port}/v2/chains\n"
        f"  OpenAPI docs  http://127.0.0.1:{port}/docs\n"
        f"  node facade   {node}/ext/bc/C/rpc\n"
        f"  Index API     {node}/ext/index/P/block (also X/block, X/tx, X/vtx, C/block)\n"
        f"  store         {db}\n"
        "Ctrl-C stops everything.\n"
    )


def _evm_rpc_urls(node: str, subsecond: bool = False) -> list[str]:
    """The devnet's EVM chains behind the facade: the C-chain and every L1."""
    from avadata.devnet.network import devnet_chains, evm_rpc_paths

    return [f"{node}{path}" for path in evm_rpc_paths(devnet_chains(subsecond))]
