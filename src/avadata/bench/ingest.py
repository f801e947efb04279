"""`avadata bench ingest`: index a seeded chain; beside it, in the same run and from the same anvil,
the raw JSON-RPC pull of the same data (no decoding, no storing) and ethereum-etl 2.4.2.

Every contender reads the same blocks from the same node with the same concurrency budget.
Peak RSS is measured per contender, so each runs in its own process (the raw pull too): the
largest sum of the RSS of that process and its descendants, sampled every 50 ms (avadata index
is two processes, the writer and its fetch child), or wait4's peak when larger.

The raw pull and avadata run `rounds` times each, taking turns (each round starts one
contender further along), each avadata round into a fresh store; the report gives every
round and compares medians. Why: this shared machine's speed drifts 10-20% within minutes, and
one run of each, minutes apart, moved the ratio by as much (0.63x and 0.66x in two runs of one
build). Given a PostgreSQL database, avadata runs into it (a fresh schema each round) and into
a fresh SQLite file, in turns with the raw pull, for the engines' ratio on the same chain in
the same minutes. ethereum-etl runs once: its ratio is far from its target either way.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from avadata.paths import REPO_ROOT

ETL_BIN = REPO_ROOT / ".bench" / "ethereum-etl" / "bin" / "ethereumetl"


@dataclass
class Result:
    name: str
    seconds: float  # the median round's
    blocks: int
    txs: int
    peak_rss_mb: float | None  # the largest of any round
    rollup_seconds: float | None = None  # avadata only: time inside the metrics rollup
    rounds: tuple[float, ...] = ()  # every round's seconds, in order

    @property
    def blocks_per_s(self) -> float:
        return self.blocks / self.seconds

    @property
    def txs_per_s(self) -> float:
        return self.txs / self.seconds


def _tree_rss_kib(pid: int) -> int:
    """VmRSS of `pid` plus that of all its descendants (0 for those already gone)."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                total += next((int(ln.split()[1]) for ln in f if ln.startswith("VmRSS:")), 0)
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def _run(
    args: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Run a command to completion; (wall seconds, peak RSS in MB of it and its descendants)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    assert proc.stderr is not None
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], _tree_rss_kib(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    done.set()
    sampler.join()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"{' '.join(args[:4])} failed ({code}): {err.decode()[-2000:]}")
    # wait4 gives this child's own rusage (and its waited-for descendants' largest), not the
    # maximum over every child so far; the samples add up processes running side by side.
    return seconds, max(usage.ru_maxrss, peak[0]) / 1024  # Linux reports KiB


async def raw_pull(url: str, last: int, chunk: int, in_flight: int) -> int:
    """Blocks with transactions, block receipts and traces (from the tracer the indexer would
    ask first on this node): fetched, parsed as JSON (every client must), then dropped.
    Returns the transaction count."""
    from avadata.sources.evm import EvmSource
    from avadata.sources.jsonrpc import JsonRpcClient

    txs = 0
    async with JsonRpcClient(url, max_in_flight=in_flight) as client:
        source = EvmSource(client)
        first, _ = await source.trace_order()
        window: list[asyncio.Task[int]] = []

        async def one(start: int, stop: int) -> int:
            numbers = [hex(n) for n in range(start, stop)]
            blocks, receipts, traces = await asyncio.gather(
                client.batch([("eth_getBlockByNumber", [n, True]) for n in numbers]),
                client.batch([("eth_getBlockReceipts", [n]) for n in numbers]),
                client.batch([source.trace_call(first, int(n, 16)) for n in numbers]),
            )
            for r in (*receipts, *traces):
                r.unwrap()
            return sum(len(b.unwrap()["transactions"]) for b in blocks)

        for start in range(0, last + 1, chunk):
            window.append(asyncio.create_task(one(start, min(start + chunk, last + 1))))
            if len(window) >= 3:
                txs += await window.pop(0)
        for task in window:
            txs += await task
    return txs


def run_etl(url: str, last: int, workdir: Path, batch: int, workers: int) -> float:
    """ethereum-etl's documented pipeline for these datasets; returns the peak RSS of its steps."""
    etl = str(ETL_BIN)
    common = ["-p", url, "-b", str(batch), "-w", str(workers)]
    rng = ["-s", "0", "-e", str(last)]
    steps = [
        [
            etl,
            "export_blocks_and_transactions",
            *rng,
            *common,
            "--blocks-output",
            "blocks.csv",
            "--transactions-output",
            "transactions.csv",
        ],
        [
            etl,
            "extract_csv_column",
            "--input",
            "transactions.csv",
            "--column",
            "hash",
            "--output",
            "hashes.txt",
        ],
        [
            etl,
            "export_receipts_and_logs",
            "--transaction-hashes",
            "hashes.txt",
            *common,
            "--receipts-output",
            "receipts.csv",
            "--logs-output",
            "logs.json",
        ],
        [etl, "extract_token_transfers", "--logs", "logs.json", "--output", "token_transfers.csv"],
        # Parity-style traces, as the indexer asks anvil for (geth tracing re-executes there).
        [etl, "export_traces", *rng, *common, "--output", "traces.csv"],
    ]
    return max(_run(step, cwd=workdir)[1] for step in steps)


def measure(
    url: str,
    last: int,
    txs: int,
    *,
    db_url: str | None,
    chunk: int,
    in_flight: int,
    etl: bool,
    rounds: int = 3,
) -> dict[str, Result]:
    """Time the contenders (module doc). `db_url`: a PostgreSQL database, whose every round
    goes to a fresh schema and takes turns with a round into a fresh SQLite file (the engines'
    ratio); an SQLite file, which takes one round only."""
    from avadata.store.dialect import is_sqlite_url
    from avadata.store.scratch import scratch_schema

    into_pg = db_url is not None and not is_sqlite_url(db_url)
    if db_url is not None and not into_pg and rounds != 1:
        raise ValueError("a given SQLite file can take one round only: each needs a fresh one")
    results: dict[str, Result] = {}
    with tempfile.TemporaryDirectory(prefix="avadata-bench-") as tmp:
        workdir = Path(tmp)
        py = sys.executable
        raw_cmd = [
            py, "-m", "avadata.bench.ingest", "raw", url, str(last), str(chunk), str(in_flight)
        ]  # fmt: skip

        def ours(db: str, n: int) -> tuple[float, float, float]:
            timing = workdir / f"rollup-seconds-{n}"
            secs, rss = _run(
                [py, "-m", "avadata.bench.timed_index", str(timing), "--rpc", url, "--db", db]
                + ["--once", "--chunk-blocks", str(chunk)]
            )
            return secs, rss, float(timing.read_text())

        def on_sqlite(n: int) -> tuple[float, float, float]:
            return ours(db_url if db_url and not into_pg else f"sqlite:///{workdir}/{n}.db", n)

        def on_pg(n: int) -> tuple[float, float, float]:
            assert db_url is not None
            with scratch_schema(db_url, f"avadata_bench_{os.getpid()}_{n}") as db:
                return ours(db, n)

        steps: dict[str, Callable[[int], tuple[float, ...]]] = {
            "raw pull": lambda n: _run(raw_cmd),
            "sqlite": on_sqlite,
        }
        if into_pg:
            steps["postgresql"] = on_pg
        runs = _take_turns(steps, rounds)
        raw_secs, _ = _median(runs["raw pull"])
        results["raw pull"] = Result(
            "raw pull (blocks, receipts, traces; JSON only)",
            raw_secs,
            last + 1,
            txs,
            max(r[1] for r in runs["raw pull"]),
            rounds=tuple(r[0] for r in runs["raw pull"]),
        )
        for engine in ("sqlite", "postgresql"):
            if engine in runs:
                results[f"avadata {engine}"] = _ours(engine, runs[engine], last + 1, txs)
        if etl:
            results["ethereum-etl"] = _time_etl(url, last, txs, workdir, chunk, in_flight)
    return results


def _take_turns(
    steps: dict[str, Callable[[int], tuple[float, ...]]], rounds: int
) -> dict[str, list[tuple[float, ...]]]:
    """Run every step `rounds` times, round n starting n places further along the list: each
    contender goes first, last and between as often as the others (the host's speed drifts)."""
    names = list(steps)
    runs: dict[str, list[tuple[float, ...]]] = {name: [] for name in names}
    for n in range(rounds):
        shift = n % len(names)
        for name in names[shift:] + names[:shift]:
            runs[name].append(steps[name](n))
    return runs


def _ours(engine: str, runs: list[tuple[float, ...]], blocks: int, txs: int) -> Result:
    mid = _median(runs)
    return Result(
        f"avadata index ({engine})",
        mid[0],
        blocks,
        txs,
        max(r[1] for r in runs),
        rollup_seconds=mid[2],
        rounds=tuple(r[0] for r in runs),
    )


def _time_etl(url: str, last: int, txs: int, workdir: Path, chunk: int, workers: int) -> Result:
    if not ETL_BIN.exists():
        subprocess.run([str(REPO_ROOT / "scripts" / "setup-bench.sh")], check=True)
    t0 = time.perf_counter()
    peak = run_etl(url, last, workdir, batch=chunk, workers=workers)
    seconds = time.perf_counter() - t0
    return Result(
        "ethereum-etl 2.4.2 (blocks, txs, receipts, logs, token transfers, traces)",
        seconds,
        last + 1,
        txs,
        peak,
        rounds=(seconds,),
    )


def _median(runs: list[Any]) -> Any:
    """The run of median seconds (the lower middle one of an even count)."""
    ordered = sorted(runs, key=lambda r: r[0])
    return ordered[(len(ordered) - 1) // 2]


def report(results: dict[str, Result], *, machine: str, command: str, build_seconds: float) -> str:
    raw = results["raw pull"]
    engines = [r for k, r in results.items() if k.startswith("avadata ")]
    ours = engines[-1]  # the store the command named (PostgreSQL when it ran beside SQLite)
    lines = [
        f"Command: `{command}`  ",
        f"Machine: {machine}  ",
        f"Chain: {ours.blocks:,} blocks, {ours.txs:,} transactions, built by the seeded traffic "
        f"generator in {build_seconds:.0f} s (not timed below).",
        "",
        "| contender | seconds (median) | rounds (s, in order) | blocks/s | tx/s | peak RSS (MB) |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for r in results.values():
        rss = f"{r.peak_rss_mb:.0f}" if r.peak_rss_mb is not None else "-"
        each = ", ".join(f"{x:.1f}" for x in r.rounds)
        lines.append(
            f"| {r.name} | {r.seconds:.1f} | {each} | {r.blocks_per_s:.1f} "
            f"| {r.txs_per_s:.0f} | {rss} |"
        )
    lines.append("")
    for r in engines:
        label = "avadata" if len(engines) == 1 else r.name.removeprefix("avadata index ")
        lines.append(
            f"{label} / raw pull (medians): **{r.blocks_per_s / raw.blocks_per_s:.2f}x** "
            "(target 0.7x)"
        )
    if len(engines) == 2:
        lines.append(
            "PostgreSQL / SQLite ingest, rounds taking turns on the same chain (medians): "
            f"**{engines[1].blocks_per_s / engines[0].blocks_per_s:.2f}x** "
            "(issue 25's target: 0.8x)"
        )
    if ours.rollup_seconds is not None:
        share = ours.rollup_seconds / ours.seconds
        lines.append(
            f"metrics rollup inside avadata's ingest: {ours.rollup_seconds:.1f} s of "
            f"{ours.seconds:.1f} s, **{share:.1%}** of ingest time (issue 4's target: under 10%)"
        )
    if "ethereum-etl" in results:
        etl = results["ethereum-etl"]
        lines.append(
            f"avadata / ethereum-etl: **{ours.blocks_per_s / etl.blocks_per_s:.2f}x** (target 3x)"
        )
    return "\n".join(lines)


def _raw_main(argv: list[str]) -> None:
    url, last, chunk, in_flight = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    print(json.dumps({"txs": asyncio.run(raw_pull(url, last, chunk, in_flight))}))


if __name__ == "__main__":
    if sys.argv[1:2] == ["raw"]:
        _raw_main(sys.argv[2:])
