"""The reward formula against avalanchego's own calculator_test vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from avadata.decode.primary.reward import potential_reward, split_delegation

VECTORS = Path("/work/shared/vectors/reward_calculator.json")


def _vectors() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(VECTORS.read_text())
    vectors: list[dict[str, Any]] = data["vectors"]
    return vectors


@pytest.mark.parametrize("v", _vectors())
def test_vector(v: dict[str, Any]) -> None:
    got = potential_reward(
        int(v["staked_duration_seconds"]),
        int(v["staked_amount_nAVAX"]),
        int(v["current_supply_nAVAX"]),
    )
    assert got == int(v["expected_reward_nAVAX"])


def test_split_is_whole() -> None:
    # 2% fee (mainnet minimum): the delegator keeps floor(98% of it), the validator the rest.
    assert split_delegation(1_000_001, 20_000) == (980_000, 20_001)
