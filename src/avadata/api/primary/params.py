"""Path and query rules shared by the primary-network routes (seed: network, blockchainId
aliases, bech32 addresses with the network's HRP: avax, fuji, local, custom; networks.py)."""

from __future__ import annotations

from avadata import networks
from avadata.api.deps import AppState, read_conn
from avadata.api.errors import bad_request, not_found
from avadata.decode.codec.ids import cb58_decode, cb58_encode, parse_bech32_address, parse_node_id
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
# A uint32 in decimal (a network ID), digit by digit up to 4294967295.
_UINT32 = (
    "[0-9]{1,9}|[1-3][0-9]{9}|4[01][0-9]{8}|42[0-8][0-9]{7}|429[0-3][0-9]{6}|4294[0-8][0-9]{5}"
    "|42949[0-5][0-9]{4}|429496[0-6][0-9]{3}|4294967[01][0-9]{2}|42949672[0-8][0-9]"
    "|429496729[0-5]"
)
# The `{network}` spellings networks.parse reads, as the document states them.
NETWORK_PATTERN = f"^(mainnet|fuji|testnet|local|testing|(network-)?({_UINT32}))$"


def _fixed_ids() -> dict[str, str]:
    """Mainnet's and Fuji's X- and C-chain IDs, to their chain key."""
    return {i: k for net in ("mainnet", "testnet") for i, k in _ids(net).items()}


def blockchain_ids(keys: str) -> list[str]:
    """Every `{blockchainId}` naming one of the chains `keys` (of P, X, C) on some network: the
    aliases, the P-chain's ID, mainnet's and Fuji's X- and C-chain IDs."""
    return [v for v, k in (_ALIASES | _fixed_ids()).items() if k in keys]


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
    if key is None and value in _fixed_ids():
        raise not_found(f"blockchainId: {value} is a chain of another network than {net}")
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


def addressed(
    st: AppState, network_value: str, blockchain_id: str, given: str | None
) -> tuple[str, str, list[str]]:
    """(network key, chain key, addresses) of a route over some addresses of one chain, the
    addresses required: what every address lookup checks first."""
    net = network(network_value, indexed_network(st))
    key = chain(net, blockchain_id)
    found = addresses(net, key, given)
    if not found:
        raise bad_request("addresses: required")
    return net, key, found


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


MAX_NODE_IDS = 100


def node_ids(value: str | None) -> tuple[str, ...]:
    """Comma-separated NodeID-... strings, each with a valid CB58 checksum, distinct, sorted."""
    if value is None or not value.strip():
        return ()
    given = sorted({p.strip() for p in value.split(",") if p.strip()})
    if len(given) > MAX_NODE_IDS:
        raise bad_request(f"nodeIds: at most {MAX_NODE_IDS} node IDs, got {len(given)}")
    for p in given:
        try:
            parse_node_id(p)
        except DecodeError:
            raise bad_request(
                f"nodeIds: {_shown(p)} is not a NodeID-... with a valid CB58 checksum"
            ) from None
    return tuple(given)
