"""Metrics API page tokens: UUIDs kept in the store, so any API process can continue a page.

Stage: api. A token names a stored query (chain, metric, interval, bounds) and where the next
page starts; it is valid for 24 hours from creation (seed, "Paging"). The API's store engine
is read-only, so tokens are written through a small writer engine of their own.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from dataclasses import asdict, dataclass

from sqlalchemy import Engine, delete, select

from avadata.api.errors import bad_request
from avadata.store import dialect
from avadata.store.schema import metric_page_tokens

TTL_S = 24 * 3600
_RESTART = "start again from the first page (request without pageToken)"


@dataclass(frozen=True, slots=True)
class PageQuery:
    """Everything needed to serve the next page."""

    route: str
    chain_id: str
    metric: str
    interval: str
    oldest: int
    # The newest bucket start the next page begins with.
    newest: int


# Names the deterministic tokens (uuid5): the same page asked again within the same hour
# gets the same token, found by a read, so a repeated request does not write.
_NAMESPACE = uuid.UUID("5d2c3a9e-7f0b-4c61-9a3e-6a7661646174")
_REUSE_WINDOW_S = 3600


class TokenStore:
    """Tokens live in the store. `engine` writes them (the API's own engine is read-only);
    `reader`, when given, looks a token up before writing one."""

    def __init__(self, engine: Engine, reader: Engine | None = None) -> None:
        self.engine = engine
        self.reader = reader or engine

    def issue(self, query: PageQuery, now: int | None = None) -> str:
        now = int(time.time()) if now is None else now
        body = json.dumps(asdict(query), sort_keys=True)
        # A token is valid 24 h from its creation, so one reused for at most an hour still has
        # 23 h or more left when handed out again.
        token = str(uuid.uuid5(_NAMESPACE, f"{now // _REUSE_WINDOW_S}|{body}"))
        t = metric_page_tokens.c
        with self.reader.connect() as conn:
            row = conn.execute(select(t.created_at).where(t.token == token)).first()
        if row is not None:
            if row.created_at >= now - _REUSE_WINDOW_S:
                return token
            token = str(uuid.uuid4())  # that name is taken by an older token: a fresh one
        with self.engine.begin() as conn:
            # Expired tokens go now and then (an index range delete), not on every issue.
            if random.random() < 0.02:
                conn.execute(delete(metric_page_tokens).where(t.created_at < now - TTL_S))
            conn.execute(
                dialect.insert_or_ignore(conn, metric_page_tokens).values(
                    token=token, created_at=now, query=body
                )
            )
        return token

    def redeem(self, token: str, route: str, now: int | None = None) -> PageQuery:
        """The query behind `token`; 400 when it is malformed, unknown, expired or foreign."""
        now = int(time.time()) if now is None else now
        try:
            key = str(uuid.UUID(token))
        except ValueError:
            raise bad_request(f"pageToken: not a page token; {_RESTART}") from None
        t = metric_page_tokens.c
        with self.engine.connect() as conn:
            row = conn.execute(select(t.created_at, t.query).where(t.token == key)).first()
        if row is None:
            raise bad_request(f"pageToken: unknown page token; {_RESTART}")
        if row.created_at < now - TTL_S:
            raise bad_request(f"pageToken: page token expired (valid 24 hours); {_RESTART}")
        query = PageQuery(**json.loads(row.query))
        if query.route != route:
            raise bad_request(f"pageToken: token belongs to another route; {_RESTART}")
        return query
