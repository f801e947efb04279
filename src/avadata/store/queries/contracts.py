"""Contracts deployed by an address (the transaction sender), newest first, with token info.

Stage: store. Positions are (block_number, tx_index, trace_index). The statement is built once
per shape (see keyset.py).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, select

from avadata.store.queries.keyset import AnyRow, after_desc_param, fetch, position_params
from avadata.store.schema import contracts, tokens


@functools.cache
def _deployed_by(paged: bool) -> Select[Any]:
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
        .where(c.chain_id == bindparam("chain"), c.deployer == bindparam("deployer"))
    )
    keys = [c.block_number, c.tx_index, c.trace_index]
    if paged:
        stmt = stmt.where(after_desc_param(keys))
    return stmt.order_by(*(k.desc() for k in keys)).limit(bindparam("limit"))


def deployed_by(
    conn: Connection,
    chain_id: int,
    deployer: str,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    params: dict[str, Any] = {"chain": chain_id, "deployer": deployer, "limit": limit}
    if after is not None:
        params.update(position_params(after))
    return fetch(conn, _deployed_by(after is not None), params)
