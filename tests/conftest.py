"""Shared test configuration; fixtures live in tests/support/."""
