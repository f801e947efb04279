"""How a follower waits: between polls, and longer while its node is unreachable.

Indexer stage. Both followers (the EVM chains', `evm.py`, and the primary network's,
`primary.py`) ride out a node that stays unreachable past a request's retries (a restart, an
upgrade): they log a warning and try again from their cursor, waiting twice as long each time
up to `MAX_OUTAGE_WAIT`, and back to the poll interval once a pass succeeds.
"""

from __future__ import annotations

import asyncio
import contextlib

# The longest wait between a following indexer's attempts while its node is unreachable.
MAX_OUTAGE_WAIT = 60.0


def longer(wait: float, poll: float) -> float:
    """The wait after one more failed attempt."""
    return min(MAX_OUTAGE_WAIT, max(wait, poll) * 2)


async def pause(seconds: float, stop_event: asyncio.Event | None) -> None:
    """Sleep `seconds`, or until `stop_event` is set."""
    if stop_event is None:
        await asyncio.sleep(seconds)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop_event.wait(), timeout=seconds)
