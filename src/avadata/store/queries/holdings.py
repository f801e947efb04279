"""A holder's ERC-1155 balances at a block, and one contract's deployment and token facts.

Stage: store. ERC-1155 pages are keyed by (token, token_id) ascending: the holder's distinct
pairs come in order from the (chain, holder, token, token_id, block) index, a few MIN probes
each, chained in one statement with each balance at the block (its last change at or before
it, one seek); zero balances left out.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, NamedTuple

from sqlalchemy import Connection, Select, and_, bindparam, func, literal, literal_column, select

from avadata.store.queries.blocks import head_of_chain
from avadata.store.queries.keyset import AnyRow, fetch
from avadata.store.queries.tokeninfo import join_token_info, nft_metadata_columns
from avadata.store.schema import contracts, erc1155_balances, tokens

_E = erc1155_balances.c


def _min_of(column: Any, by_contract: bool, *conds: Any) -> Any:
    """MIN(`column`) of the holder's rows matching `conds`: one probe of the (chain, holder,
    token, token_id, block) index, however long each pair's history is."""
    b = erc1155_balances.alias()
    stmt = select(func.min(b.c[column])).where(
        b.c.chain_id == bindparam("chain"),
        b.c.holder == bindparam("holder"),
        *(f(b.c) for f in conds),
    )
    if by_contract:
        stmt = stmt.where(b.c.token == bindparam("contract"))
    # Correlated to the CTE however deep it is nested (SQLAlchemy would otherwise add the
    # CTE to a nested probe's FROM: a second recursive reference).
    return stmt.correlate_except(b).scalar_subquery()


def _pair_after(token: Any, token_id: Any, by_contract: bool) -> tuple[Any, Any]:
    """(token, token_id) of the holder's first pair after (`token`, `token_id`): a later id of
    the same token, else the first id of the next token (NULLs past the last pair)."""
    same = [lambda c: c.token == token, lambda c: c.token_id > token_id]
    later = _min_of("token", by_contract, lambda c: c.token > token)
    next_token = func.coalesce(_min_of("token", by_contract, *same), later)
    next_id = func.coalesce(
        _min_of("token_id", by_contract, *same),
        _min_of("token_id", by_contract, lambda c: c.token == later),
    )
    return next_token, next_id


@functools.cache
def _next_pairs(by_contract: bool) -> Select[Any]:
    """Up to :k of the holder's pairs after (:k0, :k1), each with its balance at :block and its
    token's and NFT's metadata, in one statement: a recursive CTE chains the index probes (a
    skip scan over the holder's pairs), so a page is one round of SQL instead of three
    statements per pair looked at."""
    t0, i0 = _pair_after(
        bindparam("k0", type_=_E.token.type), bindparam("k1", type_=_E.token_id.type), by_contract
    )
    seed = select(t0.label("token"), i0.label("token_id"), literal(1).label("n"))
    pairs = seed.cte("pairs", recursive=True)
    t1, i1 = _pair_after(pairs.c.token, pairs.c.token_id, by_contract)
    pairs = pairs.union_all(
        select(t1, i1, pairs.c.n + 1).where(pairs.c.token.is_not(None), pairs.c.n < bindparam("k"))
    )
    h = erc1155_balances.alias("h")
    balance = (
        select(h.c.balance)
        .where(
            h.c.chain_id == bindparam("chain"),
            h.c.token == pairs.c.token,
            h.c.token_id == pairs.c.token_id,
            h.c.holder == bindparam("holder"),
            h.c.block_number
            <= func.coalesce(bindparam("block", type_=h.c.block_number.type), head_of_chain()),
        )
        .order_by(h.c.block_number.desc())
        .limit(1)
        .scalar_subquery()
    )
    tk = tokens.c
    return (
        select(
            pairs.c.token,
            pairs.c.token_id,
            balance.label("balance"),
            tk.name.label("token_name"),
            tk.symbol.label("token_symbol"),
            *nft_metadata_columns(),
        )
        .select_from(join_token_info(pairs, bindparam("chain"), pairs.c.token, pairs.c.token_id))
        .where(pairs.c.token.is_not(None))
        .order_by(pairs.c.token, pairs.c.token_id)
    )


class Erc1155Holding(NamedTuple):
    """A positive ERC-1155 balance with the token's metadata (the columns the shapes read)."""

    token: str
    token_id: int
    balance: int
    token_name: str | None
    token_symbol: str | None
    token_uri: str | None
    index_status: str | None
    nft_name: str | None
    nft_description: str | None
    image_uri: str | None
    external_url: str | None
    metadata_json: str | None
    last_updated: int | None


def erc1155_at(
    conn: Connection,
    chain_id: int,
    holder: str,
    block: int | None,
    contract: str | None,
    after: Sequence[Any] | None,
    limit: int,
) -> list[Erc1155Holding]:
    """Up to `limit` ERC-1155 tokens `holder` has a positive balance of at `block` (None: the
    chain's highest stored block), by (token, token_id) after `after`: the holder's next pairs
    by index probes, each balance at the block by a primary-key seek (`_next_pairs`), zero
    balances (sold out, or not yet held) skipped and the next round asked from where this one
    ended."""
    params: dict[str, Any] = {"chain": chain_id, "holder": holder, "contract": contract}
    params["block"] = block
    # "" sorts before every address: the first round starts at the holder's first pair.
    cursor = ("", 0) if after is None else (str(after[0]), int(after[1]))
    found: list[Erc1155Holding] = []
    while len(found) < limit:
        k = limit - len(found)
        at = {**params, "k0": cursor[0], "k1": cursor[1], "k": k}
        rows = fetch(conn, _next_pairs(contract is not None), at)
        for r in rows:
            if r.balance is not None and int(r.balance) > 0:
                found.append(Erc1155Holding(r.token, int(r.token_id), int(r.balance), *r[3:]))
        if len(rows) < k:
            break
        cursor = (str(rows[-1].token), int(rows[-1].token_id))
    return found


_CO = contracts.c
_TK = tokens.c
# The contract's deployment and its token facts in one statement: both tables probed by
# primary key from a one-row seed, each side NULL when not indexed.
_CONTRACT = select(
    *contracts.c,
    _TK.standard.label("token_standard"),
    _TK.name.label("token_name"),
    _TK.symbol.label("token_symbol"),
    _TK.decimals.label("token_decimals"),
).select_from(
    select(literal_column("1").label("one"))
    .subquery("seed")
    .outerjoin(
        contracts, and_(_CO.chain_id == bindparam("chain"), _CO.address == bindparam("address"))
    )
    .outerjoin(
        tokens, and_(_TK.chain_id == bindparam("chain"), _TK.address == bindparam("address"))
    )
)


class TokenFacts(NamedTuple):
    """What the indexer read of a token contract when it first saw it."""

    standard: str
    name: str | None
    symbol: str | None
    decimals: int | None


def contract(
    conn: Connection, chain_id: int, address: str
) -> tuple[AnyRow | None, TokenFacts | None]:
    """(the contract's deployment row, its token facts): either is None when not indexed."""
    row = fetch(conn, _CONTRACT, {"chain": chain_id, "address": address})[0]
    deployed = None if row.tx_hash is None else row
    if row.token_standard is None:
        return deployed, None
    decimals = None if row.token_decimals is None else int(row.token_decimals)
    return deployed, TokenFacts(row.token_standard, row.token_name, row.token_symbol, decimals)
