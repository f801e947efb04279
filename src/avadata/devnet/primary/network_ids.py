"""The devnet's primary-network identity: network ID, blockchain IDs, the AVAX asset ID.

Stage: devnet (P/X simulators). The devnet is Fuji-shaped: its C-chain has Fuji's EVM chain ID
(43113), so P/X/C use Fuji's network ID (5, addresses `fuji1...`), Fuji's X- and C-chain IDs
and Fuji's AVAX asset ID, which the Data API already maps for `network=fuji`. The P-chain and
the primary network's subnet are ids.Empty on every network.
"""

from __future__ import annotations

from avadata.decode.codec.ids import cb58_encode, vm_id

NETWORK_ID = 5
HRP = "fuji"
P_CHAIN_ID = bytes(32)
PRIMARY_SUBNET_ID = bytes(32)
X_CHAIN_ID = bytes.fromhex("ab68eb1ee142a05cfe768c36e11f0b596db5a3c6c77aabe665dad9e638ca94f7")
C_CHAIN_ID = bytes.fromhex("7fc93d85c6d62c5b2ac0b519c87010ea5294012d1e407030d6acd0021cac10d5")
AVAX_ASSET_ID = bytes.fromhex("3d9bdac0ed1d761330cf680efdeb1a42159eb387d6d2950c96f7d28f61bbe2aa")

SUBNET_EVM_VM_ID = vm_id("subnetevm")
PLATFORM_VM_ID = vm_id("platformvm")
AVM_VM_ID = vm_id("avm")
EVM_VM_ID = vm_id("evm")
SECP256K1FX_ID = vm_id("secp256k1fx")
NFTFX_ID = vm_id("nftfx")

CHAIN_LETTERS = {P_CHAIN_ID: "P", X_CHAIN_ID: "X", C_CHAIN_ID: "C"}

# Fuji's upgrade times (avalanchego upgrade/upgrade.go), used by the subnet-EVM chain configs.
FUJI_DURANGO = 1707840000
FUJI_ETNA = 1732550400
FUJI_GRANITE = 1761750000
HELICON_UNSCHEDULED = 253399622400

AVAX = 10**9  # nAVAX per AVAX


def chain_id_str(chain: bytes) -> str:
    return cb58_encode(chain)
