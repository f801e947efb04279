"""`avadata up`: the whole system on one machine: devnet, indexer and API on an SQLite file.

Three child processes (the same verbs a user would run by hand), started in order, each waited
for, and all stopped together: Ctrl-C, or any child exiting, stops the rest.
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
            raise RuntimeError(f"{what} exited with code {proc.returncode}")
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
    raise RuntimeError(f"{what} did not answer at {url} within {timeout:.0f}s")


def up(
    data_dir: Annotated[
        Path, typer.Option(help="where the devnet state and the store live")
    ] = Path("data"),
    port: Annotated[int, typer.Option(help="API port (Data API, Metrics API, /docs)")] = 8080,
    node_port: Annotated[
        int, typer.Option(help="node facade port (/ext/bc/..., /ext/index/...)")
    ] = 9650,
    seed: Annotated[int, typer.Option(help="traffic generator seed")] = 1,
) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    db = f"sqlite:///{(data_dir / 'avadata.db').resolve()}"
    exe = [sys.executable, "-m", "avadata"]
    node = f"http://127.0.0.1:{node_port}"
    c_rpc = f"{node}/ext/bc/C/rpc"
    procs: list[subprocess.Popen[bytes]] = []
    names: list[str] = []

    def stop(*_: object) -> None:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()

    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        devnet = subprocess.Popen(
            [
                *exe,
                "devnet",
                "--port",
                str(node_port),
                "--data-dir",
                str(data_dir / "devnet"),
                "--seed",
                str(seed),
            ]
        )
        procs.append(devnet)
        names.append("devnet")
        _wait_http(
            c_rpc,
            "devnet",
            devnet,
            300,
            json={"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []},
        )
        rpcs = _evm_rpc_urls(node)
        index_args = [*exe, "index", "--db", db, "--node", node]
        # What no node API tells (an L1's own gas token): the devnet writes it in its chains file.
        index_args += ["--chains", str(data_dir / "devnet" / "chains.toml")]
        for url in rpcs:
            index_args += ["--rpc", url]
        procs.append(subprocess.Popen(index_args))
        names.append("index")
        # The devnet's NFT metadata is served on 127.0.0.1: the worker may fetch from it.
        serve_env = {**os.environ, "AVADATA_NFT_FETCH_PRIVATE": "true"}
        api = subprocess.Popen([*exe, "serve", "--db", db, "--port", str(port)], env=serve_env)
        procs.append(api)
        names.append("serve")
        _wait_http(f"http://127.0.0.1:{port}/openapi.json", "API", api, 120)
        typer.echo(
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
        while all(p.poll() is None for p in procs):
            time.sleep(1)
        failed = [n for n, p in zip(names, procs, strict=True) if p.poll() is not None]
        typer.echo(f"avadata up: `avadata {failed[0]}` exited; stopping the rest", err=True)
        raise typer.Exit(1)
    except KeyboardInterrupt:
        pass
    except RuntimeError as exc:
        typer.echo(f"avadata up: {exc}", err=True)
        raise typer.Exit(1) from exc
    finally:
        stop()


def _evm_rpc_urls(node: str) -> list[str]:
    """The devnet's EVM chains behind the facade: the C-chain and every L1."""
    from avadata.devnet.network import evm_rpc_paths

    return [f"{node}{path}" for path in evm_rpc_paths()]
