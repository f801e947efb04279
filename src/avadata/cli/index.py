"""`avadata index`: follow EVM chains (and later the primary network) into the store."""

from __future__ import annotations

import asyncio
from typing import Annotated
from urllib.parse import urlsplit

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from avadata.errors import AvadataError

HELP = """Index EVM chains into the store: backfill with a progress bar, then follow new blocks.

The chain ID of each --rpc URL is read from the node. Resumes where it stopped.

Example: avadata index --rpc http://127.0.0.1:9650/ext/bc/C/rpc --db sqlite:///data/a.db --once
"""


# --chunk-blocks' default.
CHUNK_BLOCKS = 50


def start_fetch_early(args: list[str]) -> bool:
    """Start the fetch processes `index` will start, before its options are parsed: parsing
    validates them through pydantic, ~0.15 s in which the processes could already be starting
    (each then fetches its first chunks while this one sets up: indexer/warm.py). A scan for
    --rpc, --db and --chunk-blocks only: the parse proper follows and starts what this did not,
    and a process started on a wrong guess fetches for nothing and dies with this one. True when
    it started them."""
    if "--help" in args:
        return False
    found: dict[str, list[str]] = {}
    rest = iter(args)
    for arg in rest:
        name, eq, value = arg.partition("=")
        if name not in ("--rpc", "--db", "--chunk-blocks"):
            continue
        if not eq:
            value = next(rest, "")
        found.setdefault(name, []).append(value)
    rpc, db = found.get("--rpc", []), found.get("--db", [""])[-1]
    chunk = found.get("--chunk-blocks", [str(CHUNK_BLOCKS)])[-1]
    if not rpc or not db or not chunk.isdigit():
        return False
    try:
        urls = [_http_url(u) for u in rpc]
    except typer.BadParameter:
        return False
    from avadata.indexer import warm

    warm.start([warm.Hint(url, db, int(chunk)) for url in urls])
    return True


def _http_url(value: str) -> str:
    """Refuse what cannot be a node's URL at once (it was retried for ~20 s, then reported as
    a failed request)."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise typer.BadParameter(f"{value!r} is not an http(s) URL with a host")
    return value


def _http_urls(values: list[str] | None) -> list[str] | None:
    return None if values is None else [_http_url(v) for v in values]


def _optional_http_url(value: str | None) -> str | None:
    return None if value is None else _http_url(value)


def index(
    db: Annotated[str, typer.Option("--db", help="sqlite:///path/file.db or postgresql://...")],
    rpc: Annotated[
        list[str] | None,
        typer.Option("--rpc", help="EVM JSON-RPC URL; repeat for more chains", callback=_http_urls),
    ] = None,
    node: Annotated[
        str | None,
        typer.Option(
            "--node",
            help="avalanchego URL for the primary network (Index API)",
            callback=_optional_http_url,
        ),
    ] = None,
    once: Annotated[
        bool, typer.Option("--once", help="backfill to the current head, then exit 0")
    ] = False,
    chunk_blocks: Annotated[
        int, typer.Option(min=1, max=10_000, help="blocks per write")
    ] = CHUNK_BLOCKS,
    node_batch: Annotated[
        int,
        typer.Option(min=1, max=1024, help="primary-network containers per write (with --node)"),
    ] = 1024,
    native_balances: Annotated[
        str,
        typer.Option(
            help="native balance snapshots: head (default; any node), history (every touched "
            "block; needs an archive node), off"
        ),
    ] = "head",
    poll: Annotated[
        float, typer.Option(min=0.1, help="seconds between head polls when following")
    ] = 2.0,
    commit_seconds: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=3600.0,
            help="seconds of EVM writes per commit at most (fewer commits write less; a crash "
            "re-fetches what was not committed; 0: commit every write)",
        ),
    ] = 2.0,
) -> None:
    if rpc:
        from avadata.indexer import warm

        # First thing: each chain's fetch process imports its modules while this one does.
        warm.start([warm.Hint(url, db, chunk_blocks) for url in rpc])
    from avadata.heap import tune_for_indexing
    from avadata.indexer.appliers import default_appliers
    from avadata.indexer.enrich import NativeBalanceMode
    from avadata.indexer.run import RunOptions, index_chains
    from avadata.store.engine import make_engine
    from avadata.store.migrate import migrate

    tune_for_indexing()

    if native_balances not in {m.value for m in NativeBalanceMode}:
        typer.echo("avadata index: --native-balances must be head, history or off", err=True)
        raise typer.Exit(2)
    if not rpc and node is None:
        typer.echo("avadata index: give --rpc URL and/or --node URL", err=True)
        raise typer.Exit(2)
    engine = make_engine(db)
    migrate(engine)
    if node is not None:
        from avadata.indexer.primary.run import index_node

        def primary() -> None:
            try:
                asyncio.run(index_node(engine, node, once=once, poll=poll, batch=node_batch))
            except AvadataError as exc:
                typer.echo(f"avadata index --node: {exc}", err=True)
                raise typer.Exit(1) from exc

        if once or not rpc:
            primary()
            if not rpc:
                return
        else:
            # Following both: the primary network in its own thread (and event loop), so
            # neither follower waits for the other; a failure there ends the whole command,
            # as a failure of the EVM follower does.
            import os
            import threading

            def follow_primary() -> None:
                try:
                    primary()
                finally:
                    os._exit(1)  # the follower only returns on failure

            threading.Thread(target=follow_primary, name="index-primary", daemon=True).start()
    options = RunOptions(
        once=once,
        poll_seconds=poll,
        chunk_blocks=chunk_blocks,
        native_balances=NativeBalanceMode(native_balances),
        commit_seconds=commit_seconds,
    )
    with Progress(
        TextColumn("[bold]chain {task.fields[chain]}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} blocks"),
        TextColumn("{task.fields[bps]:.0f} blocks/s {task.fields[tps]:.0f} tx/s"),
        TimeRemainingColumn(),
        transient=False,
    ) as bar:

        def on_start(chain_id: int, url: str, progress: object) -> None:
            import time

            from avadata.indexer.evm import Progress as P

            assert isinstance(progress, P)
            task = bar.add_task("index", total=None, chain=chain_id, bps=0.0, tps=0.0)
            t0 = time.monotonic()

            def listener(p: P) -> None:
                dt = max(time.monotonic() - t0, 1e-6)
                bar.update(
                    task,
                    completed=p.next_block,
                    total=p.target,
                    bps=p.blocks / dt,
                    tps=p.transactions / dt,
                )

            progress.listeners.append(listener)

        try:
            asyncio.run(
                index_chains(
                    engine, rpc or [], options, appliers=default_appliers(), on_start=on_start
                )
            )
        except AvadataError as exc:
            typer.echo(f"avadata index: {exc}", err=True)
            raise typer.Exit(1) from exc
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
