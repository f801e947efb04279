"""The Avalanche networks avadata knows: IDs, names, address HRPs, the primary chains' IDs.

Pure (imports nothing of ours). The facts are avalanchego's (utils/constants/network_ids.go):
mainnet is network 1 (HRP `avax`), Fuji 5 (`fuji`; `testnet` is Fuji's other name), a local
network 12345 (`local`), the unit-test network 10 (`testing`); any other network ID is named
`network-<id>` and its addresses use the fallback HRP `custom`.

The C-chain's EVM chain ID and the X-/C-chain blockchain IDs are fixed on mainnet and Fuji
(their genesis), and depend on the genesis anywhere else: a local or custom network's come
from its node (`info.getBlockchainID`) and are not listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

MAINNET_ID = 1
FUJI_ID = 5
UNIT_TEST_ID = 10
LOCAL_ID = 12345

FALLBACK_HRP = "custom"
NETWORK_PREFIX = "network-"
# The P-chain and the primary network's subnet are ids.Empty on every network.
P_CHAIN_ID = "11111111111111111111111111111111LpoYY"
PRIMARY_SUBNET_ID = P_CHAIN_ID


@dataclass(frozen=True, slots=True)
class Network:
    """One network, as avadata names it. `c_chain_evm_id`, `x_chain_id` and `c_chain_id` are
    None where the genesis decides them (local and custom networks)."""

    network_id: int
    name: str
    hrp: str
    c_chain_evm_id: int | None = None
    x_chain_id: str | None = None
    c_chain_id: str | None = None

    @property
    def is_mainnet(self) -> bool:
        return self.network_id == MAINNET_ID

    @property
    def is_testnet(self) -> bool:
        """Every network but mainnet is a test network (the Data API's `isTestnet`)."""
        return not self.is_mainnet


MAINNET = Network(
    MAINNET_ID,
    "mainnet",
    "avax",
    43114,
    "2oYMBNV4eNHyqk2fjjV5nVQLDbtmNJzq5s3qs3Lo6ftnC6FByM",
    "2q9e4r6Mu3U68nU1fYjgbR6JvwrRx36CohpAX5UQxse55x1Q5",
)
FUJI = Network(
    FUJI_ID,
    "fuji",
    "fuji",
    43113,
    "2JVSBoinj9C2J33VntvzYtVJNZdN2NKiwwKjcumHUWEb5DbBrm",
    "yH8D7ThNJkxmtkuv2jgBa4P1Rn3Qpr4pPr7QYNfcdoS6k6HWp",
)
LOCAL = Network(LOCAL_ID, "local", "local")
UNIT_TEST = Network(UNIT_TEST_ID, "testing", "testing")

KNOWN: dict[int, Network] = {n.network_id: n for n in (MAINNET, FUJI, LOCAL, UNIT_TEST)}
# Names avalanchego accepts for a network besides its own name.
_ALIASES = {"testnet": FUJI_ID}
_MAX_ID = 2**32 - 1  # network IDs are uint32


def by_id(network_id: int) -> Network:
    """The network of `network_id`: a known one, else `network-<id>` with HRP `custom`."""
    known = KNOWN.get(network_id)
    if known is not None:
        return known
    if not 0 <= network_id <= _MAX_ID:
        raise ValueError(f"network ID {network_id} is not a uint32")
    return Network(network_id, f"{NETWORK_PREFIX}{network_id}", FALLBACK_HRP)


def parse(text: str) -> Network:
    """A network from its name (mainnet, fuji, testnet, local, testing), `network-<id>` or a
    decimal ID, as avalanchego's constants.NetworkID reads one. ValueError otherwise."""
    name = text.strip().lower()
    for n in KNOWN.values():
        if n.name == name:
            return n
    if name in _ALIASES:
        return KNOWN[_ALIASES[name]]
    digits = name.removeprefix(NETWORK_PREFIX)
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 10:
        raise ValueError(f"{text!r} is not a network name or ID")
    return by_id(int(digits))


def c_chain_network(evm_chain_id: int) -> Network | None:
    """The network whose C-chain has `evm_chain_id` (43114 mainnet, 43113 Fuji), if any."""
    for n in KNOWN.values():
        if n.c_chain_evm_id == evm_chain_id:
            return n
    return None


def of_chain(network_id: int | None, marked: str | None) -> int | None:
    """A chain's network ID, from its stored identity, else from an older mark: mainnet is
    network 1; a testnet mark meant the test network the hosted API serves, Fuji (5)."""
    if network_id is not None:
        return network_id
    return {"mainnet": MAINNET_ID, "testnet": FUJI_ID}.get(marked or "")


def matches(network_id: int | None, wanted: str) -> bool:
    """Whether a chain of `network_id` is selected by the API's `network=` value: mainnet,
    fuji, or testnet (every network but mainnet). A chain of unknown network counts as a test
    network (a devnet): it is never served as mainnet."""
    if wanted == "mainnet":
        return network_id == MAINNET_ID
    if wanted == "testnet":
        return network_id != MAINNET_ID
    return network_id is not None and parse(wanted).network_id == network_id
