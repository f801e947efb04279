"""`avadata devnet`: run the local network (anvil chains + seeded history + node facade)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

# Paragraphs are single logical lines (joined below): the help renderer keeps hard line
# breaks, so wrapping here would come out ragged in narrower terminals.
HELP = (
    "Run a local Avalanche devnet: real EVM nodes (anvil) with seeded history, one port."
    "\n\n"
    "Starts one anvil per EVM chain (the C-chain, chain ID 43113, and the L1s alpha 99901 and "
    "beta 99902) on 127.0.0.1 and fills each with a seeded history: contracts, native and token "
    "transfers, NFTs, internal value calls, creations and reverts over 45 simulated days ending "
    "at today's midnight UTC. Simulates the P- and X-chains over the same days in the real "
    "codec (validators, delegations, subnets, an L1 conversion, assets, atomic transfers with "
    "the C-chain) and indexes every P, X and C container as a node run with --index-enabled "
    "does. Then serves it all behind a node facade "
    "(/ext/bc/C/rpc, /ext/bc/<chain ID or name>/rpc, /ext/index/{P/block, X/block, X/tx, "
    "X/vtx, C/block}, /ext/health) and adds a few live blocks "
    "every --live-interval seconds. With --subsecond, a fourth chain (fast, 99903) mines "
    "several blocks a second and its headers carry timeMilliseconds, as Granite's do. "
    "The same --seed on the same day gives the same chains. "
    "With --data-dir the chains are saved on exit and reloaded, not regenerated, next time. "
    "Prints the RPC URLs and runs until Ctrl-C."
    "\n\n"
    "Example: avadata devnet --port 9650 --data-dir data/devnet --seed 1"
    "\n\n"
    "then: curl -s -X POST -H 'content-type: application/json' "
    """-d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' """
    "http://127.0.0.1:9650/ext/bc/C/rpc"
)


def devnet(
    port: Annotated[int, typer.Option(help="node facade port on 127.0.0.1")] = 9650,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="keep the chains' state and ledgers here across restarts"),
    ] = None,
    seed: Annotated[int, typer.Option(help="traffic generator seed")] = 1,
    blocks: Annotated[int, typer.Option(help="history blocks per chain")] = 300,
    txs_per_block: Annotated[int, typer.Option(help="mean transactions per history block")] = 10,
    days: Annotated[int, typer.Option(help="simulated days of history")] = 45,
    live_interval: Annotated[
        float, typer.Option(help="seconds between live blocks; 0 for none")
    ] = 3.0,
    index_enabled: Annotated[
        bool,
        typer.Option(
            help="index accepted P, X and C containers and serve the Index API (avalanchego's "
            "--index-enabled); turning it off after a run with it on needs "
            "--index-allow-incomplete"
        ),
    ] = True,
    index_allow_incomplete: Annotated[
        bool,
        typer.Option(help="start even if the index is or would become incomplete"),
    ] = False,
    subsecond: Annotated[
        bool,
        typer.Option(
            help="add the L1 fast (chain 99903): several blocks a second, served with "
            "millisecond headers (timeMilliseconds, ACP-226)"
        ),
    ] = False,
) -> None:
    from avadata.cli.ports import check_free
    from avadata.devnet.evm.traffic import TrafficConfig
    from avadata.devnet.network import Devnet, DevnetConfig, devnet_chains
    from avadata.devnet.primary.index_store import IndexConfigError

    if port:  # 0: any free port
        check_free(port, "--port")  # before minutes of history, and before "stopping"
    config = DevnetConfig(
        port=port,
        data_dir=data_dir,
        seed=seed,
        chains=devnet_chains(subsecond),
        history=TrafficConfig(
            seed=seed, days=days, blocks=blocks, txs_per_block=txs_per_block, start_timestamp=0
        ),
        live_interval=live_interval or None,
        index_enabled=index_enabled,
        index_allow_incomplete=index_allow_incomplete,
    )
    # SIGTERM (from `avadata up` or a service manager) stops as cleanly as Ctrl-C.
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    net = Devnet(config)
    typer.echo(f"avadata devnet: building {len(config.chains)} chains...", err=True)
    started = time.perf_counter()
    try:
        net.start(progress=_progress_printer())
        typer.echo(f"avadata devnet: up in {time.perf_counter() - started:.1f}s")
        typer.echo(f"  node       {net.url}  (GET /ext/health)")
        for name, chain in net.chains.items():
            typer.echo(
                f"  {name:<10} chain {chain.spec.chain_id:<6} {chain.rpc_url}"
                f"  (anvil {chain.anvil.rpc_url}, {len(chain.ledger.txs)} txs)"
            )
        if net.node is not None and config.index_enabled:
            names = "P/block X/block X/tx X/vtx C/block"
            typer.echo(f"  index      {net.url}/ext/index/<{names.replace(' ', ' | ')}>")
        typer.echo("Ctrl-C stops it.", err=True)
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # typically: the port is taken by another node or devnet
        typer.echo(f"avadata devnet: {exc}", err=True)
        raise typer.Exit(1) from exc
    except IndexConfigError as exc:  # rule 5: the index would be, or is, incomplete
        typer.echo(f"avadata devnet: {exc}", err=True)
        raise typer.Exit(1) from exc
    finally:
        typer.echo("avadata devnet: stopping", err=True)
        net.stop()


def _progress_printer() -> Callable[[str, int, int], None]:
    """One stderr line per tenth of the slowest chain's history (long histories take
    minutes); called from the chains' threads."""
    lock = threading.Lock()
    done_by_chain: dict[str, tuple[int, int]] = {}
    shown = [0]

    def report(chain: str, done: int, total: int) -> None:
        with lock:
            done_by_chain[chain] = (done, total)
            tenth = min(d * 10 // t for d, t in done_by_chain.values())
            if tenth > shown[0]:
                shown[0] = tenth
                parts = ", ".join(f"{c} {d}/{t}" for c, (d, t) in sorted(done_by_chain.items()))
                typer.echo(f"  history {tenth * 10}%: {parts} blocks", err=True)

    return report
