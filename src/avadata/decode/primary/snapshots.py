"""Records from the node's platform answers that no block carries: its current stakers and
each L1 validator's balance left.

Stage: decode, pure (the answers' JSON in, records out).
"""

from __future__ import annotations

from typing import Any

from avadata.records.primary import L1ValidatorLive, StakerLive


def current_stakers(answer: dict[str, Any]) -> list[StakerLive]:
    """Each validator of a platform.getCurrentValidators answer, then its delegators (who
    share its uptime and connection)."""
    live: list[StakerLive] = []
    for v in answer.get("validators") or []:
        uptime, connected = float(v.get("uptime") or 0), bool(v.get("connected"))
        live.append(
            StakerLive(
                v["txID"],
                int(v.get("potentialReward") or 0),
                int(v.get("accruedDelegateeReward") or 0),
                uptime,
                connected,
            )
        )
        live += [
            StakerLive(d["txID"], int(d.get("potentialReward") or 0), 0, uptime, connected)
            for d in v.get("delegators") or []
        ]
    return live


def l1_validator_live(
    validation_id: str, result: dict[str, Any] | None, error: dict[str, Any] | None
) -> L1ValidatorLive | None:
    """A platform.getL1Validator answer: "not found" once the validation is removed (its
    balance refunded); None for any other error (the previous answer stays)."""
    if error is not None:
        if "not found" in str(error.get("message", "")):
            return L1ValidatorLive(validation_id, 0, True, 0)
        return None
    result = result or {}
    return L1ValidatorLive(
        validation_id, int(result.get("balance") or 0), False, int(result.get("height") or 0)
    )
