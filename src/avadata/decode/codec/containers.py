"""Index API containers: proposervm wrapper (post-fork) or bare block (pre-fork), per chain.

`decode_container("P", data)` gives the wrapper (or None), the inner block and the ID the
Index API stores for the container: the wrapper's ID post-fork, the inner block's pre-fork.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from avadata.decode.codec import api, cblock, proposervm, render
from avadata.decode.codec.ids import cb58_encode, sha256
from avadata.decode.codec.reader import DecodeError
from avadata.decode.codec.xchain import StopVertex, Vertex


@dataclasses.dataclass(frozen=True)
class Container:
    chain: str
    wrapper: proposervm.ProposerBlock | None
    inner: Any  # PBlock, XBlock, Vertex/StopVertex or CChainBlock
    inner_bytes: bytes

    @property
    def id_bytes(self) -> bytes:
        if self.wrapper is not None:
            return self.wrapper.id_bytes()
        if isinstance(self.inner, cblock.CChainBlock):
            return self.inner.block_hash
        return sha256(self.inner_bytes)

    @property
    def inner_id(self) -> bytes:
        if isinstance(self.inner, cblock.CChainBlock):
            return self.inner.block_hash
        return sha256(self.inner_bytes)


def _inner(chain: str, data: bytes) -> Any:
    if chain == "P":
        return api.decode_p_block(data)
    if chain == "X":
        try:
            return api.decode_x_block(data)
        except DecodeError:
            return api.decode_vertex(data)
    if chain == "C":
        return cblock.decode_cchain_block(data)
    raise ValueError(f"unknown chain {chain!r}")


def _inner_start(wrapper: proposervm.ProposerBlock) -> int:
    """Offset of the inner block bytes inside the wrapper (after their u32 length)."""
    if isinstance(wrapper, proposervm.OptionBlock):
        return 2 + 4 + 32 + 4
    cert: bytes = wrapper.certificate  # type: ignore[attr-defined]
    return 2 + 4 + 32 + 8 + 8 + 4 + len(cert) + 4


def decode_container(chain: str, data: bytes) -> Container:
    """Post-fork containers are proposervm blocks; pre-fork ones are bare inner blocks. A bare
    block can parse as a wrapper by accident, so a wrapper whose inner bytes fail is retried
    bare; if both fail, the error names the offset inside the container."""
    chain = chain.upper()
    try:
        wrapper = proposervm.decode_proposervm(data)
    except DecodeError:
        return Container(chain, None, _inner(chain, data), data)
    inner_bytes: bytes = wrapper.block  # type: ignore[attr-defined]
    try:
        return Container(chain, wrapper, _inner(chain, inner_bytes), inner_bytes)
    except DecodeError as inner_error:
        try:
            return Container(chain, None, _inner(chain, data), data)
        except DecodeError:
            start = _inner_start(wrapper)
            raise DecodeError(
                start + inner_error.offset,
                f"{inner_error.expected} (in the block inside the proposervm wrapper)",
            ) from None


def container_json(c: Container, network_id: int | None = None) -> dict[str, Any]:
    inner = c.inner
    if isinstance(inner, cblock.CChainBlock):
        body: dict[str, Any] = {
            "blockId": "0x" + inner.block_hash.hex(),
            "blockType": "CorethBlock",
            **inner.header_dict(),
            "transactionCount": len(inner.transactions),
            "version": inner.version,
            "extData": "0x" + inner.ext_data.hex(),
            "atomicTransactions": [render.tx_json(t, "C", network_id) for t in inner.atomic_txs],
        }
    elif isinstance(inner, (Vertex, StopVertex)):
        ctx = render.Context("X", "avax")
        body = {
            "blockId": cb58_encode(sha256(c.inner_bytes)),
            "blockType": type(inner).__name__,
            **render.struct_json(inner, ctx),
        }
        if isinstance(inner, Vertex):
            body["transactions"] = [
                render.tx_json(t, "X", network_id) for t in api.vertex_txs(inner)
            ]
    else:
        body = render.block_json(inner, sha256(c.inner_bytes), c.chain, network_id)
    if c.wrapper is None:
        return body
    w = c.wrapper
    head = render.struct_json(w, render.Context(c.chain))
    head.pop("block", None)
    return {
        "blockId": cb58_encode(w.id_bytes()),
        "proposervm": {
            "type": type(w).__name__,
            **head,
        },
        "block": body,
    }
