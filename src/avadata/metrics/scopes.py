"""Which chains a distinct count runs over: the membership scopes and their keys.

Stage: metrics (pure). `store/metrics/scope_rows.py` keeps the aggregate scopes' rows.

A scope is the set of chains a distinct count runs over. A single chain's scope key is its
chain ID in decimal. An aggregate (`total`, `mainnet`, `testnet`) with two or more chains gets
a key derived from its set of chain IDs ("agg:" + a digest), so aggregates with the same chains
(total == testnet on a one-network devnet) share their rows, and an aggregate of one chain
simply reads that chain's rows: a single-chain store writes every membership row once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal

from avadata.networks import MAINNET_ID

TOTAL = "total"
AGGREGATES = (TOTAL, "mainnet", "testnet")


def network_of(stored: str | None, network_id: int | None = None) -> Literal["mainnet", "testnet"]:
    """The metrics network of a chain: mainnet for network 1 (avalanchego's mainnet ID), any
    other network ID is a test network; a chain without one follows its stored
    mainnet/testnet mark, else testnet (a devnet)."""
    if network_id is not None:
        return "mainnet" if network_id == MAINNET_ID else "testnet"
    return "mainnet" if stored == "mainnet" else "testnet"


def key_of(chain_ids: Iterable[int]) -> str:
    """The scope key of a set of chains ("" for none)."""
    ids = sorted(set(chain_ids))
    if len(ids) <= 1:
        return str(ids[0]) if ids else ""
    digest = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:20]
    return f"agg:{digest}"


def aggregate_sets(
    chains: Iterable[tuple[int, str | None, int | None]],
) -> dict[str, tuple[int, ...]]:
    """{total/mainnet/testnet: chain IDs}, from the (chain ID, stored network, network ID) of
    each chain."""
    rows = list(chains)
    out: dict[str, tuple[int, ...]] = {}
    for name in AGGREGATES:
        out[name] = tuple(
            sorted(int(c) for c, n, i in rows if name == TOTAL or network_of(n, i) == name)
        )
    return out
