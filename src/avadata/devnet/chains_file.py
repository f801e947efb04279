"""The devnet's chains file: who its chains are, as an operator's chains file says it
(indexer/chains_file.py), for what no node API tells: an L1's native token.

Stage: devnet. Written to <data-dir>/chains.toml when the devnet starts with a data dir;
`avadata index --node URL --chains <data-dir>/chains.toml --rpc ...` then labels every chain
as the devnet made it.
"""

from __future__ import annotations

from collections.abc import Sequence

from avadata.decode.codec.ids import cb58_encode
from avadata.devnet.primary.network_ids import C_CHAIN_ID, NETWORK_ID, PRIMARY_SUBNET_ID
from avadata.devnet.primary.node import PrimaryNode
from avadata.indexer.chains_file import render
from avadata.records.identity import ChainIdentity, NativeToken


def identities(chains: Sequence[tuple[str, int]], node: PrimaryNode | None) -> list[ChainIdentity]:
    """The identity of each (name, EVM chain ID) of the devnet; `node` knows the L1s."""
    out: list[ChainIdentity] = []
    for name, chain_id in chains:
        if name == "C":
            out.append(
                ChainIdentity(
                    chain_id,
                    network_id=NETWORK_ID,
                    blockchain_id=cb58_encode(C_CHAIN_ID),
                    subnet_id=cb58_encode(PRIMARY_SUBNET_ID),
                    name="C-Chain",
                )
            )
            continue
        if node is None:
            out.append(ChainIdentity(chain_id, network_id=NETWORK_ID, name=name))
            continue
        with node.lock:
            blockchain = node.sim.chain_of.get(name)
            info = node.sim.p.state.chains.get(blockchain) if blockchain else None
            config = node.sim.evm_config(name)
        token = config.native_token if config is not None else None
        out.append(
            ChainIdentity(
                chain_id,
                network_id=NETWORK_ID,
                blockchain_id=cb58_encode(blockchain) if blockchain else None,
                subnet_id=cb58_encode(info.subnet_id) if info is not None else None,
                name=name,
                token=NativeToken(*token) if token else NativeToken(),
            )
        )
    return out


def text(chains: Sequence[tuple[str, int]], node: PrimaryNode | None) -> str:
    header = "# The devnet's chains (avadata index --chains FILE)\n"
    return header + render(identities(chains, node))
