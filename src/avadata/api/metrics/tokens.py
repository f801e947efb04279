"""Metrics API page tokens: UUIDs kept in the store, so any API process can continue a page.

Stage: api. A token names a stored query (chain, metric, interval, bounds) and where the next
page starts; it is valid for 24 hours from creation (seed, "Paging"). The API's store engine
is read-only, so tokens are written through a small writer engine of their own; the rows are
read and written by store/page_tokens.py.
"""

from __future__ import annotations

import json
import random
import time
import uuid
from dataclasses import asdict, dataclass

from avadata.api.errors import bad_request
from avadata.store import page_tokens
from avadata.store.types import Engine

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
        created = page_tokens.created_at(self.reader, token)
        if created is not None:
            if created >= now - _REUSE_WINDOW_S:
                return token
            token = str(uuid.uuid4())  # that name is taken by an older token: a fresh one
        # Expired tokens go now and then (an index range delete), not on every issue.
        purge = now - TTL_S if random.random() < 0.02 else None
        page_tokens.insert(self.engine, token, now, body, purge_before=purge)
        return token

    def redeem(self, token: str, route: str, now: int | None = None) -> PageQuery:
        """The query behind `token`; 400 when it is malformed, unknown, expired or foreign."""
        now = int(time.time()) if now is None else now
        try:
            key = str(uuid.UUID(token))
        except ValueError:
            raise bad_request(f"pageToken: not a page token; {_RESTART}") from None
        found = page_tokens.find(self.engine, key)
        if found is None:
            raise bad_request(f"pageToken: unknown page token; {_RESTART}")
        created, stored = found
        if created < now - TTL_S:
            raise bad_request(f"pageToken: page token expired (valid 24 hours); {_RESTART}")
        query = PageQuery(**json.loads(stored))
        if query.route != route:
            raise bad_request(f"pageToken: token belongs to another route; {_RESTART}")
        return query
