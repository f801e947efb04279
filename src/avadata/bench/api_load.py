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
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from avadata.api.paging import PageCodec
from avadata.bench import api_store
from avadata.errors import StoreError
from avadata.paths import REPO_ROOT
from avadata.store.dialect import engine_label, store_bytes
from avadata.store.engine import make_engine
from avadata.store.keys import read_secret
from avadata.store.probe import open_store
from avadata.store.queries.offsets import (
    address_evm_tx_at,
    block_at,
    chain_tx_count,
    latest_tx_at,
    transfer_at,
)
from avadata.store.types import Connection, Engine

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


def ensure_store(db: str | None, txs: int, engine: Engine | None = None) -> tuple[str, int, str]:
    """The store URL, its transaction count and a label of what it is ("PostgreSQL 15.4
    (2.10 GiB on disk; built in ...)"); builds the synthetic chain when missing. `engine`:
    the store already opened (`open_store`), disposed here."""
    url = db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='avadata-bench-api-')) / 'api.db'}"
    engine = engine or open_store(url)
    count = _tx_count(engine)
    built = "built before this run"
    if count < txs:
        if count:
            raise SystemExit(f"{url} holds {count} bench transactions, fewer than {txs}")
        print(f"building a store of {txs:,} transactions in {url} ...", file=sys.stderr)
        start = time.monotonic()
        how = api_store.build_fast(
            engine, txs, progress=lambda n: print(f"\r  {n:,} txs", end="", file=sys.stderr)
        )
        built = f"built in {time.monotonic() - start:.0f} s by this run: {how}"
        print(f"\n  {built}", file=sys.stderr)
        count = _tx_count(engine)
    with engine.connect() as conn:
        size = store_bytes(conn)
    label = f"{engine_label(engine)} ({size / 2**30:.2f} GiB on disk; {built})"
    engine.dispose()
    return url, count, label


def _tx_count(engine: Engine) -> int:
    with engine.connect() as conn:
        return chain_tx_count(conn, api_store.CHAIN_ID)


Get = Callable[[str], dict[str, Any]]
# The lists measured at a deep page: key -> (page 1's path, the position of the last row of
# page `page - 1` in that list's order, given the rows to skip).
_Positions = Callable[[Connection, int], Sequence[int] | None]


def _deep_lists() -> dict[str, tuple[str, _Positions]]:
    chain, hot = api_store.CHAIN_ID, api_store.HOT
    c, a = f"/v1/chains/{chain}", f"/v1/chains/{chain}/addresses/{hot}"

    def address_txs(conn: Connection, skip: int) -> Sequence[int] | None:
        return address_evm_tx_at(conn, chain, hot, skip)

    return {
        "transactions": (f"{c}/transactions", lambda conn, k: latest_tx_at(conn, chain, k)),
        "erc20": (
            f"{a}/transactions:listErc20",
            lambda conn, k: transfer_at(conn, chain, hot, "ERC-20", k),
        ),
        "listTransactions": (f"{a}/transactions", address_txs),
        "listTransactionsV2": (f"/v2/chains/{chain}/addresses/{hot}/transactions", address_txs),
        "listNative": (f"{a}/transactions:listNative", address_txs),
        # One chain in the store: the all-chains token holds that chain's position alone.
        "allTransactions": ("/v1/transactions", lambda conn, k: latest_tx_at(conn, chain, k)),
        "allBlocks": ("/v1/blocks", lambda conn, k: block_at(conn, chain, k)),
    }


def blocks_page(page: int) -> int:
    """The deep page of the blocks list: a block holds 50 of the store's transactions, so page
    N of the transactions is about page N / 50 of the blocks; page N / 10 is deeper still and
    exists in a store of 1M transactions (20,000 blocks) for N = 10,000."""
    return max(2, page // 10)


def deep_tokens(url: str, page: int, get: Get) -> dict[str, str]:
    """Tokens for page `page` of each deep list: page 1's nextPageToken (from `get`, the served
    API) moved to the position one OFFSET query of the benchmark finds (a smaller store than
    the page needs is an error: use more --txs)."""
    engine = make_engine(url)
    out: dict[str, str] = {}
    with engine.connect() as conn:
        secret = read_secret(conn)
        assert secret is not None, "avadata serve creates the secret; start it first"
        codec = PageCodec(secret)
        for key, (path, position) in _deep_lists().items():
            deep = blocks_page(page) if key == "allBlocks" else page
            at = position(conn, (deep - 1) * 10 - 1)
            first = get(path).get("nextPageToken")
            if at is None or first is None:
                raise SystemExit(f"the store is too small for page {page:,}; use more --txs")
            out[key] = codec.moved(first, tuple(at))
    engine.dispose()
    return out


def endpoints(deep: dict[str, str], page: int, mid_block: int) -> list[tuple[str, str]]:
    """(name, path) of every endpoint measured; a name ending in "page N" is a deep page of the
    list named before it."""
    c = f"/v1/chains/{api_store.CHAIN_ID}"
    a = f"{c}/addresses/{api_store.HOT}"
    lists = _deep_lists()

    def deep_page(key: str) -> str:
        return f"{lists[key][0]}?pageToken={deep[key]}"

    return [
        ("blocks", f"{c}/blocks"),
        ("getBlock", f"{c}/blocks/{mid_block}"),
        ("block transactions (whole block)", f"{c}/blocks/{mid_block}/transactions"),
        ("transactions", f"{c}/transactions"),
        (f"transactions page {page:,}", deep_page("transactions")),
        ("transactions status=failed", f"{c}/transactions?status=failed"),
        ("getTransaction", f"{c}/transactions/{api_store.tx_hash(mid_block, 7)}"),
        ("listErc20 (hot address)", f"{a}/transactions:listErc20"),
        (f"listErc20 page {page:,}", deep_page("erc20")),
        ("listErc721", f"{a}/transactions:listErc721"),
        ("listErc1155", f"{a}/transactions:listErc1155"),
        # The tokens make the value calls (the hot account's own calls carry no value).
        (
            "listInternals (a token)",
            f"{c}/addresses/{api_store.TOKENS[0]}/transactions:listInternals",
        ),
        ("listTransactions", f"{a}/transactions"),
        (f"listTransactions page {page:,}", deep_page("listTransactions")),
        ("listTransactionsV2", f"{lists['listTransactionsV2'][0]}"),
        (f"listTransactionsV2 page {page:,}", deep_page("listTransactionsV2")),
        ("listNativeTransactions", f"{a}/transactions:listNative"),
        (f"listNativeTransactions page {page:,}", deep_page("listNative")),
        ("token transfers", f"{c}/tokens/{api_store.TOKENS[0]}/transfers"),
        ("getNativeBalance", f"{a}/balances:getNative"),
        ("balances:listErc20", f"{a}/balances:listErc20"),
        ("balances:listErc721", f"{a}/balances:listErc721"),
        ("balances:listErc1155", f"{a}/balances:listErc1155"),
        ("balances:listCollectibles", f"{a}/balances:listCollectibles"),
        ("deployments", f"{c}/contracts/{api_store.HOT}/deployments"),
        (
            "getDeploymentTransaction",
            f"{c}/contracts/{api_store.created(1)}/transactions:getDeployment",
        ),
        ("getContractMetadata (ERC-20)", f"{c}/addresses/{api_store.TOKENS[0]}"),
        ("NFT collection tokens", f"{c}/nfts/collections/{api_store.NFT}/tokens"),
        ("getTokenDetails", f"{c}/nfts/collections/{api_store.NFT}/tokens/1"),
        ("chains", "/v1/chains"),
        ("listAddressChains", f"/v1/address/{api_store.HOT}/chains"),
        ("listLatestTransactionsAllChains", "/v1/transactions"),
        (f"listLatestTransactionsAllChains page {page:,}", deep_page("allTransactions")),
        ("listLatestBlocksAllChains", "/v1/blocks"),
        (f"listLatestBlocksAllChains page {blocks_page(page):,}", deep_page("allBlocks")),
    ]


def ensure_wrk() -> None:
    """wrk comes from a Debian package; scripts/setup-bench.sh installs it when missing."""
    if shutil.which("wrk") is None:
        subprocess.run([str(REPO_ROOT / "scripts" / "setup-bench.sh")], check=True)


def run(
    db: str | None,
    txs: int,
    seconds: float,
    page: int = 10_000,
    workers: int = 1,
    connections: int | None = None,
    vs: str | None = None,
) -> str:
    """The section of `db`'s store; with `vs`, a second store served beside it, each endpoint
    measured on both in turns (the order alternating), both tables and the per-endpoint
    ratios, so that two engines compare in the same minutes."""
    ensure_wrk()
    if page < 2:
        raise SystemExit("--page must be at least 2")
    # The second store opened before the first is built: a bad --vs-db fails in seconds.
    try:
        second = open_store(vs) if vs else None
    except StoreError as exc:
        raise StoreError(f"--vs-db: {exc}", exit_code=exc.exit_code) from exc
    stores = [ensure_store(db, txs)] + ([ensure_store(vs, txs, second)] if vs else [])
    with contextlib.ExitStack() as stack:
        bases = [stack.enter_context(served(url, workers)) for url, _, _ in stores]
        plans = [
            _checked_paths(base, url, page, n)
            for base, (url, n, _) in zip(bases, stores, strict=True)
        ]
        load_before = os.getloadavg()[0]
        load = connections or _calibrated(bases[0], seconds)
        runs: list[list[Result]] = [[] for _ in stores]
        paths = [[(f"trivial ({TRIVIAL})", TRIVIAL), *plan] for plan in plans]
        for k in range(len(paths[0])):
            for i in _turns(len(stores), k):
                name, path = paths[i][k]
                runs[i].append(wrk(name, bases[i] + path, load, seconds))
        load_after = os.getloadavg()[0]
    sections = [
        report(r, load, n, page, seconds, label, workers, connections is None)
        for r, (_, n, label) in zip(runs, stores, strict=True)
    ]
    if vs:
        sections.append(compare(runs[0], runs[1]))
    # Other processes on the machine skew latency tails: say how busy it was.
    return "\n\n".join(sections) + (
        f"\n\nMachine load average (1 min) {load_before:.1f} before and {load_after:.1f} "
        f"after the measurements, on {os.cpu_count()} CPUs."
    )


def _turns(stores: int, k: int) -> list[int]:
    """The stores' order for the k-th endpoint: each goes first every other endpoint."""
    order = list(range(stores))
    return order if k % 2 == 0 else order[::-1]


def _checked_paths(base: str, url: str, page: int, count: int) -> list[tuple[str, str]]:
    """The endpoints' (name, path) on the store served at `base`, each asked once (a warm-up
    that fails early on any error)."""
    deep = deep_tokens(url, page, lambda path: httpx.get(base + path, timeout=30).json())
    paths = endpoints(deep, page, count // 100)
    for _, path in paths:
        resp = httpx.get(base + path, timeout=30)
        if resp.status_code != 200:
            raise SystemExit(f"{path}: HTTP {resp.status_code} {resp.text[:200]}")
    return paths


def compare(ours: list[Result], theirs: list[Result]) -> str:
    """Per endpoint, the second store's req/s over the first's (how many times the first's
    cost per request is the second's), the lists' median, and issue 25's check."""
    rows = [
        "| endpoint | req/s | req/s (second store) | second / first |",
        "|---|---:|---:|---:|",
    ]
    ratios = []
    for a, b in zip(ours, theirs, strict=True):
        ratio = b.rps / a.rps
        if a is not ours[0]:
            ratios.append(ratio)
        rows.append(f"| {a.name} | {a.rps:,.0f} | {b.rps:,.0f} | {ratio:.2f}x |")
    mid = statistics.median(ratios)
    return (
        "Both stores, each endpoint on one then the other in the same minute:\n\n"
        + "\n".join(rows)
        + f"\n\n- the endpoints' median of second / first req/s: **{mid:.2f}x** "
        f"(lowest {min(ratios):.2f}x, highest {max(ratios):.2f}x); within 1.5x (issue 25): "
        f"{'yes' if mid <= 1.5 else 'NO'}"
    )


def _calibrated(base: str, seconds: float) -> int:
    load = 1
    for c in LOADS:
        probe = wrk("trivial", base + TRIVIAL, c, min(seconds, 5.0))
        if probe.p99_ms < P99_TRIVIAL_MS:
            load = c
    return load


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
    calibrated: bool = True,
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
    # A deep page follows its list's page 1 (endpoints()).
    deep_names = (f" page {page:,}", f" page {blocks_page(page):,}")
    deep = [(lists[k - 1], r) for k, r in enumerate(lists) if r.name.endswith(deep_names)]
    get_tx = by_name.get("getTransaction")
    checks = [
        f"- p99 under 50 ms on every endpoint at this load: "
        f"{'yes' if all(r.p99_ms < 50 for r in lists) else 'NO'} "
        f"(worst {max(r.p99_ms for r in lists):.1f} ms)",
    ]
    if get_tx is not None:
        checks.append(
            f"- getTransaction p99 under 20 ms: {'yes' if get_tx.p99_ms < 20 else 'NO'} "
            f"({get_tx.p99_ms:.2f} ms)"
        )
    checks += [
        f"- trivial endpoint p99 under 5 ms: {'yes' if results[0].p99_ms < 5 else 'NO'} "
        f"({results[0].p99_ms:.2f} ms)",
        f"- every list endpoint at >= 30% of the trivial req/s: "
        f"{'yes' if all(r.rps >= 0.3 * ceiling for r in lists) else 'NO'} "
        f"(lowest {min(100 * r.rps / ceiling for r in lists):.0f}%)",
        f"- deep pages (page {page:,}; the blocks' {blocks_page(page):,}) within 20% of page 1: "
        f"{'yes' if all(d.rps >= 0.8 * p1.rps for p1, d in deep) else 'NO'} ("
        + ", ".join(f"{p1.name} {100 * d.rps / p1.rps:.0f}%" for p1, d in deep)
        + " of page-1 req/s)",
    ]
    head = (
        f"Store: {store}, {txs:,} transactions (synthetic chain, `avadata.bench.api_store`). "
        f"{_processes(workers)} on 127.0.0.1; `wrk -t1 -c{load} -d{seconds:g}s` per "
        f"endpoint, one after another in the same run. Load: {load} connection(s), "
        + (
            f"the largest of {', '.join(map(str, LOADS))} at which the trivial endpoint's p99 "
            "stays under 5 ms."
            if calibrated
            else "fixed by `--connections` (so that runs on two engines compare at one load)."
        )
    )
    return head + "\n\n" + "\n".join(rows) + "\n\n" + "\n".join(checks)


def _processes(workers: int) -> str:
    if workers == 1:
        return "One `avadata serve` process"
    return f"`avadata serve --workers {workers}` ({workers} API processes on one port)"
