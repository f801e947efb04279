"""ERC-20, ERC-721 and ERC-1155 transfers from logs, pure.

`Transfer(address,address,uint256)` with three topics is ERC-20 (value in data), with four topics
ERC-721 (token ID indexed, no data); TransferSingle and TransferBatch are ERC-1155. A log that
claims one of these events but does not fit its layout is skipped and counted, never fatal.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from eth_hash.auto import keccak

from avadata.decode.abi import uint256_arrays
from avadata.records import DecodeStats, Log, TokenStandard, TokenTransfer

TRANSFER = "0x" + keccak(b"Transfer(address,address,uint256)").hex()
TRANSFER_SINGLE = "0x" + keccak(b"TransferSingle(address,address,address,uint256,uint256)").hex()
TRANSFER_BATCH = "0x" + keccak(b"TransferBatch(address,address,address,uint256[],uint256[])").hex()
TOKEN_TOPICS = frozenset({TRANSFER, TRANSFER_SINGLE, TRANSFER_BATCH})


_new = tuple.__new__


class _Malformed(Exception):
    pass


def _topic_address(topic: str) -> str:
    if len(topic) != 66 or topic[2:26] != "0" * 24:
        raise _Malformed(topic)
    return "0x" + topic[26:]


def _word(topic: str) -> int:
    if len(topic) != 66:
        raise _Malformed(topic)
    return int(topic, 16)


def _data(data: str) -> bytes:
    try:
        return bytes.fromhex(data[2:])
    except ValueError as exc:
        raise _Malformed(data) from exc


def transfers_from_log(log: Log, block_hash: str, block_timestamp: int) -> list[TokenTransfer]:
    """The transfers one log carries (empty for other events). Raises _Malformed on a bad layout."""
    topics = log.topics
    if not topics:
        return []

    def make(
        standard: TokenStandard,
        frm: str,
        to: str,
        token_id: int | None,
        value: int,
        batch_index: int = 0,
        operator: str | None = None,
    ) -> TokenTransfer:
        # In TokenTransfer's field order, without its keyword-binding constructor (one per
        # transfer).
        return _new(
            TokenTransfer,
            (
                log.chain_id,
                log.block_number,
                block_hash,
                block_timestamp,
                log.tx_index,
                log.tx_hash,
                log.log_index,
                batch_index,
                log.address,
                standard,
                frm,
                to,
                token_id,
                value,
                operator,
            ),
        )

    sig = topics[0]
    if sig == TRANSFER:
        if len(topics) == 3:
            raw = _data(log.data)
            if len(raw) != 32:
                raise _Malformed("ERC-20 value")
            frm, to = _topic_address(topics[1]), _topic_address(topics[2])
            return [make(TokenStandard.ERC20, frm, to, None, int.from_bytes(raw, "big"))]
        if len(topics) == 4:
            if _data(log.data):
                raise _Malformed("ERC-721 with data")
            frm, to = _topic_address(topics[1]), _topic_address(topics[2])
            return [make(TokenStandard.ERC721, frm, to, _word(topics[3]), 1)]
        raise _Malformed("Transfer topic count")
    if sig not in (TRANSFER_SINGLE, TRANSFER_BATCH):
        return []
    if len(topics) != 4:
        raise _Malformed("ERC-1155 topic count")
    op, frm, to = (_topic_address(t) for t in topics[1:4])
    raw = _data(log.data)
    if sig == TRANSFER_SINGLE:
        if len(raw) != 64:
            raise _Malformed("TransferSingle data")
        token_id, value = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        return [make(TokenStandard.ERC1155, frm, to, token_id, value, operator=op)]
    try:
        ids, values = uint256_arrays(raw, 2)
    except ValueError as exc:
        raise _Malformed("TransferBatch data") from exc
    if len(ids) != len(values):
        raise _Malformed("TransferBatch lengths")
    return [
        make(TokenStandard.ERC1155, frm, to, i, v, batch_index=n, operator=op)
        for n, (i, v) in enumerate(zip(ids, values, strict=True))
    ]


def decode_transfers(
    logs: Iterable[Log], block_meta: dict[int, tuple[str, int]], stats: DecodeStats
) -> Iterator[TokenTransfer]:
    """All transfers in `logs`; `block_meta` maps block number to (hash, timestamp)."""
    for log in logs:
        if not log.topics or log.topics[0] not in TOKEN_TOPICS:
            continue
        block_hash, ts = block_meta[log.block_number]
        try:
            yield from transfers_from_log(log, block_hash, ts)
        except _Malformed:
            stats.malformed_logs += 1
