"""delivery/'s pure parts: retry waits (exponential, capped, jittered, never giving up), which
receiver URLs are refused, the messageId's stability and the amounts with decimals."""

from __future__ import annotations

import pytest

from avadata.delivery import payload, targets
from avadata.delivery.worker import backoff_s


def test_backoff_doubles_up_to_the_cap_with_jitter_and_no_horizon() -> None:
    full = [backoff_s(n, 1.0, 600.0, lambda: 1.0) for n in range(12)]
    assert full[:10] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert full[10:] == [600, 600]
    assert backoff_s(10_000, 1.0, 600.0, lambda: 1.0) == 600  # no overflow, no give-up
    assert backoff_s(3, 1.0, 600.0, lambda: 0.0) == 4  # jitter: between half and all of it


@pytest.mark.parametrize(
    ("url", "refuse", "refused"),
    [
        ("https://example.com/hook", True, False),
        ("http://127.0.0.1:8000/hook", False, False),
        ("http://127.0.0.1:8000/hook", True, True),
        ("http://10.0.0.1/hook", True, True),
        ("http://192.168.1.1/hook", True, True),
        ("http://[fe80::1]/hook", True, True),
        ("http://localhost/hook", True, True),
        ("http://8.8.8.8/hook", True, False),
        ("ftp://example.com/x", False, True),
        ("example.com/hook", False, True),
        ("http:///nohost", False, True),
    ],
)
def test_which_receivers_are_refused(url: str, refuse: bool, refused: bool) -> None:
    assert (targets.literal_refusal(url, refuse) is not None) == refused


def test_message_id_is_stable_per_webhook_and_transaction() -> None:
    a = payload.message_id("w1", 43113, "0xAB")
    assert a == payload.message_id("w1", 43113, "0xab")
    assert a != payload.message_id("w2", 43113, "0xab")
    assert a != payload.message_id("w1", 43114, "0xab")
    assert len(a) == 36 and a[14] == "5"  # a version-5 UUID


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [(1_500_000, 6, "1.5"), (1, 6, "0.000001"), (10**18, 18, "1"), (7, 0, "7"), (120, None, "120")],
)
def test_amounts_with_decimals(value: int, decimals: int | None, text: str) -> None:
    assert payload.with_decimals(value, decimals) == text


def test_canonical_json_sorts_keys_and_keeps_utf8() -> None:
    assert (
        payload.canonical({"b": 1, "a": ["é", None, True]})
        == '{"a":["é",null,true],"b":1}'.encode()
    )
