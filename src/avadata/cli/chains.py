"""`avadata chains`: what a store holds, chain by chain: identity, indexed head, lag."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer

HELP = """List the chains a store holds: network, blockchain ID, subnet ID, name, native token,
the highest indexed block, and how far behind its node that is (the node asked once, briefly;
"?" when it does not answer).

Example: avadata chains --db sqlite:///data/avadata.db
"""


def chains(
    db: Annotated[str, typer.Option("--db", help="sqlite:///path/file.db or postgresql://...")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per chain")] = False,
    lag: Annotated[bool, typer.Option(help="ask each chain's node for its head")] = True,
) -> None:
    from avadata import networks
    from avadata.indexer.identity import node_heads
    from avadata.store.engine import make_engine
    from avadata.store.identity import chain_statuses
    from avadata.store.migrate import migrate

    engine = make_engine(db)
    migrate(engine)  # an older store is shown re-labelled (revision 0012)
    with engine.connect() as conn:
        rows = chain_statuses(conn)
    urls = sorted({r.rpc_url for r in rows if r.rpc_url})
    heads = asyncio.run(node_heads(urls)) if lag and urls else {}
    for r in rows:
        node_head = heads.get(r.rpc_url) if r.rpc_url else None
        behind = None if node_head is None or r.head is None else max(0, node_head - r.head)
        net = None if r.network_id is None else networks.by_id(r.network_id).name
        if as_json:
            fields = {
                "chainId": r.chain_id,
                "network": net,
                "networkId": r.network_id,
                "blockchainId": r.blockchain_id,
                "subnetId": r.subnet_id,
                "name": r.name,
                "nativeToken": r.token_symbol,
                "head": r.head,
                "lag": behind,
                "rpcUrl": r.rpc_url,
            }
            typer.echo(json.dumps(fields))
            continue
        typer.echo(
            f"{r.chain_id:>10}  {net or '?':<14} {r.blockchain_id or '-':<51} "
            f"{r.name or '-':<16} {r.token_symbol or '-':<8} head {_n(r.head):>10}  "
            f"lag {_n(behind)}"
        )
    if not rows:
        typer.echo("no chains in this store", err=True)


def _n(value: int | None) -> str:
    return "?" if value is None else str(value)
