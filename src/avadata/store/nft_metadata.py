"""The NFT metadata worker's rows: which tokens are due, and what was found for one.

Stage: store. The worker (indexer/nft/worker.py) decides what to fetch and what an outcome
means; this module reads the due tokens of nft_tokens (with their chain's node URL) and writes
a token's outcome back, through the worker's own writer engine.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Engine, and_, select, update

from avadata.store.nft_status import PENDING
from avadata.store.queries.keyset import AnyRow
from avadata.store.schema import chains, nft_tokens

_NF = nft_tokens.c


def due(
    engine: Engine, statuses: Collection[str], now: int, max_attempts: int, limit: int
) -> Sequence[AnyRow]:
    """Up to `limit` tokens in one of `statuses` whose next attempt is due, the longest
    waiting first: (chain_id, token, token_id, standard, token_uri, attempts, rpc_url)."""
    with engine.connect() as conn:
        return conn.execute(
            select(
                _NF.chain_id,
                _NF.token,
                _NF.token_id,
                _NF.standard,
                _NF.token_uri,
                _NF.attempts,
                chains.c.rpc_url,
            )
            .select_from(nft_tokens.join(chains, chains.c.chain_id == _NF.chain_id))
            .where(
                _NF.index_status.in_(sorted(statuses)),
                _NF.next_attempt_at <= now,
                _NF.attempts < max_attempts,
            )
            .order_by(_NF.next_attempt_at)
            .limit(limit)
        ).all()


def record(
    engine: Engine, chain_id: int, token: str, token_id: Any, values: dict[str, Any]
) -> None:
    """Write `values` (columns of nft_tokens) on one token, in a transaction of its own."""
    with engine.begin() as conn:
        conn.execute(
            update(nft_tokens)
            .where(and_(_NF.chain_id == chain_id, _NF.token == token, _NF.token_id == token_id))
            .values(**values)
        )


def requeue(engine: Engine, chain_id: int, token: str, token_id: int) -> bool:
    """Queue one token's metadata for a fresh fetch (reindexNft): due now, its attempts reset.
    False when the token was never seen (no row to queue)."""
    with engine.begin() as conn:
        found = conn.execute(
            update(nft_tokens)
            .where(and_(_NF.chain_id == chain_id, _NF.token == token, _NF.token_id == token_id))
            .values(index_status=PENDING, attempts=0, next_attempt_at=0)
        )
        return bool(found.rowcount)
