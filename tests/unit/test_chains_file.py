"""The operator's chains file and --label flags: what they say, and the errors that name the
key a typo hit."""

from __future__ import annotations

import pytest

from avadata.indexer.chains_file import ChainsFileError, parse, parse_labels, render
from avadata.records.identity import ChainIdentity, NativeToken

TEXT = """
network = "fuji"

[[chains]]
chain_id = 99901
blockchain_id = "2X"
subnet_id = "3S"
name = "alpha"
explorer_url = "https://explorer.example/alpha"
native_token = { name = "Alpha Gas", symbol = "ALPHA", decimals = 18 }

[[chains]]
chain_id = 777
network = "network-1337"
"""


def test_a_file_says_what_it_says() -> None:
    found = parse(TEXT)
    assert found[99901] == ChainIdentity(
        99901,
        network_id=5,
        blockchain_id="2X",
        subnet_id="3S",
        name="alpha",
        token=NativeToken("Alpha Gas", "ALPHA", 18, None),
        explorer_url="https://explorer.example/alpha",
    )
    assert found[777] == ChainIdentity(777, network_id=1337)
    assert parse(render(list(found.values()))) == found


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[chains]]\nchain_id = 1\ntoken_symbol = 'X'\n", "unknown key 'token_symbol'"),
        ("netwrok = 'fuji'\n", "unknown key 'netwrok'"),
        ("[[chains]]\nchain_id = '1'\n", "'chain_id' has the wrong type"),
        ("[[chains]]\nname = 'a'\n", "chain_id is required"),
        ("[[chains]]\nchain_id = 1\nnetwork = 'devnet'\n", "network"),
        ("[[chains]]\nchain_id = 1\n[[chains]]\nchain_id = 1\n", "listed twice"),
        ("[[chains]]\nchain_id = 1\nnative_token = { colour = 'red' }\n", "unknown key 'colour'"),
        ("[[chains]\n", "not TOML"),
    ],
)
def test_errors_name_the_key(text: str, message: str) -> None:
    with pytest.raises(ChainsFileError, match=message) as err:
        parse(text, "my.toml")
    assert str(err.value).startswith("my.toml")


def test_labels() -> None:
    ident = parse_labels(["name=alpha", "token_symbol=ALP", "token_decimals=6", "network=local"], 9)
    assert ident == ChainIdentity(
        9, network_id=12345, name="alpha", token=NativeToken(None, "ALP", 6, None)
    )
    for bad in ("colour=red", "name", "token_decimals=six"):
        with pytest.raises(ChainsFileError, match="--label"):
            parse_labels([bad], 9)
