"""Balances of one holder: native and ERC-20 at a block, and the ERC-721 tokens it owns.

Stage: store. Balance histories hold one row per block in which a balance changed; the balance
at block B is the row with the greatest block_number <= B. ERC-20 pages are keyed by token
address (ascending), ERC-721 pages by (token, token_id).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, and_, func, select

from avadata.store.queries.keyset import AnyRow, after_asc
from avadata.store.schema import erc20_balances, erc721_owners, native_balances, nft_tokens, tokens


def native_at(conn: Connection, chain_id: int, address: str, block: int) -> int | None:
    """The last recorded native balance at or before `block`; None when none was recorded."""
    c = native_balances.c
    found = conn.execute(
        select(c.balance)
        .where(c.chain_id == chain_id, c.address == address, c.block_number <= block)
        .order_by(c.block_number.desc())
        .limit(1)
    ).scalar_one_or_none()
    return None if found is None else int(found)


def erc20_at(
    conn: Connection,
    chain_id: int,
    holder: str,
    block: int,
    contracts: Sequence[str] | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """Tokens with a positive balance at `block`, by token address, with their metadata."""
    b = erc20_balances.alias("b")
    b2 = erc20_balances.alias("b2")
    tk = tokens.c
    last_change = (
        select(func.max(b2.c.block_number))
        .where(
            b2.c.chain_id == b.c.chain_id,
            b2.c.token == b.c.token,
            b2.c.holder == b.c.holder,
            b2.c.block_number <= block,
        )
        .scalar_subquery()
    )
    stmt = (
        select(
            b.c.token,
            b.c.balance,
            tk.name.label("token_name"),
            tk.symbol.label("token_symbol"),
            tk.decimals.label("token_decimals"),
        )
        .select_from(
            b.outerjoin(tokens, and_(tk.chain_id == b.c.chain_id, tk.address == b.c.token))
        )
        .where(
            b.c.chain_id == chain_id,
            b.c.holder == holder,
            b.c.block_number == last_change,
            b.c.balance > 0,
        )
    )
    if contracts is not None:
        stmt = stmt.where(b.c.token.in_(list(contracts)))
    if after is not None:
        stmt = stmt.where(after_asc([b.c.token], after))
    return conn.execute(stmt.order_by(b.c.token).limit(limit)).all()


def erc721_owned(
    conn: Connection,
    chain_id: int,
    owner: str,
    contract: str | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """ERC-721 tokens currently owned by `owner`, by (token, token_id)."""
    o = erc721_owners.c
    tk = tokens.c
    nf = nft_tokens.c
    stmt = (
        select(
            o.token,
            o.token_id,
            o.owner,
            tk.name.label("token_name"),
            tk.symbol.label("token_symbol"),
            nf.token_uri,
            nf.index_status,
            nf.name.label("nft_name"),
            nf.description.label("nft_description"),
            nf.image_uri,
            nf.external_url,
            nf.metadata_json,
            nf.last_updated,
        )
        .select_from(
            erc721_owners.outerjoin(
                tokens, and_(tk.chain_id == o.chain_id, tk.address == o.token)
            ).outerjoin(
                nft_tokens,
                and_(nf.chain_id == o.chain_id, nf.token == o.token, nf.token_id == o.token_id),
            )
        )
        .where(o.chain_id == chain_id, o.owner == owner)
    )
    if contract is not None:
        stmt = stmt.where(o.token == contract)
    if after is not None:
        stmt = stmt.where(after_asc([o.token, o.token_id], after))
    return conn.execute(stmt.order_by(o.token, o.token_id).limit(limit)).all()
