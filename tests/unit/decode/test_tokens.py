from eth_abi.abi import encode

from avadata.decode.tokens import number, text


def test_abi_string_and_bytes32_fallback() -> None:
    assert text("0x" + encode(["string"], ["Wrapped AVAX"]).hex()) == "Wrapped AVAX"
    assert text("0x" + b"MKR".ljust(32, b"\x00").hex()) == "MKR"


def test_failures_invent_nothing() -> None:
    assert text(None) is None
    assert text("0x") is None
    assert text("0x" + "ff" * 32) is None
    assert number("0x" + "00" * 31 + "12") == 18
    assert number(None) is None
    assert number("0x" + "ff" * 32) is None
