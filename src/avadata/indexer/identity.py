"""Who the chains `avadata index` is about to index are: asked of the node, read from the
operator's chains file and flags, checked against the store, then written.

Indexer stage. The truth comes in three layers, the first that says something wins:
1. the operator's flags (one --rpc) and chains file (by EVM chain ID);
2. the node (`--node`): its network ID (info.getNetworkID) and, for each EVM chain it runs
   (platform.getBlockchains, the EVM VMs), the blockchain ID, subnet ID and name (the
   CreateChainTx's chainName, as the P-chain keeps it) and the EVM chain ID (eth_chainId on
   /ext/bc/<id>/rpc); the C-chain is named "C-Chain", as the P-chain names it;
3. the known networks (networks.py): 43114 and 43113 are mainnet's and Fuji's C-chains.

A layer that contradicts a higher one on an ID (another blockchain ID for the same chain ID)
is an error; so is an identity that contradicts the store (store/identity.py `conflicts`).
Both stop `avadata index` before it writes anything.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

from avadata import networks
from avadata.decode import node_info as decode
from avadata.errors import ConfigError, SourceError
from avadata.indexer import chains_file
from avadata.records.identity import ChainIdentity
from avadata.sources import node_info as source
from avadata.sources.jsonrpc import RetryPolicy
from avadata.store import identity as store
from avadata.store.types import Engine

log = logging.getLogger(__name__)

EVM_VM_NAME = "EVM"  # the Data API's vmName of every chain we index


class IdentityError(ConfigError):
    """The chains' identities contradict each other or the store. A usage error: exit 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=2)


# Nodes already warned about: a run asks twice (the chains, then the primary network).
_WARNED: set[str] = set()


async def _node_network(node: str, retry: RetryPolicy | None) -> int | None:
    """info.getNetworkID, or None from a node with its info API off (a warning, once)."""
    try:
        return decode.network_id(await source.network_id(node, retry))
    except (SourceError, ValueError) as exc:
        if node not in _WARNED:
            _WARNED.add(node)
            log.warning("no network ID from %s (%s)", node, exc)
        return None


async def from_node(
    node: str, retry: RetryPolicy | None = None
) -> tuple[int | None, dict[int, ChainIdentity]]:
    """(the node's network ID, {EVM chain ID: identity} of every EVM chain it runs). A chain
    whose RPC does not answer is left out (a node need not serve every chain it knows); a
    node without the info or platform API says what the other tells."""
    network_id = await _node_network(node, retry)
    try:
        listed = decode.blockchains(await source.blockchains(node, retry))
    except (SourceError, ValueError) as exc:
        log.warning("no blockchains from %s (%s)", node, exc)
        listed = []
    chains = [c for c in listed if c.is_evm]
    # Mainnet lists hundreds of EVM chains, most of them not run by this node (a quick 404).
    turns = asyncio.Semaphore(16)
    once = RetryPolicy(max_attempts=2)

    async def chain_id(chain: decode.Blockchain) -> int | None:
        try:
            async with turns:
                url = source.chain_rpc_url(node, chain.blockchain_id)
                answer = await source.evm_chain_id(url, once)
            return decode.quantity(answer)
        except (SourceError, ValueError) as exc:
            log.info("no EVM RPC for %s (%s) on %s: %s", chain.name, chain.blockchain_id, node, exc)
            return None

    ids = await asyncio.gather(*(chain_id(c) for c in chains))
    found: dict[int, ChainIdentity] = {}
    for chain, evm_id in zip(chains, ids, strict=True):
        if evm_id is None:
            continue
        found[evm_id] = ChainIdentity(
            evm_id,
            network_id=network_id,
            blockchain_id=chain.blockchain_id,
            subnet_id=chain.subnet_id,
            name=chain.name,
            vm_name=EVM_VM_NAME,
        )
    return network_id, found


def known(chain_id: int) -> ChainIdentity:
    """What the known networks say of `chain_id` (a mainnet or Fuji C-chain), else nothing."""
    net = networks.c_chain_network(chain_id)
    if net is None:
        return ChainIdentity(chain_id, vm_name=EVM_VM_NAME)
    return ChainIdentity(
        chain_id,
        network_id=net.network_id,
        blockchain_id=net.c_chain_id,
        subnet_id=networks.PRIMARY_SUBNET_ID,
        name="C-Chain",
        vm_name=EVM_VM_NAME,
    )


def _disagree(a: ChainIdentity, b: ChainIdentity) -> list[str]:
    out = []
    for key in ("blockchain_id", "subnet_id", "network_id"):
        x, y = getattr(a, key), getattr(b, key)
        if x is not None and y is not None and x != y:
            out.append(
                f"chain {a.chain_id}: {key} is {x} in the chains file/flags, {y} on the node"
            )
    return out


def combine(
    rpc_chains: Mapping[str, int],
    given: Mapping[int, ChainIdentity],
    node: Mapping[int, ChainIdentity],
    network_id: int | None = None,
) -> list[ChainIdentity]:
    """The identity of each chain behind an --rpc URL (URL -> EVM chain ID), layers merged
    (module doc); `network_id` (the operator's --network) for a chain whose entry names none.
    IdentityError when the operator's layer contradicts the node's."""
    out: list[ChainIdentity] = []
    problems: list[str] = []
    for url, chain_id in rpc_chains.items():
        ident = replace(given.get(chain_id, ChainIdentity(chain_id)), rpc_url=url)
        ident = ident.merged(ChainIdentity(chain_id, network_id=network_id))
        if chain_id in node:
            problems += _disagree(ident, node[chain_id])
            ident = ident.merged(node[chain_id])
        out.append(ident.merged(known(chain_id)))
    if problems:
        raise IdentityError("; ".join(problems))
    return out


async def rpc_chain_ids(urls: Sequence[str], retry: RetryPolicy | None = None) -> dict[str, int]:
    answers = await asyncio.gather(*(source.evm_chain_id(u, retry) for u in urls))
    return {u: decode.quantity(a) for u, a in zip(urls, answers, strict=True)}


async def gather(
    engine: Engine,
    rpc: Sequence[str],
    node: str | None,
    given: Mapping[int, ChainIdentity],
    *,
    labels: Sequence[str] = (),
    network_id: int | None = None,
    retry: RetryPolicy | None = None,
) -> list[ChainIdentity]:
    """Every --rpc chain's identity, checked against the store (nothing written yet).
    `labels` (--label KEY=VALUE) name the one --rpc chain; they win over its file entry."""
    on_node: dict[int, ChainIdentity] = {}
    if node is not None:
        _, on_node = await from_node(node, retry)
    rpc_chains = await rpc_chain_ids(rpc, retry)
    given = dict(given)
    if labels:
        if len(rpc_chains) != 1:
            raise IdentityError("--label names one chain: give exactly one --rpc with it")
        (chain_id,) = rpc_chains.values()
        flagged = chains_file.parse_labels(list(labels), chain_id)
        given[chain_id] = flagged.merged(given.get(chain_id, ChainIdentity(chain_id)))
    identities = combine(rpc_chains, given, on_node, network_id)
    with engine.connect() as conn:
        problems = store.conflicts(conn, identities)
    if problems:
        raise IdentityError("the store says otherwise: " + "; ".join(problems))
    return identities


async def record_primary_network(
    engine: Engine, node: str, given: int | None = None, retry: RetryPolicy | None = None
) -> int | None:
    """Record which network the node's primary network is (info.getNetworkID), so the API
    serves its P/X/C under that network only. A node with its info API off
    (--api-info-enabled=false) leaves it to `given` (the operator's --network); without
    either it stays unrecorded and the API serves the primary network under no network.
    IdentityError when the node and `given` disagree, or the store holds another network's."""
    network_id = await _node_network(node, retry)
    if network_id is not None and given is not None and network_id != given:
        raise IdentityError(f"the node at {node} is on network {network_id}, not {given}")
    network_id = network_id if network_id is not None else given
    if network_id is None:
        return None
    with engine.connect() as conn:
        stored = store.primary_network(conn)
    if stored is not None and stored != network_id:
        raise IdentityError(
            f"the store holds the primary network of network {stored}; the node at {node} "
            f"is on network {network_id} (use another store)"
        )
    store.record_primary_network(engine, network_id)
    return network_id


async def node_heads(urls: Sequence[str]) -> dict[str, int | None]:
    """The head block of each chain's node (eth_blockNumber), None where it does not answer
    at once (`avadata chains` shows the lag; a node down is not an error there)."""
    once = RetryPolicy(max_attempts=1)

    async def head(url: str) -> int | None:
        try:
            return decode.quantity(await source.block_number(url, once, timeout=5.0))
        except (SourceError, ValueError):
            return None

    heads = await asyncio.gather(*(head(u) for u in urls))
    return dict(zip(urls, heads, strict=True))
