"""A prepared batch gives back the transfers it was made from (the balance histories' input)."""

from __future__ import annotations

import pickle
import random

from avadata.store.prepared import prepare
from tests.store import builders as B

CHAIN = 43114


def test_transfer_records_are_the_batch_transfers_in_position_order() -> None:
    batch = B.rich_batch(CHAIN, 10, 12)
    expected = sorted(batch.transfers, key=lambda t: (t.block_number, t.log_index, t.batch_index))
    random.Random(7).shuffle(batch.transfers)
    assert batch.transfers != expected  # the order is prepare's to restore
    assert prepare(batch).transfer_records() == expected


def test_a_prepared_batch_crosses_pickling_whole() -> None:
    # What the fetch process hands the writer goes through pickle (its rows through marshal):
    # every field comes back equal, the appliers' inputs and token infos included.
    from avadata.indexer.appliers import default_appliers, split
    from avadata.records import TokenInfo, TokenStandard

    batch = B.rich_batch(CHAIN, 10, 12)
    batch.tokens.append(TokenInfo(CHAIN, B.addr(7), TokenStandard.ERC20, "Token", "TOK", 18))
    inputs = [split(a).prepare(batch) for a in default_appliers()]
    prepared = prepare(batch, inputs)
    assert prepared.tables and prepared.transfers and any(x is not None for x in inputs)
    back = pickle.loads(pickle.dumps(prepared, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == prepared
    assert back.transfer_records() == prepared.transfer_records()
