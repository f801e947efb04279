"""The C-chain's `eth_getChainConfig`, as coreth answers it on /ext/bc/C/rpc.

Stage: devnet facade. anvil does not know the method; coreth answers with libevm's chain
config merged with its Avalanche extras into one flat object, keys sorted (built from a Go
map, as subnet-evm's: reference node-rpc.md section 4): the chain ID, the Ethereum forks
active from genesis (blocks 0; DAO fork supported), Shanghai and Cancun at Durango and Etna
(coreth's SetEthUpgrades), and every Avalanche upgrade's timestamp under coreth's own JSON
names. The devnet is Fuji-shaped, so the times are Fuji's (primary/network_ids.py).
"""

from __future__ import annotations

from typing import Any

from avadata.devnet.facade.routes import LocalHandler
from avadata.devnet.facade.subnet_evm import positional_args
from avadata.devnet.primary.network_ids import FUJI_CORETH_UPGRADES, FUJI_DURANGO, FUJI_ETNA

_GENESIS_FORKS = (
    "homesteadBlock",
    "daoForkBlock",
    "eip150Block",
    "eip155Block",
    "eip158Block",
    "byzantiumBlock",
    "constantinopleBlock",
    "petersburgBlock",
    "istanbulBlock",
    "muirGlacierBlock",
)


def chain_config(chain_id: int) -> dict[str, Any]:
    flat: dict[str, Any] = {
        "chainId": chain_id,
        "daoForkSupport": True,
        **{k: 0 for k in _GENESIS_FORKS},
        "shanghaiTime": FUJI_DURANGO,
        "cancunTime": FUJI_ETNA,
        **dict(FUJI_CORETH_UPGRADES),
    }
    out = {k: flat[k] for k in sorted(flat)}
    out["upgrades"] = {}
    return out


def coreth_methods(chain_id: int) -> dict[str, LocalHandler]:
    async def get_chain_config(params: Any) -> dict[str, Any]:
        positional_args(params, 0)
        return chain_config(chain_id)

    return {"eth_getChainConfig": get_chain_config}
