"""Balances of one holder: native and ERC-20 at a block, and the ERC-721 tokens it owns.

Stage: store. Balance histories hold one row per block in which a balance changed; the balance
at block B is the row with the greatest block_number <= B. ERC-20 pages are keyed by token
address (ascending), ERC-721 pages by (token, token_id).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Select, bindparam, func, select, tuple_

from avadata.store.queries.keyset import AnyRow, records
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.schema import erc20_balances, erc721_owners, native_balances, tokens

_N = native_balances.c
_NATIVE_AT = (
    select(_N.balance)
    .where(
        _N.chain_id == bindparam("chain"),
        _N.address == bindparam("address"),
        _N.block_number <= bindparam("block"),
    )
    .order_by(_N.block_number.desc())
    .limit(1)
)


def native_at(conn: Connection, chain_id: int, address: str, block: int) -> int | None:
    """The last recorded native balance at or before `block`; None when none was recorded."""
    found = conn.execute(
        _NATIVE_AT, {"chain": chain_id, "address": address, "block": block}
    ).scalar()
    return None if found is None else int(found)


_B = erc20_balances.c
# Built once: this loop runs a dozen times per page, and building a statement costs more than
# SQLite takes to answer it.
_FIRST_TOKEN = select(func.min(_B.token)).where(
    _B.chain_id == bindparam("chain"), _B.holder == bindparam("holder")
)
_NEXT_TOKEN = _FIRST_TOKEN.where(_B.token > bindparam("after"))
_BALANCE_AT = (
    select(_B.balance)
    .where(
        _B.chain_id == bindparam("chain"),
        _B.token == bindparam("token"),
        _B.holder == bindparam("holder"),
        _B.block_number <= bindparam("block"),
    )
    .order_by(_B.block_number.desc())
    .limit(1)
)


@dataclass(frozen=True, slots=True)
class Erc20Holding:
    token: str
    balance: int
    token_name: str | None
    token_symbol: str | None
    token_decimals: int | None


def erc20_at(
    conn: Connection,
    chain_id: int,
    holder: str,
    block: int,
    contracts: Sequence[str] | None,
    after: Sequence[Any] | None,
    limit: int,
) -> list[Erc20Holding]:
    """Up to `limit` tokens with a positive balance at `block`, by token address after `after`.

    A seek per token, not a scan of the holder's history: the next token comes from the
    (chain, holder, token, block) index (a MIN probe), its balance at `block` from the primary
    key (the last change at or before `block`). The work is proportional to the tokens looked
    at, however long each balance's history is.
    """
    cursor: str | None = None if after is None else str(after[0])
    wanted = None if contracts is None else sorted(contracts)
    found: list[tuple[str, int]] = []
    while len(found) < limit:
        if wanted is not None:
            rest = [t for t in wanted if cursor is None or t > cursor]
            token: str | None = rest[0] if rest else None
        elif cursor is None:
            token = conn.execute(_FIRST_TOKEN, {"chain": chain_id, "holder": holder}).scalar()
        else:
            token = conn.execute(
                _NEXT_TOKEN, {"chain": chain_id, "holder": holder, "after": cursor}
            ).scalar()
        if token is None:
            break
        cursor = token
        balance = conn.execute(
            _BALANCE_AT, {"chain": chain_id, "token": token, "holder": holder, "block": block}
        ).scalar()
        if balance is not None and int(balance) > 0:
            found.append((token, int(balance)))
    if not found:
        return []
    tk = tokens.c
    meta = {
        r.address: r
        for r in conn.execute(
            select(tk.address, tk.name, tk.symbol, tk.decimals).where(
                tk.chain_id == chain_id, tk.address.in_([t for t, _ in found])
            )
        )
    }
    out = []
    for token, balance in found:
        m = meta.get(token)
        out.append(
            Erc20Holding(
                token,
                balance,
                None if m is None else m.name,
                None if m is None else m.symbol,
                None if m is None else m.decimals,
            )
        )
    return out


@functools.cache
def _owned(by_contract: bool, paged: bool) -> Select[Any]:
    o = erc721_owners.c
    tk = tokens.c
    stmt = (
        select(
            o.token,
            o.token_id,
            o.owner,
            tk.name.label("token_name"),
            tk.symbol.label("token_symbol"),
            *nft_metadata_columns(),
        )
        .select_from(join_token_info(erc721_owners, o.chain_id, o.token, o.token_id))
        .where(o.chain_id == bindparam("chain"), o.owner == bindparam("owner"))
    )
    if by_contract:
        stmt = stmt.where(o.token == bindparam("contract"))
    if paged:
        stmt = stmt.where(
            tuple_(o.token, o.token_id)
            > tuple_(bindparam("k0", type_=o.token.type), bindparam("k1", type_=o.token_id.type))
        )
    return stmt.order_by(o.token, o.token_id).limit(bindparam("limit"))


def erc721_owned(
    conn: Connection,
    chain_id: int,
    owner: str,
    contract: str | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """ERC-721 tokens currently owned by `owner`, by (token, token_id)."""
    params: dict[str, Any] = {"chain": chain_id, "owner": owner, "contract": contract}
    params["limit"] = limit
    if after is not None:
        params.update(k0=str(after[0]), k1=int(after[1]))
    return records(conn.execute(_owned(contract is not None, after is not None), params))
