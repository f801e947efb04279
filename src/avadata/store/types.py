"""The store's handle types, named for the stages that hold one without building SQL.

Stage: store. The API and the indexer pass connections and engines around (a route's read
connection, the sink's open transaction) but never write SQL: they import these names from
here, so SQLAlchemy stays a detail of this package (tests/store/test_fence.py).
"""

from __future__ import annotations

from sqlalchemy import Connection, Engine, Row

__all__ = ["Connection", "Engine", "Row"]
