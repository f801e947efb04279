"""`avadata index`: follow EVM chains (and later the primary network) into the store."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

if TYPE_CHECKING:
    from avadata.indexer.run import RunOptions
    from avadata.store.types import Engine
    from avadata.store.writer import Applier

HELP = """Index EVM chains into the store: backfill with a progress bar, then follow new blocks.

The chain ID of each --rpc URL is read from the node. Resumes where it stopped.

Example: avadata index --rpc http://127.0.0.1:9650/ext/bc/C/rpc --db sqlite:///data/a.db --once
"""


# --chunk-blocks' default.
CHUNK_BLOCKS = 50

# What `index` runs in each write transaction besides the rows: the caller of the command line
# may pass its own maker (cli.main.main's `appliers`; bench/timed_index.py times the rollup so),
# else `indexer.appliers.default_appliers`. Called after the fetch processes started.
AppliersMaker = Callable[[], Sequence["Applier"]]


def start_fetch_early(args: list[str]) -> bool:
    """Start the fetch processes `index` will start, before its options are parsed: parsing
    validates them through pydantic, ~0.15 s in which the processes could already be starting
    (each then fetches its first chunks while this one sets up: indexer/fetch/spawn.py). A scan
    for --rpc, --db and --chunk-blocks only: the parse proper follows and starts what this did
    not, and a process started on a wrong guess fetches for nothing and dies with this one. True
    when it started them."""
    if "--help" in args:
        return False
    found = _scan(args, ("--rpc", "--db", "--chunk-blocks"))
    rpc, db = found.get("--rpc", []), found.get("--db", [""])[-1]
    chunk = found.get("--chunk-blocks", [str(CHUNK_BLOCKS)])[-1]
    if not rpc or not db or not chunk.isdigit():
        return False
    try:
        urls = [_http_url(u) for u in rpc]
    except typer.BadParameter:
        return False
    start_fetch(urls, db, int(chunk))
    return True


def _scan(args: list[str], names: tuple[str, ...]) -> dict[str, list[str]]:
    """The values of the options `names` in `args`, as `--name value` or `--name=value`."""
    found: dict[str, list[str]] = {}
    rest = iter(args)
    for arg in rest:
        name, eq, value = arg.partition("=")
        if name not in names:
            continue
        if not eq:
            value = next(rest, "")
        found.setdefault(name, []).append(value)
    return found


def start_fetch(rpc_urls: Sequence[str], db: str, chunk_blocks: int) -> None:
    """Start a fetch process per node now (one not taken yet for the same node, store and chunk
    size is not started again): the one call that starts them ahead, from the early scan or
    from `index`."""
    from avadata.indexer.fetch import spawn
    from avadata.indexer.fetch.protocol import Hint

    spawn.start([Hint(url, db, chunk_blocks) for url in rpc_urls])


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


# `index`'s options.
DbOption = Annotated[str, typer.Option("--db", help="sqlite:///path/file.db or postgresql://...")]
RpcOption = Annotated[
    list[str] | None,
    typer.Option("--rpc", help="EVM JSON-RPC URL; repeat for more chains", callback=_http_urls),
]
NodeOption = Annotated[
    str | None,
    typer.Option(
        "--node",
        help="avalanchego URL for the primary network (Index API)",
        callback=_optional_http_url,
    ),
]
OnceOption = Annotated[
    bool, typer.Option("--once", help="backfill to the current head, then exit 0")
]
ChunkBlocksOption = Annotated[int, typer.Option(min=1, max=10_000, help="blocks per write")]
NodeBatchOption = Annotated[
    int,
    typer.Option(min=1, max=1024, help="primary-network containers per write (with --node)"),
]
NativeBalancesOption = Annotated[
    str,
    typer.Option(
        help="native balance snapshots: head (default; any node), history (every touched "
        "block; needs an archive node), off"
    ),
]
PollOption = Annotated[
    float, typer.Option(min=0.1, help="seconds between head polls when following")
]
ChainsOption = Annotated[
    Path | None,
    typer.Option(
        "--chains",
        help="TOML file naming the chains (network, blockchain/subnet ID, name, native "
        "token, explorer URL) where no node says it (docs/cli.md)",
        exists=True,
        dir_okay=False,
    ),
]
NetworkOption = Annotated[
    str | None,
    typer.Option(
        help="the network of the chains (mainnet, fuji, local, network-<id> or an ID) when "
        "neither the node nor the chains file says it"
    ),
]
LabelOption = Annotated[
    list[str] | None,
    typer.Option(
        "--label",
        help="KEY=VALUE identity of the one --rpc chain: network, blockchain_id, subnet_id, "
        "name, explorer_url, token_name, token_symbol, token_decimals, token_logo",
    ),
]
WebhooksOption = Annotated[
    bool,
    typer.Option(
        "--webhooks/--no-webhooks",
        help="deliver webhooks while following (one process of all that deliver on a store "
        "does: docs/webhooks.md)",
    ),
]
CommitSecondsOption = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=3600.0,
        help="seconds of EVM writes per commit at most (fewer commits write less; a crash "
        "re-fetches what was not committed; 0: commit every write)",
    ),
]


def index(
    ctx: typer.Context,
    db: DbOption,
    rpc: RpcOption = None,
    node: NodeOption = None,
    once: OnceOption = False,
    chunk_blocks: ChunkBlocksOption = CHUNK_BLOCKS,
    node_batch: NodeBatchOption = 1024,
    native_balances: NativeBalancesOption = "head",
    poll: PollOption = 2.0,
    commit_seconds: CommitSecondsOption = 2.0,
    chains: ChainsOption = None,
    network: NetworkOption = None,
    label: LabelOption = None,
    webhooks: WebhooksOption = True,
) -> None:
    if rpc:
        # First thing: each chain's fetch process imports its modules while this one does.
        start_fetch(rpc, db, chunk_blocks)
    # What the run loads, loaded before the collector is tuned (gc_tuning.py: it freezes them).
    from avadata.gc_tuning import tune_for_indexing
    from avadata.indexer.appliers import default_appliers
    from avadata.indexer.fetch.protocol import NativeBalanceMode
    from avadata.indexer.run import RunOptions
    from avadata.store.probe import open_store

    tune_for_indexing()

    if native_balances not in {m.value for m in NativeBalanceMode}:
        typer.echo("avadata index: --native-balances must be head, history or off", err=True)
        raise typer.Exit(2)
    if not rpc and node is None:
        typer.echo("avadata index: give --rpc URL and/or --node URL", err=True)
        raise typer.Exit(2)
    network_id = _network_id(network)
    engine = open_store(db)
    _label_chains(engine, rpc or [], node, chains, label or [], network_id)
    options = RunOptions(
        once=once,
        poll_seconds=poll,
        chunk_blocks=chunk_blocks,
        native_balances=NativeBalanceMode(native_balances),
        commit_seconds=commit_seconds,
    )
    delivery = _start_delivery(db) if webhooks and not once else None
    try:
        appliers: AppliersMaker = ctx.obj or default_appliers
        _index(engine, rpc or [], node, node_batch, network_id, options, appliers)
    finally:
        if delivery is not None:
            delivery.stop()


def _index(
    engine: Engine,
    rpc: list[str],
    node: str | None,
    node_batch: int,
    network_id: int | None,
    options: RunOptions,
    make_appliers: AppliersMaker,
) -> None:
    """Index the primary network (--node), the EVM chains (--rpc), or both."""
    if node is not None:
        once, poll = options.once, options.poll_seconds
        _index_primary(
            engine, node, once=once, poll=poll, batch=node_batch, beside=bool(rpc), net=network_id
        )
        if not rpc:
            return
    _index_evm(engine, rpc, options, make_appliers())


def _start_delivery(db: str) -> Any:
    """A following `index` delivers webhooks too (docs/webhooks.md), so a deployment that runs
    `index` and `serve` apart gets deliveries from either; the store's delivery lease lets one
    worker of all send. Receivers on private addresses: as AVADATA_WEBHOOK_PRIVATE_TARGETS
    (and AVADATA_HOST) say, `index` having no --host of its own."""
    from avadata.delivery.host import DeliveryHost
    from avadata.settings import Settings

    settings = Settings(db_url=db)
    # A serve on the same store delivers when there is one: it asks for the lease first.
    host = DeliveryHost(settings, defer_s=settings.webhook_lease_s)
    host.start()
    return host


def _network_id(network: str | None) -> int | None:
    from avadata import networks

    try:
        return None if network is None else networks.parse(network).network_id
    except ValueError as exc:
        typer.echo(f"avadata index: --network: {exc}", err=True)
        raise typer.Exit(2) from None


def _label_chains(
    engine: Engine,
    rpc: list[str],
    node: str | None,
    chains: Path | None,
    labels: list[str],
    network_id: int | None,
) -> None:
    """Who each --rpc chain is and which network the node's primary network is
    (indexer/identity.py), written before any block; a chains file that does not parse or an
    identity the store contradicts stops here, no chain written (exit 2)."""
    from avadata.indexer import chains_file, identity
    from avadata.store.identity import write_identities

    # A file or identity that does not fit is a usage error (identity.IdentityError,
    # chains_file.ChainsFileError: exit 2); a node that does not answer is not (exit 1).
    given = {} if chains is None else chains_file.parse(chains.read_text(), str(chains))
    found = (
        asyncio.run(identity.gather(engine, rpc, node, given, labels=labels, network_id=network_id))
        if rpc
        else []
    )
    if node is not None:  # checked, then written: the first write of the run
        asyncio.run(identity.record_primary_network(engine, node, network_id))
    write_identities(engine, found)


def _index_primary(
    engine: Engine,
    node: str,
    *,
    once: bool,
    poll: float,
    batch: int,
    beside: bool,
    net: int | None,
) -> None:
    """Index the primary network: here and now, when it is alone (`beside` off) or a backfill;
    following beside the EVM chains, in its own thread."""
    from avadata.indexer.primary.run import index_node

    def primary() -> None:
        asyncio.run(index_node(engine, node, once=once, poll=poll, batch=batch, network_id=net))

    if once or not beside:
        primary()  # a failure reaches cli/failures.py
        return
    # Following both: the primary network in its own thread (and event loop), so neither
    # follower waits for the other; a failure there ends the whole command, as a failure of
    # the EVM follower does (in the same one line: the thread's failure never reaches main).
    import os
    import threading

    from avadata.cli import failures

    def follow_primary() -> None:
        try:
            primary()
        except Exception as exc:
            if failures.debug_requested([])[1]:
                import traceback

                traceback.print_exc()  # as --debug asks (os._exit below skips the thread's hook)
            else:
                failures.report(exc, ["index"])
        finally:
            os._exit(1)  # the follower only returns on failure

    threading.Thread(target=follow_primary, name="index-primary", daemon=True).start()


def _index_evm(
    engine: Engine, rpc: list[str], options: RunOptions, appliers: Sequence[Applier]
) -> None:
    """Index the EVM chains behind `rpc`, a progress bar per chain."""
    from avadata.indexer.run import index_chains

    with Progress(
        TextColumn("[bold]chain {task.fields[chain]}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} blocks"),
        TextColumn("{task.fields[bps]:.0f} blocks/s {task.fields[tps]:.0f} tx/s"),
        TimeRemainingColumn(),
        transient=False,
    ) as bar:
        # A failure reaches cli/failures.py, which prints it in one line once the bars stop.
        try:
            asyncio.run(
                index_chains(engine, rpc, options, appliers=appliers, on_start=_progress_bars(bar))
            )
        except KeyboardInterrupt:
            raise typer.Exit(130) from None


def _progress_bars(bar: Progress) -> Callable[[int, str, object], None]:
    """`index_chains`' on_start: a bar per chain on `bar`, moved by the chain's progress."""

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

    return on_start
