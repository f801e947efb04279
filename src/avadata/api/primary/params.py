"""Path and query rules shared by the primary-network routes (seed: network, blockchainId
aliases, bech32 addresses with the network's HRP: avax, fuji, local, custom; networks.py)."""

from __future__ import annotations

from avadata import networks
from avadata.api.deps import AppState, read_conn
from avadata.api.errors import bad_request, not_found
from avadata.decode.codec.ids import cb58_decode, cb58_encode, parse_bech32_address
from avadata.decode.codec.pchain_blocks import PCHAIN_TABLE
from avadata.decode.codec.reader import DecodeError
from avadata.decode.codec.xchain import XCHAIN_TABLE
from avadata.store.queries import chains as chain_queries

# The reference's PrimaryNetworkTxType, plus every tx type our codec decodes (a type the
# SDK's enum lacks can still be asked for over plain HTTP).
TX_TYPES = frozenset(
    (
        "AddValidatorTx AddSubnetValidatorTx AddDelegatorTx CreateChainTx CreateSubnetTx "
        "ImportTx ExportTx AdvanceTimeTx RewardValidatorTx RemoveSubnetValidatorTx "
        "TransformSubnetTx AddPermissionlessValidatorTx AddPermissionlessDelegatorTx BaseTx "
        "TransferSubnetOwnershipTx ConvertSubnetToL1Tx RegisterL1ValidatorTx "
        "SetL1ValidatorWeightTx DisableL1ValidatorTx IncreaseL1ValidatorBalanceTx UNKNOWN "
        "CreateAssetTx OperationTx"
    ).split()
) | frozenset(
    cls.__name__
    for table in (PCHAIN_TABLE, XCHAIN_TABLE)
    for cls in table.by_id.values()
    if cls.__name__.endswith("Tx")
)


def _shown(value: str) -> str:
    """The rejected value as a message quotes it: long input is cut, not echoed whole."""
    return repr(value if len(value) <= 80 else value[:80] + "...")


P_CHAIN_ID = networks.P_CHAIN_ID
_ALIASES = {"p-chain": "P", "x-chain": "X", "c-chain": "C", P_CHAIN_ID: "P"}


def net_key(n: networks.Network) -> str:
    """The key a network goes by in the primary routes: mainnet, testnet (Fuji, as the
    asset and chain tables name it), else its avalanchego name (local, network-<id>)."""
    if n.network_id == networks.FUJI_ID:
        return "testnet"
    return n.name


def _ids(net: str) -> dict[str, str]:
    """The fixed X-/C-chain blockchain IDs of `net` (mainnet's and Fuji's; a local or custom
    network's come from its genesis: only the aliases name them)."""
    n = networks.MAINNET if net == "mainnet" else networks.FUJI if net == "testnet" else None
    if n is None or n.x_chain_id is None or n.c_chain_id is None:
        return {}
    return {n.x_chain_id: "X", n.c_chain_id: "C"}


def hrp(net: str) -> str:
    return networks.parse("fuji" if net == "testnet" else net).hrp


def indexed_network(st: AppState) -> int | None:
    """The network whose primary network the store holds (a one-row read)."""
    with read_conn(st) as conn:
        return chain_queries.primary_network(conn)


def network(value: str, indexed: int | None) -> str:
    """The `{network}` of a primary route: a network name avalanchego knows (mainnet, fuji,
    testnet, local, network-<id>) or a 400; the network whose primary network this store
    holds, or a 404 (never another network's rows)."""
    try:
        n = networks.parse(value)
    except ValueError:
        raise bad_request(
            f"network: must be mainnet, fuji, testnet, local or network-<id> (got {_shown(value)})"
        ) from None
    if indexed is None:
        raise not_found(
            f"network: {value} is not indexed here (this store holds no primary network of a "
            "known network: `avadata index --node URL` records it)"
        )
    if n.network_id != indexed:
        held = networks.by_id(indexed).name
        raise not_found(f"network: {value} is not indexed here (this store holds {held})")
    return net_key(n)


def chain(net: str, value: str) -> str:
    """The store's chain key (P, X or C) of an alias or blockchain ID."""
    key = _ALIASES.get(value) or _ids(net).get(value)
    if key is None:
        raise bad_request(
            f"blockchainId: must be p-chain, x-chain, c-chain or a primary-network "
            f"blockchain ID of {net} (got {value!r})"
        )
    return key


# A page over several addresses merges one branch per address (store/primary/queries/txs.py):
# SQLite refuses a compound SELECT of more than 500 terms, and each shape is kept built.
MAX_ADDRESSES = 256


def addresses(
    net: str, chain_key: str, value: str | None, name: str = "addresses", cap: int = MAX_ADDRESSES
) -> list[str]:
    """Comma-separated bech32 addresses (optional P-/X- prefix) -> bare bech32 strings; 0x
    EVM addresses are accepted on the C-chain (atomic lookups), lower-cased. Errors name
    `name` (a webhook's metadata.keys reuses this)."""
    if value is None or value.strip() == "":
        return []
    given = value.split(",")
    if len(given) > cap:
        raise bad_request(f"{name}: at most {cap} addresses, got {len(given)}")
    out: list[str] = []
    for raw in given:
        text = raw.strip()
        if chain_key == "C" and text.lower().startswith("0x"):
            if len(text) != 42 or any(c not in "0123456789abcdef" for c in text[2:].lower()):
                raise bad_request(f"{name}: {text!r} is not a 0x 20-byte address")
            out.append(text.lower())
            continue
        try:
            prefix, found, data = parse_bech32_address(text)
        except DecodeError:
            raise bad_request(
                f"{name}: {text!r} is not a valid bech32 address (bad checksum or characters)"
            ) from None
        if prefix not in (None, "P", "X", "C") or len(data) != 20:
            raise bad_request(f"{name}: {text!r} is not a P-/X- chain address")
        if found != hrp(net):
            raise bad_request(
                f"{name}: {text!r} has HRP {found!r}, {net} addresses use {hrp(net)!r}"
            )
        out.append(text.rpartition("-")[2].lower())
    return sorted(set(out))


def chain_id_of(net: str, key: str) -> str:
    """The blockchain ID a stored chain key (P, X, C) stands for on `net`."""
    if key == "P":
        return P_CHAIN_ID
    for blockchain_id, k in _ids(net).items():
        if k == key:
            return blockchain_id
    return key


def _id32(name: str, value: str, what: str) -> str:
    """A CB58 32-byte ID, re-encoded as the store keys it; a 400 naming `name` otherwise."""
    try:
        raw = cb58_decode(value.strip())
    except (DecodeError, ValueError):
        raw = b""
    if len(raw) != 32:
        raise bad_request(f"{name}: {_shown(value)} is not a CB58 {what}")
    return cb58_encode(raw)


def l1_validation_id(chain_key: str, value: str | None) -> str | None:
    """The seed's rule 2: a CB58 validation ID (32 bytes), on the P-chain only."""
    if value is None:
        return None
    if chain_key != "P":
        raise bad_request("l1ValidationId: only on the P-chain")
    return _id32("l1ValidationId", value, "validation ID")


def tx_hash(value: str) -> str:
    """A CB58 32-byte transaction ID (every primary chain's, the C-chain's atomic txs too)."""
    return _id32("txHash", value, "transaction ID")


def block_id(value: str) -> str:
    """A CB58 32-byte block (container) ID."""
    return _id32("blockId", value, "block ID or height")


def vertex_hash(value: str) -> str:
    """A CB58 32-byte vertex ID."""
    return _id32("vertexHash", value, "vertex ID")


def subnet_id(value: str) -> str:
    """A CB58 32-byte subnet ID."""
    return _id32("subnetId", value, "subnet ID")


def created_chain_id(value: str) -> str:
    """A CB58 32-byte blockchain ID (of a chain a CreateChainTx made)."""
    return _id32("blockchainId", value, "blockchain ID")


def tx_types(values: list[str] | None) -> list[str]:
    """Distinct, sorted; an unknown name is a 400 (it could only ever match nothing)."""
    for t in values or ():
        if t not in TX_TYPES:
            raise bad_request(f"txTypes: {_shown(t)} is not a PrimaryNetworkTxType")
    return sorted(set(values or ()))


def asset_id(value: str | None) -> str | None:
    """A CB58 32-byte asset ID, as the store keys it."""
    return None if value is None else _id32("assetId", value, "asset ID")
