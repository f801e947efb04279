"""The known networks against avalanchego's constants (utils/constants/network_ids.go, copied
here as the test's own table) and the devnet's own genesis bytes."""

from __future__ import annotations

import pytest

from avadata import networks as nets
from avadata.decode.codec.ids import cb58_encode
from avadata.devnet.primary import network_ids as devnet

# avalanchego: NetworkIDToNetworkName, NetworkIDToHRP (FallbackHRP "custom" otherwise).
AVALANCHEGO = {
    1: ("mainnet", "avax"),
    5: ("fuji", "fuji"),
    10: ("testing", "testing"),
    12345: ("local", "local"),
}


@pytest.mark.parametrize("network_id", sorted(AVALANCHEGO))
def test_known_networks_as_avalanchego_names_them(network_id: int) -> None:
    n = nets.by_id(network_id)
    assert (n.name, n.hrp) == AVALANCHEGO[network_id]
    assert nets.parse(n.name) is n
    assert nets.parse(str(network_id)) is n


def test_a_custom_network_is_network_n_with_the_fallback_hrp() -> None:
    n = nets.by_id(1337)
    assert (n.name, n.hrp, n.c_chain_evm_id) == ("network-1337", "custom", None)
    assert nets.parse("network-1337") == n
    assert n.is_testnet


def test_testnet_is_fujis_other_name_and_bad_names_are_refused() -> None:
    assert nets.parse("testnet") is nets.FUJI
    assert nets.parse("Mainnet") is nets.MAINNET
    for bad in ("devnet", "network-", "-1", "network-x", str(2**32), "²"):
        with pytest.raises(ValueError):
            nets.parse(bad)


def test_fuji_ids_are_the_devnets_genesis_ids() -> None:
    # The devnet is Fuji-shaped: its X/C chain IDs are Fuji's (bytes from its genesis).
    assert nets.FUJI.x_chain_id == cb58_encode(devnet.X_CHAIN_ID)
    assert nets.FUJI.c_chain_id == cb58_encode(devnet.C_CHAIN_ID)
    assert nets.P_CHAIN_ID == cb58_encode(devnet.P_CHAIN_ID)
    assert nets.c_chain_network(43113) is nets.FUJI
    assert nets.c_chain_network(43114) is nets.MAINNET
    assert nets.c_chain_network(99901) is None


def test_network_filter() -> None:
    assert nets.matches(1, "mainnet") and not nets.matches(1, "testnet")
    assert nets.matches(5, "fuji") and nets.matches(5, "testnet")
    assert nets.matches(12345, "testnet") and not nets.matches(12345, "fuji")
    assert nets.matches(None, "testnet") and not nets.matches(None, "mainnet")
