"""Shared test configuration; fixtures live in tests/support/."""

import pytest

from tests.support.devnet import devnet_chain  # noqa: F401  (session fixture: seeded anvil)


def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
    """`--dist loadfile`'s units and order: tests/support/scheduling.py."""
    from tests.support.scheduling import make_scheduler

    return make_scheduler(config, log)


def pytest_collection_modifyitems(items):  # type: ignore[no-untyped-def]
    """Every test has a node ID of its own: xdist tells tests apart by node ID, and of tests
    sharing one it runs only the first. schemathesis names each operation's test
    `test_x[GET /path]` but gives every one the node ID `...::test_x`; such a test gets its
    operation as its ID's parameters."""
    for item in items:
        label = getattr(item, "operation_label", None)  # schemathesis's items
        if label and not str(item.nodeid).endswith("]"):
            item._id = item._id.with_params(label)
    seen: set[str] = set()
    repeated = {i.nodeid for i in items if i.nodeid in seen or seen.add(i.nodeid)}
    if repeated:
        raise pytest.UsageError(f"tests sharing a node ID: {sorted(repeated)[:5]}")
