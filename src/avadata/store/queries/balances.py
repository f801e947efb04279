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

from sqlalchemy import Connection, Select, and_, bindparam, func, literal, select, tuple_

from avadata.store.dialect import read_rows, round_trips
from avadata.store.queries.arms import arm_rows, arms
from avadata.store.queries.blocks import head_of_chain
from avadata.store.queries.keyset import AnyRow, fetch, fetch_scalar, record_maker
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.schema import erc20_balances, erc721_owners, native_balances, tokens

_N = native_balances.c
# The balances routes' default block (the latest indexed) and the holder's native balance at
# the block asked, else at that one, in one statement: one round trip, not two.
_HEAD_AND_NATIVE = select(
    head_of_chain().label("head"),
    select(_N.balance)
    .where(
        _N.chain_id == bindparam("chain"),
        _N.address == bindparam("address"),
        _N.block_number
        <= func.coalesce(bindparam("block", type_=_N.block_number.type), head_of_chain()),
    )
    .order_by(_N.block_number.desc())
    .limit(1)
    .scalar_subquery()
    .label("balance"),
)


def native_with_head(
    conn: Connection, chain_id: int, address: str, block: int | None
) -> tuple[int | None, int | None]:
    """(the chain's highest stored block, the last native balance of `address` recorded at or
    before `block`, or before that highest block when `block` is None); each None when there
    is none."""
    params = {"chain": chain_id, "address": address, "block": block}
    head, balance = read_rows(conn, _HEAD_AND_NATIVE, params)[1][0]
    return (None if head is None else int(head)), (None if balance is None else int(balance))


_B = erc20_balances.c


def _balance_at(token: Any) -> Any:
    """The holder's balance of `token` at block :block: its last change at or before it, one
    seek on the primary key."""
    h = erc20_balances.alias("h")
    return (
        select(h.c.balance)
        .where(
            h.c.chain_id == bindparam("chain"),
            h.c.token == token,
            h.c.holder == bindparam("holder"),
            h.c.block_number <= bindparam("block"),
        )
        .order_by(h.c.block_number.desc())
        .limit(1)
        .scalar_subquery()
    )


def _next_token_after(after: Any) -> Any:
    """The holder's first token after `after`: one MIN probe on the (chain, holder, token)
    index, however long each token's history is."""
    b = erc20_balances.alias("b")
    return (
        select(func.min(b.c.token))
        .where(b.c.chain_id == bindparam("chain"), b.c.holder == bindparam("holder"))
        .where(b.c.token > after)
        .scalar_subquery()
    )


_WANTED = select(_balance_at(bindparam("token", type_=_B.token.type)))
_TK = tokens.c
# Prepared once, like the rest: building this select on every request cost 0.2 ms, four
# times what the page's balances take to find.
_TOKEN_INFO = select(_TK.address, _TK.name, _TK.symbol, _TK.decimals).where(
    _TK.chain_id == bindparam("chain"), _TK.address.in_(bindparam("tokens", expanding=True))
)


@functools.cache
def _next_tokens() -> Select[Any]:
    """Up to :k tokens of the holder after :after, each with its balance at :block and its
    token info, in one statement: a recursive CTE chains the MIN probes (a skip scan over the
    holder's tokens), so a page costs one round of SQL instead of two statements per token
    looked at, and the info is a primary-key probe per token rather than an IN-list query
    (which SQLAlchemy must rebuild on every execution)."""
    seed = select(
        _next_token_after(bindparam("after", type_=_B.token.type)).label("token"),
        literal(1).label("n"),
    ).cte("toks", recursive=True)
    toks = seed.union_all(
        select(_next_token_after(seed.c.token), seed.c.n + 1).where(
            seed.c.token.is_not(None), seed.c.n < bindparam("k")
        )
    )
    info = tokens.alias("info")
    return (
        select(
            toks.c.token,
            _balance_at(toks.c.token).label("balance"),
            info.c.name,
            info.c.symbol,
            info.c.decimals,
        )
        .select_from(
            toks.outerjoin(
                info,
                and_(info.c.chain_id == bindparam("chain"), info.c.address == toks.c.token),
            )
        )
        .where(toks.c.token.is_not(None))
        .order_by(toks.c.token)
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

    Seeks, not a scan of the holder's history: the next tokens come from the (chain, holder,
    token, block) index (MIN probes chained in one statement, `_next_tokens`), each balance
    at `block` from the primary key (the last change at or before `block`). The work is
    proportional to the tokens looked at, however long each balance's history is.
    """
    wanted = None if contracts is None else sorted(set(contracts))
    cursor = "" if after is None else str(after[0])  # "" sorts before every address
    found: list[tuple[str, int]] = []
    # (name, symbol, decimals) of the tokens the statement already read them for.
    info: dict[str, tuple[str | None, str | None, int | None]] = {}
    params: dict[str, Any] = {"chain": chain_id, "holder": holder, "block": block}
    while len(found) < limit:
        k = limit - len(found)
        if wanted is not None:
            probe = [t for t in wanted if t > cursor][:k]
            rows = [(t, fetch_scalar(conn, _WANTED, {**params, "token": t})) for t in probe]
        else:
            got = read_rows(conn, _next_tokens(), {**params, "after": cursor, "k": k})[1]
            rows = []
            for token, balance, name, symbol, decimals in got:
                rows.append((str(token), balance))
                info[str(token)] = (name, symbol, decimals)
        for token, balance in rows:
            # Zero balances (sold out) are skipped; the next round asks from where this ended.
            if balance is not None and int(balance) > 0:
                found.append((token, int(balance)))
        if len(rows) < k:
            break
        cursor = rows[-1][0]
    if not found:
        return []
    if wanted is not None:
        for r in conn.execute(_TOKEN_INFO, {"chain": chain_id, "tokens": [t for t, _ in found]}):
            info[r.address] = (r.name, r.symbol, r.decimals)
    none = (None, None, None)
    return [Erc20Holding(token, balance, *info.get(token, none)) for token, balance in found]


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


def erc721_owned_and_native(
    conn: Connection,
    chain_id: int,
    owner: str,
    contract: str | None,
    after: Sequence[Any] | None,
    limit: int,
) -> tuple[Sequence[AnyRow], int | None]:
    """`erc721_owned`'s page and the owner's native balance at the chain's head
    (`native_with_head`): one statement where a statement is a round trip
    (dialect.round_trips), two elsewhere."""
    if not round_trips(conn):
        rows = erc721_owned(conn, chain_id, owner, contract, after, limit)
        return rows, native_with_head(conn, chain_id, owner, None)[1]
    params = _owned_params(chain_id, owner, contract, after, limit)
    params.update(address=owner, block=None)
    got = read_rows(conn, _owned_and_native(contract is not None, after is not None), params)[1]
    width = len(_HEAD_AND_NATIVE.selected_columns)
    ((_, native),) = arm_rows(got, 0, 0, width)
    page = arm_rows(got, 1, width, len(_OWNED_KEYS))
    # The arms' rows come in no promised order: the page's, (token, token_id), again.
    page.sort(key=lambda r: (r[0], r[1]))
    rows = list(map(record_maker(_OWNED_KEYS), page))
    return rows, (None if native is None else int(native))


@functools.cache
def _owned_and_native(by_contract: bool, paged: bool) -> Any:
    page = _owned(by_contract, paged).subquery()
    return arms(_HEAD_AND_NATIVE, select(*page.c))


def _owned_params(
    chain_id: int, owner: str, contract: str | None, after: Sequence[Any] | None, limit: int
) -> dict[str, Any]:
    params: dict[str, Any] = {"chain": chain_id, "owner": owner, "contract": contract}
    params["limit"] = limit
    if after is not None:
        params.update(k0=str(after[0]), k1=int(after[1]))
    return params


def erc721_owned(
    conn: Connection,
    chain_id: int,
    owner: str,
    contract: str | None,
    after: Sequence[Any] | None,
    limit: int,
) -> Sequence[AnyRow]:
    """ERC-721 tokens currently owned by `owner`, by (token, token_id)."""
    params = _owned_params(chain_id, owner, contract, after, limit)
    return fetch(conn, _owned(contract is not None, after is not None), params)


_OWNED_KEYS = tuple(_owned(False, False).selected_columns.keys())
