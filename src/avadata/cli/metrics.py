"""`avadata metrics ...`: maintenance of the metric rollups."""

from __future__ import annotations

import time
from typing import Annotated

import typer

app = typer.Typer(help="Metric rollups: rebuild them from the stored rows.", no_args_is_help=True)


@app.command("rebuild")
def rebuild(
    db: Annotated[
        str | None,
        typer.Option("--db", help="Database URL (default: AVADATA_DB_URL or sqlite:///avadata.db)"),
    ] = None,
) -> None:
    """Recompute every metric bucket from the stored blocks, txs, transfers and contracts."""
    from avadata.metrics.rebuild import rebuild as run
    from avadata.settings import Settings
    from avadata.store import make_engine, migrate

    url = db or Settings().db_url
    engine = make_engine(url)
    try:
        migrate(engine)
        t0 = time.perf_counter()
        stats = run(engine)
        typer.echo(
            f"rebuilt metrics of {stats.chains} chain(s): {stats.blocks} blocks, "
            f"{stats.transactions} transactions in {time.perf_counter() - t0:.1f} s"
        )
    finally:
        engine.dispose()


@app.command("bench")
def bench(
    txs: Annotated[int, typer.Option(help="Transactions of the synthetic chain")] = 1_000_000,
    days: Annotated[int, typer.Option(help="Days the chain spans")] = 365,
    accounts: Annotated[int, typer.Option(help="Distinct sender/recipient pool")] = 50_000,
    rounds: Annotated[int, typer.Option(help="Requests per case")] = 200,
    db: Annotated[
        str | None, typer.Option("--db", help="Database URL (default: a temp SQLite)")
    ] = None,
    in_process: Annotated[
        bool, typer.Option(help="Time through an in-process test client instead of a server")
    ] = False,
) -> None:
    """Write a synthetic chain with the rollup on, then time metric requests (p50/p99)."""
    import tempfile
    import warnings
    from pathlib import Path

    from avadata.api.app import create_app
    from avadata.metrics import bench as b
    from avadata.settings import Settings
    from avadata.store import make_engine, migrate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    url = db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='avadata-bench-')) / 'bench.db'}"
    engine = make_engine(url)
    migrate(engine)
    t = time.perf_counter()
    parts = b.batches(1, txs=txs, days=days, accounts=accounts, chunk=200)
    typer.echo(f"generated {txs} txs in {time.perf_counter() - t:.1f} s; writing to {url}")
    w = b.write(engine, 1, parts)
    engine.dispose()
    typer.echo(
        f"wrote {w.blocks} blocks, {w.txs} txs in {w.write_s:.1f} s; rollup {w.rollup_s:.1f} s "
        f"= {w.share:.1%} of the write ({w.rollup_s / max(w.txs, 1) * 1e6:.0f} us/tx)"
    )
    if in_process:
        with TestClient(create_app(Settings(db_url=url))) as client:
            lat = b.latency(lambda p, q: client.get(p, params=q).status_code, 1, rounds)
    else:
        # A real server in its own process (as deployed), one keep-alive client.
        import socket
        import subprocess
        import sys

        import httpx

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        server = subprocess.Popen(
            [sys.executable, "-m", "avadata", "serve", "--db", url, "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            with httpx.Client(base_url=base, timeout=30) as http:
                deadline = time.monotonic() + 30
                while True:
                    try:
                        http.get("/v2/chains")
                        break
                    except httpx.TransportError:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.1)
                lat = b.latency(lambda p, q: http.get(p, params=q).status_code, 1, rounds)
        finally:
            server.terminate()
            server.wait(timeout=10)
    for name, (p50, p99) in lat.summary().items():
        typer.echo(f"{name:32s} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms")
