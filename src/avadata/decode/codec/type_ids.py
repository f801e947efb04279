"""Interface type IDs per VM, grouped by the network upgrade that registered them.

avalanchego assigns IDs by registration order per codec instance (`SkipRegistrations` burns
IDs), so the order *is* the ID. We write every ID down explicitly instead of relying on list
order; the classes are bound to these names in each chain's module.
"""

from __future__ import annotations

# platformvm: one table shared by txs and blocks (vms/platformvm/txs/codec.go, block/codec.go).
PCHAIN_APRICOT: dict[int, str] = {
    0: "ApricotProposalBlock",
    1: "ApricotAbortBlock",
    2: "ApricotCommitBlock",
    3: "ApricotStandardBlock",
    4: "ApricotAtomicBlock",
    5: "secp256k1fx.TransferInput",
    # 6: skipped (avm's secp256k1fx.MintOutput slot)
    7: "secp256k1fx.TransferOutput",
    # 8: skipped (avm's secp256k1fx.MintOperation slot)
    9: "secp256k1fx.Credential",
    10: "secp256k1fx.Input",
    11: "secp256k1fx.OutputOwners",
    12: "AddValidatorTx",
    13: "AddSubnetValidatorTx",
    14: "AddDelegatorTx",
    15: "CreateChainTx",
    16: "CreateSubnetTx",
    17: "ImportTx",
    18: "ExportTx",
    19: "AdvanceTimeTx",
    20: "RewardValidatorTx",
    21: "stakeable.LockIn",
    22: "stakeable.LockOut",
}
PCHAIN_APRICOT_PHASE_BLUEBERRY: dict[int, str] = {
    23: "RemoveSubnetValidatorTx",
    24: "TransformSubnetTx",
    25: "AddPermissionlessValidatorTx",
    26: "AddPermissionlessDelegatorTx",
    27: "signer.Empty",
    28: "signer.ProofOfPossession",
}
PCHAIN_BANFF: dict[int, str] = {
    29: "BanffProposalBlock",
    30: "BanffAbortBlock",
    31: "BanffCommitBlock",
    32: "BanffStandardBlock",
}
PCHAIN_DURANGO: dict[int, str] = {
    33: "TransferSubnetOwnershipTx",
    34: "BaseTx",
}
PCHAIN_ETNA: dict[int, str] = {
    35: "ConvertSubnetToL1Tx",
    36: "RegisterL1ValidatorTx",
    37: "SetL1ValidatorWeightTx",
    38: "IncreaseL1ValidatorBalanceTx",
    39: "DisableL1ValidatorTx",
}
# Helicon is unscheduled on mainnet/fuji; listed so decoders do not choke on its test bytes.
PCHAIN_HELICON: dict[int, str] = {
    40: "AddAutoRenewedValidatorTx",
    41: "SetAutoRenewedValidatorConfigTx",
    42: "RewardAutoRenewedValidatorTx",
}
PCHAIN: dict[int, str] = {
    **PCHAIN_APRICOT,
    **PCHAIN_APRICOT_PHASE_BLUEBERRY,
    **PCHAIN_BANFF,
    **PCHAIN_DURANGO,
    **PCHAIN_ETNA,
    **PCHAIN_HELICON,
}

# avm: txs, then the fxs in the order mainnet/fuji register them (secp256k1fx, nftfx,
# propertyfx), then the Cortina block (vms/avm/txs/parser.go, vms/avm/block/parser.go).
XCHAIN_TXS: dict[int, str] = {
    0: "BaseTx",
    1: "CreateAssetTx",
    2: "OperationTx",
    3: "ImportTx",
    4: "ExportTx",
}
XCHAIN_SECP256K1FX: dict[int, str] = {
    5: "secp256k1fx.TransferInput",
    6: "secp256k1fx.MintOutput",
    7: "secp256k1fx.TransferOutput",
    8: "secp256k1fx.MintOperation",
    9: "secp256k1fx.Credential",
}
XCHAIN_NFTFX: dict[int, str] = {
    10: "nftfx.MintOutput",
    11: "nftfx.TransferOutput",
    12: "nftfx.MintOperation",
    13: "nftfx.TransferOperation",
    14: "nftfx.Credential",
}
XCHAIN_PROPERTYFX: dict[int, str] = {
    15: "propertyfx.MintOutput",
    16: "propertyfx.OwnedOutput",
    17: "propertyfx.MintOperation",
    18: "propertyfx.BurnOperation",
    19: "propertyfx.Credential",
}
XCHAIN_CORTINA: dict[int, str] = {
    20: "StandardBlock",
}
XCHAIN: dict[int, str] = {
    **XCHAIN_TXS,
    **XCHAIN_SECP256K1FX,
    **XCHAIN_NFTFX,
    **XCHAIN_PROPERTYFX,
    **XCHAIN_CORTINA,
}

# coreth atomic codec (plugin/evm/atomic/codec.go): 2-4, 6 and 8 are skipped.
CCHAIN_ATOMIC: dict[int, str] = {
    0: "UnsignedImportTx",
    1: "UnsignedExportTx",
    5: "secp256k1fx.TransferInput",
    7: "secp256k1fx.TransferOutput",
    9: "secp256k1fx.Credential",
    10: "secp256k1fx.Input",
    11: "secp256k1fx.OutputOwners",
}

# proposervm (vms/proposervm/block/codec.go).
PROPOSERVM_APRICOT_PHASE4: dict[int, str] = {0: "statelessBlock", 1: "option"}
PROPOSERVM_GRANITE: dict[int, str] = {2: "statelessGraniteBlock"}
PROPOSERVM: dict[int, str] = {**PROPOSERVM_APRICOT_PHASE4, **PROPOSERVM_GRANITE}

# warp (vms/platformvm/warp): signatures, payloads, and the P-chain's addressed-call messages.
WARP_SIGNATURES: dict[int, str] = {0: "BitSetSignature"}
WARP_PAYLOADS: dict[int, str] = {0: "Hash", 1: "AddressedCall"}
WARP_PCHAIN_MESSAGES: dict[int, str] = {
    0: "SubnetToL1Conversion",
    1: "RegisterL1Validator",
    2: "L1ValidatorRegistration",
    3: "L1ValidatorWeight",
}


def by_name(*classes: type) -> dict[str, type]:
    """The classes a table may `bind`, by their names (the Go type names)."""
    return {cls.__name__: cls for cls in classes}


def bind(table_name: str, names: dict[int, str], classes: dict[str, type]) -> dict[int, type]:
    """Resolve an ID->name table into ID->class, failing loudly on a missing class."""
    missing = sorted(set(names.values()) - set(classes))
    if missing:
        raise RuntimeError(f"{table_name}: no class for {missing}")
    return {tid: classes[name] for tid, name in names.items()}
