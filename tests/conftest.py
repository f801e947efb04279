"""Shared test configuration; fixtures live in tests/support/."""

from tests.support.devnet import devnet_chain  # noqa: F401  (session fixture: seeded anvil)
