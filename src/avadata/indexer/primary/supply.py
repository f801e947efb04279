"""Potential rewards of primary stakers from the reward formula: the node's supply anchor and
the staking history out of the store, the replay (decode/primary/supply.py) over them, each
staker's `formula_reward` back in.

Stage: indexer (wiring only: the arithmetic is decode's, the rows the store's).
"""

from __future__ import annotations

from avadata.decode.primary.supply import replay, solve_start_supply, supply_events
from avadata.store.primary.supply import save_formula_rewards, staking_history, supply_anchor
from avadata.store.types import Engine


def estimate_rewards(engine: Engine) -> bool:
    """Recompute every primary staker's formula reward from the anchor; False (and nothing
    written) without an anchor or when no start supply meets it."""
    anchor = supply_anchor(engine)
    if anchor is None:
        return False
    events = supply_events(*staking_history(engine))
    start = anchor.start_supply
    # The start supply found once stays right while the history grows: check, not re-solve.
    if start is None or replay(events, start, anchor.height)[1] != anchor.supply:
        start = solve_start_supply(events, anchor.supply, anchor.height)
        if start is None:
            return False
    rewards, _ = replay(events, start)
    save_formula_rewards(engine, rewards, start)
    return True
