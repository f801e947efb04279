"""How a range of blocks is cut into the chunks a feed fetches, decodes and writes as batches.

Indexer stage, and its own module because two processes must cut alike: the parent's feed
(pipeline.py) and the fetch process's guess of its first range (prefetch.py), which runs before
the pipeline's imports are done.
"""

from __future__ import annotations


def chunks(start: int, stop: int, size: int) -> list[tuple[int, int]]:
    """[start, stop] inclusive as half-open chunks of `size` blocks."""
    return [(s, min(s + size, stop + 1)) for s in range(start, stop + 1, size)]
