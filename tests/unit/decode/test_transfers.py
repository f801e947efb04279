"""Transfer decoding against logs built independently with eth-abi and public topic constants."""

from eth_abi.abi import encode

from avadata.decode.transfers import decode_transfers
from avadata.records import DecodeStats, Log, TokenStandard

# Public constants (etherscan / EIP texts), not computed by the code under test.
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"
TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb"
A = "0x" + "11" * 20
B = "0x" + "22" * 20
OP = "0x" + "33" * 20
TOKEN = "0x" + "44" * 20


def topic(addr: str) -> str:
    return "0x" + "00" * 12 + addr[2:]


def log(topics: list[str], data: bytes, index: int = 0) -> Log:
    return Log(1, 7, 0, index, "0x" + "ab" * 32, TOKEN, tuple(topics), "0x" + data.hex())


META = {7: ("0x" + "cd" * 32, 1_700_000_000)}


def run(logs: list[Log]):
    stats = DecodeStats()
    return list(decode_transfers(logs, META, stats)), stats


def test_erc20_three_topics_value_in_data() -> None:
    (t,), stats = run([log([TRANSFER, topic(A), topic(B)], encode(["uint256"], [2**255 + 5]))])
    assert (t.standard, t.from_address, t.to_address, t.value, t.token_id) == (
        TokenStandard.ERC20,
        A,
        B,
        2**255 + 5,
        None,
    )
    assert stats.malformed_logs == 0


def test_erc721_four_topics_token_id_indexed() -> None:
    tid = "0x" + (12345).to_bytes(32, "big").hex()
    (t,), _ = run([log([TRANSFER, topic(A), topic(B), tid], b"")])
    assert (t.standard, t.token_id, t.value) == (TokenStandard.ERC721, 12345, 1)


def test_erc1155_single_and_batch() -> None:
    single = log(
        [TRANSFER_SINGLE, topic(OP), topic(A), topic(B)], encode(["uint256", "uint256"], [9, 70]), 0
    )
    batch = log(
        [TRANSFER_BATCH, topic(OP), topic(A), topic(B)],
        encode(["uint256[]", "uint256[]"], [[1, 2, 3], [10, 20, 30]]),
        1,
    )
    out, stats = run([single, batch])
    assert [(t.log_index, t.batch_index, t.token_id, t.value) for t in out] == [
        (0, 0, 9, 70),
        (1, 0, 1, 10),
        (1, 1, 2, 20),
        (1, 2, 3, 30),
    ]
    assert all(t.operator == OP and t.standard is TokenStandard.ERC1155 for t in out)
    assert stats.malformed_logs == 0


def test_malformed_logs_are_skipped_and_counted() -> None:
    bad = [
        log([TRANSFER, topic(A)], b""),  # too few topics
        log([TRANSFER, topic(A), topic(B)], b"\x01\x02"),  # short value
        log([TRANSFER, "0x" + "ff" * 32, topic(B)], encode(["uint256"], [1])),  # not an address
        log([TRANSFER_BATCH, topic(OP), topic(A), topic(B)], b"\x00" * 10),  # bad ABI
        log(
            [TRANSFER_BATCH, topic(OP), topic(A), topic(B)],
            encode(["uint256[]", "uint256[]"], [[1], [1, 2]]),
        ),
    ]
    good = log([TRANSFER, topic(A), topic(B)], encode(["uint256"], [1]), 9)
    out, stats = run([*bad, good])
    assert [t.log_index for t in out] == [9]
    assert stats.malformed_logs == len(bad)


def test_other_events_are_ignored_not_counted() -> None:
    out, stats = run([log(["0x" + "01" * 32, topic(A)], b"")])
    assert out == [] and stats.malformed_logs == 0
