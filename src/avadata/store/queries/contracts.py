"""Contracts deployed by an address (the transaction sender), newest first, with token info.

Stage: store. Positions are (block_number, tx_index, trace_index).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, and_, select

from avadata.store.queries.keyset import AnyRow, after_desc
from avadata.store.schema import contracts, tokens


def deployed_by(
    conn: Connection,
    chain_id: int,
    deployer: str,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    c = contracts.c
    tk = tokens.c
    stmt = (
        select(
            contracts,
            tk.standard.label("token_standard"),
            tk.name.label("token_name"),
            tk.symbol.label("token_symbol"),
            tk.decimals.label("token_decimals"),
        )
        .select_from(
            contracts.outerjoin(tokens, and_(tk.chain_id == c.chain_id, tk.address == c.address))
        )
        .where(c.chain_id == chain_id, c.deployer == deployer)
    )
    if after is not None:
        stmt = stmt.where(after_desc([c.block_number, c.tx_index, c.trace_index], after))
    stmt = stmt.order_by(c.block_number.desc(), c.tx_index.desc(), c.trace_index.desc())
    return conn.execute(stmt.limit(limit)).all()
