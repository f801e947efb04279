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

# Every upgrade of Fuji's C-chain, as coreth's chain config names them (avalanchego
# upgrade/upgrade.go's Fuji times, Unix seconds UTC); the C-chain facade serves them.
FUJI_CORETH_UPGRADES = (
    ("apricotPhase1BlockTimestamp", 1616767200),  # 2021-03-26 14:00
    ("apricotPhase2BlockTimestamp", 1620223200),  # 2021-05-05 14:00
    ("apricotPhase3BlockTimestamp", 1629140400),  # 2021-08-16 19:00
    ("apricotPhase4BlockTimestamp", 1631826000),  # 2021-09-16 21:00
    ("apricotPhase5BlockTimestamp", 1637766000),  # 2021-11-24 15:00
    ("apricotPhasePre6BlockTimestamp", 1662494400),  # 2022-09-06 20:00
    ("apricotPhase6BlockTimestamp", 1662494400),  # 2022-09-06 20:00
    ("apricotPhasePost6BlockTimestamp", 1662530400),  # 2022-09-07 06:00
    ("banffBlockTimestamp", 1664805600),  # 2022-10-03 14:00
    ("cortinaBlockTimestamp", 1680793200),  # 2023-04-06 15:00
    ("durangoBlockTimestamp", FUJI_DURANGO),  # 2024-02-13 16:00
    ("etnaTimestamp", FUJI_ETNA),  # 2024-11-25 16:00
    ("fortunaTimestamp", 1741878000),  # 2025-03-13 15:00
    ("graniteTimestamp", FUJI_GRANITE),  # 2025-10-29 15:00
    ("heliconTimestamp", HELICON_UNSCHEDULED),
)

AVAX = 10**9  # nAVAX per AVAX


def chain_id_str(chain: bytes) -> str:
    return cb58_encode(chain)
