"""A prepared batch gives back the transfers it was made from (the balance histories' input)."""

from __future__ import annotations

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
