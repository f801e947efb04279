"""The proposervm wrapper around post-ApricotPhase4 block containers (`vms/proposervm/block`).

IDs: a stateless block's ID is sha256 of its bytes *without* the trailing signature (u32
length + bytes), so signed and unsigned forms share an ID; an option's ID is sha256(all bytes).
Pre-fork blocks are bare inner blocks: use `unwrap` to accept either form.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated

from avadata.decode.codec import type_ids
from avadata.decode.codec.fields import (
    I64,
    ID32,
    U64,
    VAR_BYTES,
    Iface,
    Inline,
    Struct,
    TypeTable,
    struct,
)
from avadata.decode.codec.ids import sha256
from avadata.decode.codec.reader import DecodeError, Reader

ID = Annotated[bytes, ID32]


class ProposerBlock(Struct):
    __slots__ = ()
    raw: bytes

    def id_bytes(self) -> bytes:
        raise NotImplementedError


@struct
class Epoch(Struct):
    p_chain_height: Annotated[int, U64]
    number: Annotated[int, U64]
    start_time: Annotated[int, I64]


@struct
class StatelessBlock(ProposerBlock):
    parent_id: ID
    timestamp: Annotated[int, I64]
    p_chain_height: Annotated[int, U64]
    certificate: Annotated[bytes, VAR_BYTES]  # proposer's DER staking cert; empty if unsigned
    block: Annotated[bytes, VAR_BYTES]  # the inner VM block
    signature: Annotated[bytes, VAR_BYTES]
    raw: bytes = dataclasses.field(default=b"", compare=False, repr=False)

    def id_bytes(self) -> bytes:
        return sha256(self.raw[: len(self.raw) - 4 - len(self.signature)])


@struct
class StatelessGraniteBlock(ProposerBlock):
    parent_id: ID
    timestamp: Annotated[int, I64]
    p_chain_height: Annotated[int, U64]
    certificate: Annotated[bytes, VAR_BYTES]
    block: Annotated[bytes, VAR_BYTES]
    epoch: Annotated[Epoch, Inline(Epoch)]
    signature: Annotated[bytes, VAR_BYTES]
    raw: bytes = dataclasses.field(default=b"", compare=False, repr=False)

    def id_bytes(self) -> bytes:
        return sha256(self.raw[: len(self.raw) - 4 - len(self.signature)])


@struct
class OptionBlock(ProposerBlock):
    """A commit/abort child of an inner proposal block."""

    parent_id: ID
    block: Annotated[bytes, VAR_BYTES]
    raw: bytes = dataclasses.field(default=b"", compare=False, repr=False)

    def id_bytes(self) -> bytes:
        return sha256(self.raw)


PROPOSERVM_TABLE = TypeTable(
    "proposervm",
    type_ids.bind(
        "proposervm",
        type_ids.PROPOSERVM,
        {
            "statelessBlock": StatelessBlock,
            "option": OptionBlock,
            "statelessGraniteBlock": StatelessGraniteBlock,
        },
    ),
)
_BLOCK = Iface(ProposerBlock)


def decode_proposervm(data: bytes) -> ProposerBlock:
    """proposervm bytes (unbounded size, as in avalanchego)."""
    r = Reader(data)
    r.version()
    blk: ProposerBlock = _BLOCK.read(r, PROPOSERVM_TABLE)  # flat: no nested interfaces
    r.done()
    object.__setattr__(blk, "raw", r.buf)
    return blk


def encode_proposervm(blk: ProposerBlock) -> bytes:
    from avadata.decode.codec.writer import Writer

    w = Writer()
    w.version(0)
    _BLOCK.write(w, PROPOSERVM_TABLE, blk)
    return w.getvalue()


def unwrap(data: bytes) -> tuple[ProposerBlock | None, bytes]:
    """(wrapper or None, inner block bytes): post-fork containers are proposervm blocks,
    pre-fork ones are the bare inner block. A bare P/X block starts with a type ID whose
    value (>= 0 and small) can also look like a wrapper, so we only accept a wrapper whose
    decoding consumes the whole input."""
    try:
        blk = decode_proposervm(data)
    except DecodeError:
        return None, data
    return blk, blk.block  # type: ignore[attr-defined]
