"""`avadata bench api`: wrk against every EVM endpoint of a served store of >= 1M transactions,
beside a trivial endpoint of the same app (the ceiling), in one run.

Stage: bench (measures the api stage). The load (wrk connections) is the largest of 1, 2, 4,
8, 16 at which the trivial endpoint's p99 stays under 5 ms; every endpoint is then measured at
that load. Page 10,000 is reached with a token built exactly as the server builds it (same
secret, same digest), positioned by one OFFSET query of the benchmark itself, never by the
server.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from avadata.api.paging import PageCodec, params_digest
from avadata.bench import api_store
from avadata.paths import REPO_ROOT
from avadata.store.dialect import engine_label
from avadata.store.engine import make_engine
from avadata.store.keys import read_secret
from avadata.store.migrate import migrate
from avadata.store.queries.offsets import chain_tx_count, latest_tx_at, transfer_at
from avadata.store.types import Engine

TRIVIAL = "/healthz"
P99_TRIVIAL_MS = 5.0
LOADS = (1, 2, 4, 8, 16)
_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text.strip())
    if m is None:
        raise ValueError(f"unexpected wrk latency {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def wrk(name: str, url: str, connections: int, seconds: float) -> Result:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lat = dict(re.findall(r"^\s+(50|99)(?:\.0+)?%\s+(\S+)\s*$", out, re.M))
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = int(bad.group(1)) if bad else 0
    return Result(name, rps, _ms(lat["50"]), _ms(lat["99"]), errors)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_store(db: str | None, txs: int) -> tuple[str, int, str]:
    """The store URL, its transaction count and its engine's label ("PostgreSQL 15.4");
    builds the synthetic chain when missing."""
    url = db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='avadata-bench-api-')) / 'api.db'}"
    engine = make_engine(url)
    migrate(engine)
    count = _tx_count(engine)
    if count < txs:
        if count:
            raise SystemExit(f"{url} holds {count} bench transactions, fewer than {txs}")
        print(f"building a store of {txs:,} transactions in {url} ...", file=sys.stderr)
        start = time.monotonic()
        api_store.build(
            engine, txs, progress=lambda n: print(f"\r  {n:,} txs", end="", file=sys.stderr)
        )
        print(f"\n  built in {time.monotonic() - start:.0f} s", file=sys.stderr)
        count = _tx_count(engine)
    label = engine_label(engine)
    engine.dispose()
    return url, count, label


def _tx_count(engine: Engine) -> int:
    with engine.connect() as conn:
        return chain_tx_count(conn, api_store.CHAIN_ID)


def deep_tokens(url: str, page: int, size: int = 10) -> dict[str, str]:
    """Tokens for page `page` of /transactions and of the hot address's ERC-20 transfers
    (a smaller store than the page needs is an error: use more --txs)."""
    engine = make_engine(url)
    chain = api_store.CHAIN_ID
    skip = (page - 1) * size - 1
    with engine.connect() as conn:
        secret = read_secret(conn)
        assert secret is not None, "avadata serve creates the secret; start it first"
        tx_pos = latest_tx_at(conn, chain, skip)
        tr_pos = transfer_at(conn, chain, api_store.HOT, "ERC-20", skip)
    engine.dispose()
    if tx_pos is None or tr_pos is None:
        raise SystemExit(f"the store is too small for page {page:,}; use more --txs or --page")
    codec = PageCodec(secret)
    latest = params_digest("latest-txs", {"chain": chain, "status": None})
    transfers = params_digest(
        "transfers:ERC-20", {"chain": chain, "address": api_store.HOT, "start": None, "end": None}
    )
    return {
        "transactions": codec.encode(tx_pos, latest),
        "erc20": codec.encode(tr_pos, transfers),
    }


def endpoints(deep: dict[str, str], page: int, mid_block: int) -> list[tuple[str, str]]:
    c = f"/v1/chains/{api_store.CHAIN_ID}"
    a = f"{c}/addresses/{api_store.HOT}"
    return [
        ("blocks", f"{c}/blocks"),
        ("block transactions (whole block)", f"{c}/blocks/{mid_block}/transactions"),
        ("transactions", f"{c}/transactions"),
        (f"transactions page {page:,}", f"{c}/transactions?pageToken={deep['transactions']}"),
        ("transactions status=failed", f"{c}/transactions?status=failed"),
        ("listErc20 (hot address)", f"{a}/transactions:listErc20"),
        (f"listErc20 page {page:,}", f"{a}/transactions:listErc20?pageToken={deep['erc20']}"),
        ("listErc721", f"{a}/transactions:listErc721"),
        # The tokens make the value calls (the hot account's own calls carry no value).
        (
            "listInternals (a token)",
            f"{c}/addresses/{api_store.TOKENS[0]}/transactions:listInternals",
        ),
        ("token transfers", f"{c}/tokens/{api_store.TOKENS[0]}/transfers"),
        ("balances:listErc20", f"{a}/balances:listErc20"),
        ("balances:listErc721", f"{a}/balances:listErc721"),
        ("deployments", f"{c}/contracts/{api_store.HOT}/deployments"),
        ("NFT collection tokens", f"{c}/nfts/collections/{api_store.NFT}/tokens"),
        ("chains", "/v1/chains"),
    ]


def ensure_wrk() -> None:
    """wrk comes from a Debian package; scripts/setup-bench.sh installs it when missing."""
    if shutil.which("wrk") is None:
        subprocess.run([str(REPO_ROOT / "scripts" / "setup-bench.sh")], check=True)


def run(db: str | None, txs: int, seconds: float, page: int = 10_000, workers: int = 1) -> str:
    ensure_wrk()
    if page < 2:
        raise SystemExit("--page must be at least 2")
    url, count, label = ensure_store(db, txs)
    with served(url, workers) as base:
        deep = deep_tokens(url, page)
        for _, path in endpoints(deep, page, count // 100):  # warm up, and fail early on any error
            resp = httpx.get(base + path, timeout=30)
            if resp.status_code != 200:
                raise SystemExit(f"{path}: HTTP {resp.status_code} {resp.text[:200]}")
        load_before = os.getloadavg()[0]
        load = 1
        for c in LOADS:
            probe = wrk("trivial", base + TRIVIAL, c, min(seconds, 5.0))
            if probe.p99_ms < P99_TRIVIAL_MS:
                load = c
        results = [wrk(f"trivial ({TRIVIAL})", base + TRIVIAL, load, seconds)]
        for name, path in endpoints(deep, page, count // 100):
            results.append(wrk(name, base + path, load, seconds))
        load_after = os.getloadavg()[0]
    text = report(results, load, count, page, seconds, label, workers)
    # Other processes on the machine skew latency tails: say how busy it was.
    return text + (
        f"\n\nMachine load average (1 min) {load_before:.1f} before and {load_after:.1f} "
        f"after the measurements, on {os.cpu_count()} CPUs."
    )


@contextlib.contextmanager
def served(db_url: str, workers: int = 1) -> Iterator[str]:
    """`avadata serve --workers N` of `db_url` in its own process (as deployed) on a free local
    port, with the rate limits and the NFT metadata worker off (the load, and the CPU, are the
    benchmark's own); yields its base URL once it answers."""
    port = _free_port()
    env = {**os.environ, "AVADATA_RATE_LIMIT_ANONYMOUS": "0", "AVADATA_RATE_LIMIT_KEYED": "0"}
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "avadata", "serve", "--db", db_url),
            *("--port", str(port), "--no-nft-worker", "--workers", str(workers)),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait(base, server)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def _wait(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("avadata serve exited early")
        try:
            httpx.get(base + TRIVIAL, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise SystemExit("avadata serve did not come up")


def report(
    results: list[Result],
    load: int,
    txs: int,
    page: int,
    seconds: float,
    store: str,
    workers: int = 1,
) -> str:
    """The docs/benchmarks.md section; `store` names the engine measured ("SQLite 3.40.1")."""
    ceiling = results[0].rps
    rows = [
        "| endpoint | req/s | p50 ms | p99 ms | % of trivial req/s | non-2xx |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        rows.append(
            f"| {r.name} | {r.rps:,.0f} | {r.p50_ms:.2f} | {r.p99_ms:.2f} | "
            f"{100 * r.rps / ceiling:.0f}% | {r.errors} |"
        )
    lists = results[1:]
    by_name = {r.name: r for r in results}
    p1, pn = by_name["transactions"], by_name[f"transactions page {page:,}"]
    e1, en = by_name["listErc20 (hot address)"], by_name[f"listErc20 page {page:,}"]
    checks = [
        f"- p99 under 50 ms on every endpoint at this load: "
        f"{'yes' if all(r.p99_ms < 50 for r in lists) else 'NO'} "
        f"(worst {max(r.p99_ms for r in lists):.1f} ms)",
        f"- trivial endpoint p99 under 5 ms: {'yes' if results[0].p99_ms < 5 else 'NO'} "
        f"({results[0].p99_ms:.2f} ms)",
        f"- every list endpoint at >= 30% of the trivial req/s: "
        f"{'yes' if all(r.rps >= 0.3 * ceiling for r in lists) else 'NO'} "
        f"(lowest {min(100 * r.rps / ceiling for r in lists):.0f}%)",
        f"- page {page:,} within 20% of page 1: transactions {100 * pn.rps / p1.rps:.0f}% of "
        f"page-1 req/s, listErc20 {100 * en.rps / e1.rps:.0f}%",
    ]
    head = (
        f"Store: {store}, {txs:,} transactions (synthetic chain, `avadata.bench.api_store`). "
        f"{_processes(workers)} on 127.0.0.1; `wrk -t1 -c{load} -d{seconds:g}s` per "
        f"endpoint, one after another in the same run. Load: {load} connection(s), the largest "
        f"of {', '.join(map(str, LOADS))} at which the trivial endpoint's p99 stays under 5 ms."
    )
    return head + "\n\n" + "\n".join(rows) + "\n\n" + "\n".join(checks)


def _processes(workers: int) -> str:
    if workers == 1:
        return "One `avadata serve` process"
    return f"`avadata serve --workers {workers}` ({workers} API processes on one port)"
