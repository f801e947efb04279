"""How a range of blocks is cut into the chunks a feed fetches, decodes and writes as batches.

Indexer stage, and its own module because two places must cut alike: the feed's loop
(produce.py) and the fetch process's guess of its first range (guess.py), which runs before the
decoders are imported.
"""

from __future__ import annotations


def chunks(start: int, stop: int, size: int) -> list[tuple[int, int]]:
    """[start, stop] inclusive as half-open chunks of `size` blocks."""
    return [(s, min(s + size, stop + 1)) for s in range(start, stop + 1, size)]
