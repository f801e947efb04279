"""The subnet-EVM configuration the devnet records for each L1: genesis, upgrades, fee changes.

Stage: devnet. Pure data and pure functions of it. The same record gives (1) the genesis JSON
the P-chain simulator puts in the L1's CreateChainTx and (2) the answers of the subnet-EVM
extras on /ext/bc/<chain>/rpc (eth_getChainConfig, eth_feeConfig, eth_getActivePrecompilesAt,
eth_getActiveRulesAt). anvil runs the chain's EVM; it does not enforce these fee rules, so the
record, not anvil, is the truth those methods serve.

Shapes follow subnet-evm (reference node-rpc.md section 4) with the seed's additions where the
seed differs (eip150Hash, platformRules): see docs/compatibility.md "Node JSON-RPC".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from avadata.devnet.primary.network_ids import (
    FUJI_DURANGO,
    FUJI_ETNA,
    FUJI_GRANITE,
    HELICON_UNSCHEDULED,
)

# The value older subnet-evm genesis files and the seed's chain config carry.
EIP150_HASH = "0x2086799aeebeae135c246c65021c82b4e15a2c451340993aacfd2751886514f0"
ANVIL_DEV_ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"  # anvil's first dev account
DEV_BALANCE_WEI = 1_000_000_000 * 10**18

PRECOMPILE_ADDRESSES = {
    "contractDeployerAllowListConfig": "0x0200000000000000000000000000000000000000",
    "contractNativeMinterConfig": "0x0200000000000000000000000000000000000001",
    "txAllowListConfig": "0x0200000000000000000000000000000000000002",
    "feeManagerConfig": "0x0200000000000000000000000000000000000003",
    "rewardManagerConfig": "0x0200000000000000000000000000000000000004",
    "warpConfig": "0x0200000000000000000000000000000000000005",
}
ALLOW_LIST_KEYS = frozenset(
    {
        "contractDeployerAllowListConfig",
        "contractNativeMinterConfig",
        "txAllowListConfig",
        "feeManagerConfig",
        "rewardManagerConfig",
    }
)


@dataclass(frozen=True)
class FeeConfig:
    gas_limit: int = 8_000_000
    target_block_rate: int = 2
    min_base_fee: int = 25_000_000_000
    target_gas: int = 15_000_000
    base_fee_change_denominator: int = 36
    min_block_gas_cost: int = 0
    max_block_gas_cost: int = 1_000_000
    block_gas_cost_step: int = 200_000

    def json(self) -> dict[str, int]:
        return {
            "gasLimit": self.gas_limit,
            "targetBlockRate": self.target_block_rate,
            "minBaseFee": self.min_base_fee,
            "targetGas": self.target_gas,
            "baseFeeChangeDenominator": self.base_fee_change_denominator,
            "minBlockGasCost": self.min_block_gas_cost,
            "maxBlockGasCost": self.max_block_gas_cost,
            "blockGasCostStep": self.block_gas_cost_step,
        }


DEFAULT_FEE_CONFIG = FeeConfig()  # subnet-evm params/extras DefaultFeeConfig


@dataclass(frozen=True)
class Precompile:
    """One precompile config as subnet-evm marshals it (genesis entry or upgrade)."""

    key: str  # e.g. "feeManagerConfig"
    block_timestamp: int | None
    admin_addresses: tuple[str, ...] = ()
    enabled_addresses: tuple[str, ...] = ()
    disable: bool = False
    extra: tuple[tuple[str, Any], ...] = ()  # initialFeeConfig, quorumNumerator, ...

    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.key in ALLOW_LIST_KEYS:
            # Empty lists are omitted (subnet-evm `omitempty`).
            if self.admin_addresses:
                out["adminAddresses"] = list(self.admin_addresses)
            if self.enabled_addresses:
                out["enabledAddresses"] = list(self.enabled_addresses)
        out["blockTimestamp"] = self.block_timestamp
        if self.disable:
            out["disable"] = True
        out.update(dict(self.extra))
        return out


@dataclass(frozen=True)
class FeeChange:
    """A FeeManager setFeeConfig accepted in `block` (lastChangedAt from then on)."""

    block: int
    fee_config: FeeConfig


@dataclass(frozen=True)
class EvmChainConfig:
    name: str
    chain_id: int
    genesis_timestamp: int
    fee_config: FeeConfig = DEFAULT_FEE_CONFIG
    allow_fee_recipients: bool = False
    genesis_precompiles: tuple[Precompile, ...] = ()
    precompile_upgrades: tuple[Precompile, ...] = ()  # in activation order
    fee_changes: tuple[FeeChange, ...] = ()  # in block order
    # The L1's gas token (name, symbol, decimals); None: AVAX-like, as the C-chain's. No node
    # API tells it (an L1's genesis has no symbol): the devnet's chains file does
    # (devnet/chains_file.py), as an operator's would.
    native_token: tuple[str, str, int] | None = None
    network_upgrades: tuple[tuple[str, int], ...] = field(
        default=(
            ("subnetEVMTimestamp", 0),
            ("durangoTimestamp", FUJI_DURANGO),
            ("etnaTimestamp", FUJI_ETNA),
            ("graniteTimestamp", FUJI_GRANITE),
            ("heliconTimestamp", HELICON_UNSCHEDULED),
        )
    )

    # -- genesis ------------------------------------------------------------------------------

    def genesis_json(self) -> dict[str, Any]:
        """The subnet-EVM genesis (what CreateChainTx.genesisData holds)."""
        config: dict[str, Any] = {
            "chainId": self.chain_id,
            "feeConfig": self.fee_config.json(),
            **{k: 0 for k in _ETH_BLOCKS},
        }
        if self.allow_fee_recipients:
            config["allowFeeRecipients"] = True
        for p in self.genesis_precompiles:
            config[p.key] = p.json()
        return {
            "config": config,
            "alloc": {ANVIL_DEV_ACCOUNT[2:]: {"balance": hex(DEV_BALANCE_WEI)}},
            "nonce": "0x0",
            "timestamp": hex(self.genesis_timestamp),
            "extraData": "0x",
            "gasLimit": hex(self.fee_config.gas_limit),
            "difficulty": "0x0",
            "mixHash": "0x" + "00" * 32,
            "coinbase": "0x" + "00" * 20,
            "number": "0x0",
            "gasUsed": "0x0",
            "parentHash": "0x" + "00" * 32,
        }

    # -- eth_getChainConfig ---------------------------------------------------------------------

    def upgrade_time(self, name: str) -> int | None:
        return dict(self.network_upgrades).get(name)

    def chain_config(self) -> dict[str, Any]:
        """Flat, keys sorted (subnet-evm builds it from a Go map), then "upgrades" last."""
        flat: dict[str, Any] = {
            "chainId": self.chain_id,
            "feeConfig": self.fee_config.json(),
            "eip150Hash": EIP150_HASH,
            **{k: 0 for k in _ETH_BLOCKS},
            **dict(self.network_upgrades),
        }
        durango = self.upgrade_time("durangoTimestamp")
        etna = self.upgrade_time("etnaTimestamp")
        if durango is not None:
            flat["shanghaiTime"] = durango  # Durango brings Shanghai
        if etna is not None:
            flat["cancunTime"] = etna  # Etna brings Cancun
        if self.allow_fee_recipients:
            flat["allowFeeRecipients"] = True
        for p in self.genesis_precompiles:
            flat[p.key] = p.json()
        out = {k: flat[k] for k in sorted(flat)}
        upgrades: dict[str, Any] = {}
        if self.precompile_upgrades:
            upgrades["precompileUpgrades"] = [{p.key: p.json()} for p in self.precompile_upgrades]
        out["upgrades"] = upgrades
        return out

    # -- eth_feeConfig --------------------------------------------------------------------------

    def fee_config_at(self, block: int) -> tuple[FeeConfig, int]:
        """(fee config, lastChangedAt) in effect at `block`: the last FeeManager change at or
        before it, else the genesis config with lastChangedAt 0."""
        current, changed = self.fee_config, 0
        for change in self.fee_changes:
            if change.block <= block:
                current, changed = change.fee_config, change.block
        return current, changed

    # -- precompiles and rules ------------------------------------------------------------------

    def precompiles_at(self, timestamp: int) -> dict[str, Precompile]:
        """Each precompile's latest config activated at or before `timestamp`, left out when
        that config disables it."""
        latest: dict[str, Precompile] = {}
        for p in (*self.genesis_precompiles, *self.precompile_upgrades):
            if (p.block_timestamp or 0) <= timestamp:
                latest[p.key] = p
        return {k: p for k, p in latest.items() if not p.disable}

    def active_precompiles(self, timestamp: int) -> dict[str, Any]:
        return {k: p.json() for k, p in self.precompiles_at(timestamp).items()}

    def rules_at(self, timestamp: int) -> dict[str, Any]:
        def on(name: str) -> bool:
            at = self.upgrade_time(name)
            return at is not None and at <= timestamp

        avalanche = {
            "IsSubnetEVM": on("subnetEVMTimestamp"),
            "IsDurango": on("durangoTimestamp"),
            "IsEtna": on("etnaTimestamp"),
            "IsFortuna": on("fortunaTimestamp"),
            "IsGranite": on("graniteTimestamp"),
            "IsHelicon": on("heliconTimestamp"),
        }
        eth = {
            "ChainID": self.chain_id,
            **{name: True for name in _ETH_RULES_FROM_GENESIS},
            "IsShanghai": on("durangoTimestamp"),
            "IsCancun": on("etnaTimestamp"),
            "IsPrague": False,
            "IsVerkle": False,
        }
        return {
            "ethRules": eth,
            # The seed names this member platformRules; subnet-evm names it avalancheRules.
            # Both are served (same content) so clients of either read it.
            "platformRules": avalanche,
            "avalancheRules": avalanche,
            "precompiles": {
                k: {"timestamp": p.block_timestamp or 0}
                for k, p in self.precompiles_at(timestamp).items()
            },
        }


_ETH_BLOCKS = (
    "homesteadBlock",
    "eip150Block",
    "eip155Block",
    "eip158Block",
    "byzantiumBlock",
    "constantinopleBlock",
    "petersburgBlock",
    "istanbulBlock",
    "muirGlacierBlock",
    "berlinBlock",
    "londonBlock",
)
_ETH_RULES_FROM_GENESIS = (
    "IsHomestead",
    "IsEIP150",
    "IsEIP155",
    "IsEIP158",
    "IsByzantium",
    "IsConstantinople",
    "IsPetersburg",
    "IsIstanbul",
    "IsBerlin",
    "IsLondon",
    "IsMerge",
)


# The first L1's own gas token (it also has the native minter: it mints its own money).
FIRST_L1_TOKEN = ("Alpha Gas", "ALPHA", 18)


def devnet_l1_configs(
    l1s: list[tuple[str, int]], start: int, days: int, history_blocks: int, admin: str
) -> list[EvmChainConfig]:
    """The devnet's L1 configs: the first L1 (the one converted to an L1) has its own gas
    token (FIRST_L1_TOKEN), the FeeManager
    with two fee changes in its history, a native minter and warp at genesis, and a tx
    allow list enabled then disabled by upgrades; the others a deployer allow list at genesis
    and a FeeManager enabled by an upgrade without changes (lastChangedAt stays 0)."""
    span = days * 86_400
    configs: list[EvmChainConfig] = []
    for i, (name, chain_id) in enumerate(l1s):
        if i == 0:
            first = max(2, history_blocks // 3)
            second = max(first + 1, 2 * history_blocks // 3)
            configs.append(
                EvmChainConfig(
                    name=name,
                    chain_id=chain_id,
                    genesis_timestamp=start,
                    fee_config=DEFAULT_FEE_CONFIG,
                    native_token=FIRST_L1_TOKEN,
                    genesis_precompiles=(
                        Precompile("contractNativeMinterConfig", 0, admin_addresses=(admin,)),
                        Precompile("feeManagerConfig", 0, admin_addresses=(admin,)),
                        Precompile("warpConfig", 0, extra=(("quorumNumerator", 67),)),
                    ),
                    precompile_upgrades=(
                        Precompile(
                            "txAllowListConfig", start + span * 3 // 10, admin_addresses=(admin,)
                        ),
                        Precompile(
                            "contractDeployerAllowListConfig",
                            start + span * 45 // 100,
                            admin_addresses=(admin,),
                            enabled_addresses=(ANVIL_DEV_ACCOUNT,),
                        ),
                        Precompile("txAllowListConfig", start + span * 6 // 10, disable=True),
                    ),
                    fee_changes=(
                        FeeChange(
                            first,
                            FeeConfig(
                                gas_limit=15_000_000,
                                min_base_fee=1_000_000_000,
                                target_gas=20_000_000,
                                max_block_gas_cost=2_000_000,
                            ),
                        ),
                        FeeChange(
                            second,
                            FeeConfig(
                                gas_limit=20_000_000,
                                target_block_rate=1,
                                min_base_fee=2_000_000_000,
                                target_gas=40_000_000,
                                base_fee_change_denominator=48,
                                block_gas_cost_step=100_000,
                            ),
                        ),
                    ),
                )
            )
        else:
            configs.append(
                EvmChainConfig(
                    name=name,
                    chain_id=chain_id,
                    genesis_timestamp=start,
                    fee_config=FeeConfig(gas_limit=15_000_000, min_base_fee=33_000_000_000),
                    allow_fee_recipients=True,
                    genesis_precompiles=(
                        Precompile("contractDeployerAllowListConfig", 0, admin_addresses=(admin,)),
                    ),
                    precompile_upgrades=(
                        Precompile("feeManagerConfig", start + span // 2, admin_addresses=(admin,)),
                    ),
                )
            )
    return configs
