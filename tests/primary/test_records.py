"""The primary records' constants agree with the codec that decode uses."""

from __future__ import annotations

from avadata.decode.codec.ids import cb58_encode
from avadata.records.primary import PRIMARY_SUBNET


def test_primary_subnet_is_the_cb58_of_32_zero_bytes() -> None:
    assert cb58_encode(bytes(32)) == PRIMARY_SUBNET
