from avadata.decode.methods import classify
from avadata.records import CallType


def test_known_selector_named_from_the_bundled_table() -> None:
    # 0xa9059cbb is transfer(address,uint256): a public, well-known selector.
    assert classify("0x" + "11" * 20, "0xa9059cbb" + "00" * 64) == (
        CallType.CONTRACT_CALL,
        "0xa9059cbb",
        "transfer(address,uint256)",
    )


def test_unknown_selector_keeps_hash_without_name() -> None:
    assert classify("0x" + "11" * 20, "0xdeadbeef") == (CallType.CONTRACT_CALL, "0xdeadbeef", None)


def test_native_transfer_and_creation() -> None:
    assert classify("0x" + "11" * 20, "0x")[0] is CallType.NATIVE_TRANSFER
    assert classify(None, "0x6080")[:2] == (CallType.CONTRACT_CREATION, "")
