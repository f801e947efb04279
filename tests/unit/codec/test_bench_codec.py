"""`avadata bench codec` compares equal work: avalanchejs counts the same txs in the stream."""

from __future__ import annotations

from avadata.bench import codec as bench
from avadata.decode.codec import api
from avadata.decode.codec.pchain_blocks import block_txs
from avadata.paths import TOOLS_DIR


def test_both_decoders_see_every_tx_of_the_stream() -> None:
    for with_bls in (True, False):
        stream = bench.build_stream(40, seed=3, with_bls=with_bls)
        ours = sum(len(block_txs(api.decode_p_block(raw))) for raw in stream)
        theirs = bench.measure_avalanchejs(stream, 0.0, TOOLS_DIR)
        assert theirs.blocks == len(stream)
        assert theirs.txs == ours > len(stream)
