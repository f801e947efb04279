"""`avadata bench ...`: benchmarks whose results go to docs/benchmarks.md."""

from __future__ import annotations

from typing import Annotated

import typer

# Every verb's last option: whether its section goes to docs/benchmarks.md (_publish).
WriteDocs = Annotated[bool, typer.Option(help="record the result in docs/benchmarks.md")]
# The synthetic EVM store `bench api` and `bench export` share (bench/api_store.py).
BenchStore = Annotated[
    str | None, typer.Option("--db", help="store URL (default: a fresh SQLite file)")
]
BenchTxs = Annotated[int, typer.Option(min=1, help="transactions in the synthetic store")]

app = typer.Typer(
    help="Benchmarks (results are recorded in docs/benchmarks.md).", no_args_is_help=True
)


def _publish(verb: str, text: str, write_docs: bool, db: str | None = None) -> None:
    """Print a benchmark's section and, with --write-docs, record it in docs/benchmarks.md
    under the heading of its command (a PostgreSQL run under its own heading, so it never
    replaces the SQLite figures)."""
    from avadata.bench.machine import write_section
    from avadata.paths import REPO_ROOT

    typer.echo(text)
    if write_docs:
        title = f"avadata bench {verb}"
        if db is not None and not db.startswith("sqlite"):
            title += " (PostgreSQL)"
        write_section(REPO_ROOT / "docs" / "benchmarks.md", title, text)


def _db_option(db: str | None, flag: str = "--db") -> str:
    """` --db URL` (its password masked) for a report's command line, or nothing: the command
    printed must be the one that ran, store included."""
    from avadata.store.urls import mask

    return "" if db is None else f" {flag} {mask(db)}"


@app.command("codec")
def codec(
    blocks: Annotated[int, typer.Option(help="P-chain blocks in the mixed stream")] = 2_000,
    seconds: Annotated[float, typer.Option(help="minimum seconds per decoder and stream")] = 5.0,
    seed: Annotated[int, typer.Option(help="seed of the stream builder")] = 1,
    write_docs: WriteDocs = True,
) -> None:
    """Decode throughput (tx/s) of a mixed P-chain block stream, ours beside avalanchejs.

    Example: avadata bench codec --blocks 2000 --seconds 5
    """
    from avadata.bench import codec as bench
    from avadata.bench.machine import describe
    from avadata.paths import TOOLS_DIR

    command = f"avadata bench codec --blocks {blocks} --seconds {seconds:g} --seed {seed}"
    parts = []
    for with_bls, title in (
        (True, "Mixed stream, validator txs with BLS proofs of possession"),
        (False, "Same stream shape, validator txs with an empty signer (codec work only)"),
    ):
        stream = bench.build_stream(blocks, seed, with_bls=with_bls)
        ours = bench.measure_ours(stream, seconds)
        theirs = bench.measure_avalanchejs(stream, seconds, TOOLS_DIR)
        parts.append(f"### {title}\n\n" + bench.report(ours, theirs, stream, describe(), command))
    text = "\n\n".join(parts)
    _publish("codec", text, write_docs)


@app.command("ingest")
def ingest(
    blocks: Annotated[int, typer.Option(help="blocks in the seeded chain")] = 2_050,
    txs_per_block: Annotated[int, typer.Option(help="mean transactions per block")] = 50,
    days: Annotated[int, typer.Option(help="simulated days the chain spans")] = 30,
    db: Annotated[
        str | None,
        typer.Option(
            help="store URL (default: a fresh SQLite file); a PostgreSQL database gets a fresh "
            "schema per round, and SQLite rounds in turns for the engines' ratio"
        ),
    ] = None,
    chunk: Annotated[int, typer.Option(help="blocks per batch, for every contender")] = 50,
    in_flight: Annotated[int, typer.Option(help="requests in flight, for every contender")] = 4,
    etl: Annotated[bool, typer.Option(help="also time ethereum-etl 2.4.2")] = True,
    rounds: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=21,
            help="runs of each contender, taking turns; medians compared [default: 3; 1 "
            "with an SQLite --db, as each round needs a fresh store]",
        ),
    ] = None,
    write_docs: WriteDocs = True,
) -> None:
    """Index a seeded chain; time the raw JSON-RPC pull and ethereum-etl on the same anvil.

    Example: avadata bench ingest --blocks 2050 --txs-per-block 50
    """
    import time

    from avadata.bench import ingest as bench
    from avadata.bench.machine import describe
    from avadata.devnet.evm.traffic import TrafficConfig, start_with_traffic
    from avadata.store.dialect import is_sqlite_url

    one_file = db is not None and is_sqlite_url(db)
    if rounds is None:
        rounds = 1 if one_file else 3
    if one_file and rounds != 1:
        raise typer.BadParameter(
            "an SQLite --db takes --rounds 1: each round needs a fresh store", param_hint="--rounds"
        )
    if db is not None and not one_file:
        from avadata.store.scratch import check_scratch

        check_scratch(db)  # before the minute the chain takes to build
    config = TrafficConfig(days=days, blocks=blocks, txs_per_block=txs_per_block)
    typer.echo(f"building the chain ({blocks} blocks)...", err=True)
    t0 = time.perf_counter()
    anvil, ledger = start_with_traffic(43113, config)
    build = time.perf_counter() - t0
    try:
        import httpx

        head = httpx.post(
            anvil.rpc_url,
            json={"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []},
        ).json()["result"]
        last = int(head, 16)
        txs = len(ledger.txs)
        results = bench.measure(
            anvil.rpc_url,
            last,
            txs,
            db_url=db,
            chunk=chunk,
            in_flight=in_flight,
            etl=etl,
            rounds=rounds,
        )
    finally:
        anvil.stop()
    command = (
        f"avadata bench ingest --blocks {blocks} --txs-per-block {txs_per_block} --days {days}"
        f" --chunk {chunk} --in-flight {in_flight} --rounds {rounds}"
        + ("" if etl else " --no-etl")
        + _db_option(db)
    )
    text = bench.report(results, machine=describe(), command=command, build_seconds=build)
    _publish("ingest", text, write_docs, db)


@app.command("primary")
def primary(
    p_blocks: Annotated[int, typer.Option(help="P-chain blocks the devnet simulates")] = 2_000,
    x_blocks: Annotated[int, typer.Option(help="X-chain blocks the devnet simulates")] = 100,
    utxos: Annotated[int, typer.Option(help="UTXOs (and txs) of the one hot address")] = 100_000,
    db: Annotated[
        str | None, typer.Option(help="store URL for the API part (reused when built already)")
    ] = None,
    page: Annotated[int, typer.Option(help="the deep page (walked in pages of 100)")] = 1_000,
    seconds: Annotated[float, typer.Option(help="wrk seconds per endpoint")] = 10.0,
    connections: Annotated[int, typer.Option(help="wrk connections")] = 4,
    client: Annotated[str, typer.Option(help="wrk (installed when missing) or httpx")] = "wrk",
    rounds: Annotated[int, typer.Option(help="requests per endpoint with --client httpx")] = 500,
    seed: Annotated[int, typer.Option(help="seed of the devnet's simulators")] = 1,
    write_docs: WriteDocs = True,
) -> None:
    """Primary network: the indexer's ingest rate from the devnet's Index API, and p50/p99/req/s
    of /transactions and /utxos for one address of >= 100,000 UTXOs, page 1 and a deep page.

    Example: avadata bench primary --p-blocks 2000 --utxos 100000 --page 1000
    """
    from avadata.bench import primary as bench
    from avadata.bench.machine import describe

    if client not in ("wrk", "httpx"):
        raise typer.BadParameter("--client must be wrk or httpx")
    typer.echo(f"ingest: devnet of {p_blocks} P / {x_blocks} X blocks...", err=True)
    ingest = bench.measure_ingest(p_blocks, x_blocks, seed)
    typer.echo(f"api: building a store of {utxos:,} UTXOs for one address...", err=True)
    store = bench.build_store(utxos, db)
    use_wrk = client == "wrk" and bench.wrk_available(install=True)
    served = bench.measure_api(
        store, page, use_wrk=use_wrk, seconds=seconds, connections=connections, rounds=rounds
    )
    typer.echo("api: the staking lists...", err=True)
    load = bench.Load(use_wrk, seconds, connections, rounds)
    staking = [
        bench.measure_staking(ingest.db, load),
        bench.measure_staking(store.db, load, address=store.hot),
    ]
    command = (
        f"avadata bench primary --p-blocks {p_blocks} --x-blocks {x_blocks} --utxos {utxos}"
        f" --page {page} --client {client}"
        + (
            f" --rounds {rounds}"
            if client == "httpx"
            else f" --seconds {seconds:g} --connections {connections}"
        )
        + f" --seed {seed}"
        + _db_option(db)
    )
    text = bench.report(ingest, served, page, describe(), command, staking)
    _publish("primary", text, write_docs, db)


@app.command("api")
def api(
    db: BenchStore = None,
    txs: BenchTxs = 1_000_000,
    seconds: Annotated[float, typer.Option(min=1, help="wrk duration per endpoint")] = 10.0,
    page: Annotated[int, typer.Option(min=2, help="the deep page compared with page 1")] = 10_000,
    workers: Annotated[int, typer.Option(min=1, help="avadata serve --workers")] = 1,
    connections: Annotated[
        int | None,
        typer.Option(min=1, help="wrk connections (default: calibrated on the trivial endpoint)"),
    ] = None,
    vs_db: Annotated[
        str | None,
        typer.Option(
            "--vs-db",
            help="a second store (built when missing), served beside the first and measured "
            "in turns with it, endpoint by endpoint: the two engines' ratios",
        ),
    ] = None,
    write_docs: WriteDocs = True,
) -> None:
    """Serve a store of >= 1M transactions and load every EVM endpoint with wrk, beside a
    trivial endpoint of the same app; p50/p99 and req/s go to docs/benchmarks.md.

    Example: avadata bench api --txs 1000000 --seconds 10
    """
    import os

    from avadata.bench.api_load import run
    from avadata.bench.machine import describe

    # The one setting that changes how the served reads run: part of the command that ran.
    inline = os.environ.get("AVADATA_API_INLINE_READS")
    text = (
        run(db, txs, seconds, page, workers, connections, vs_db)
        + f"\n\nMachine: {describe()}\n\n"
        + "Command: `"
        + (f"AVADATA_API_INLINE_READS={inline} " if inline else "")
        + f"avadata bench api --txs {txs} --seconds {seconds:g} --page {page}"
        + (f" --workers {workers}" if workers > 1 else "")
        + (f" --connections {connections}" if connections else "")
        + f"{_db_option(db)}"
        + _db_option(vs_db, "--vs-db")
        + "`"
    )
    _publish("api", text, write_docs, db)


@app.command("export")
def export(
    db: BenchStore = None,
    txs: BenchTxs = 1_000_000,
    fmt: Annotated[str, typer.Option("--format", help="csv or parquet")] = "csv",
    write_docs: WriteDocs = True,
) -> None:
    """Export a chain of >= 1M transactions to one file through the API and the export
    worker; the time from its first batch to the completed file goes to docs/benchmarks.md.

    Example: avadata bench export --txs 1000000 --format csv
    """
    from avadata.bench import exports as bench
    from avadata.bench.machine import describe

    if fmt not in ("csv", "parquet"):
        raise typer.BadParameter("csv or parquet", param_hint="--format")
    command = f"avadata bench export --txs {txs} --format {fmt}"
    _publish("export", bench.report(bench.run(db, txs, fmt), describe(), command), write_docs)


@app.command("metrics")
def metrics(
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
    write_docs: WriteDocs = True,
) -> None:
    """Write a synthetic chain with the rollup on, then time metric requests (p50/p99).

    Example: avadata bench metrics --txs 1000000 --days 365
    """
    from avadata.bench import metrics as bench
    from avadata.bench.machine import describe

    result = bench.run(
        txs=txs,
        days=days,
        accounts=accounts,
        rounds=rounds,
        db=db,
        in_process=in_process,
        log=typer.echo,
    )
    # No --db without one: the default is a fresh temp file, different every run.
    command = (
        f"avadata bench metrics --txs {txs} --days {days} --accounts {accounts}"
        f" --rounds {rounds}" + (" --in-process" if in_process else "") + _db_option(db)
    )
    _publish(
        "metrics",
        bench.report(result, rounds=rounds, machine=describe(), command=command),
        write_docs,
        db,
    )


@app.command("events")
def events(
    txs: Annotated[int, typer.Option(min=1, help="transfers sent, one block each")] = 200,
    interval: Annotated[float, typer.Option(min=0.0, help="seconds between two sends")] = 0.25,
    hooks: Annotated[int, typer.Option(min=1, help="webhooks watching the sender")] = 1,
    poll: Annotated[
        float, typer.Option(help="the indexer's --poll (its safety net beside eth_subscribe)")
    ] = 2.0,
    ingest_blocks: Annotated[
        int, typer.Option(min=0, help="then backfill this many blocks without, then with, --hooks")
    ] = 0,
    up: Annotated[
        bool,
        typer.Option(
            "--up",
            help="measure on `avadata up` itself (its devnet's live blocks, its settings): "
            "--txs transfers, one per live block; the other options do not apply",
        ),
    ] = False,
    write_docs: WriteDocs = True,
) -> None:
    """Block accepted → webhook POST, → SSE event, → Data API (p50/p99), on anvil with live
    blocks behind `avadata index` and `avadata serve`; with --hooks N, messages per second;
    with --ingest-blocks, the indexer's rate with the N webhooks delivering and with none;
    with --up, the same latencies on the stack `avadata up` starts.

    Example: avadata bench events --txs 20 --interval 0 --hooks 1000 --ingest-blocks 10000
    """
    from avadata.bench import events as bench
    from avadata.bench.machine import describe

    if up:
        from avadata.bench import events_up

        found = events_up.run(txs)
        command = f"avadata bench events --up --txs {txs}"
        text = bench.report(found, describe(), command, events_up.NOTE)
        _publish("events --up", text, write_docs)
        return
    result = bench.run(txs, interval, hooks, poll)
    extra: list[str] = []
    if ingest_blocks:
        from avadata.bench import events_ingest

        runs = tuple(events_ingest.ingest(ingest_blocks, n, poll) for n in (0, hooks))
        extra = events_ingest.rows(runs)
    command = (
        f"avadata bench events --txs {txs} --interval {interval:g} --hooks {hooks} --poll {poll:g}"
    ) + (f" --ingest-blocks {ingest_blocks}" if ingest_blocks else "")
    _publish("events", bench.report(result, describe(), command, extra), write_docs)
