"""GET …/addresses/{address}/balances:listErc20 and balances:listErc721.

Stage: api. ERC-20 balances are read at `blockNumber` (default: the latest indexed block)
from the balance history, by token address; tokens with a zero balance are left out.
ERC-721 balances are the tokens the address owns now. Prices come from the configured
price source; without one, price and balanceValue are omitted.
"""

from __future__ import annotations

from typing import Annotated, Any, cast

from fastapi import APIRouter, Query

from avadata.api.data.chains import network_token
from avadata.api.data.models import (
    CurrencyCode,
    Erc20TokenBalance,
    Erc721TokenBalance,
    ListErc20BalancesResponse,
    ListErc721BalancesResponse,
    NativeTokenBalance,
)
from avadata.api.data.shapes import checksum, erc721_token, money
from avadata.api.deps import (
    AddressPath,
    AppState,
    ChainIdPath,
    State,
    address,
    chain_conn,
    on_store,
)
from avadata.api.encoding import JsonResponse
from avadata.api.errors import ERROR_RESPONSES, bad_request
from avadata.api.fastroute import FastRoute
from avadata.api.paging import BalancePageSize, PageToken, cut, page, with_token
from avadata.api.patterns import evm_addresses
from avadata.store.queries import balances as queries
from avadata.store.queries.chains import ChainRow
from avadata.store.types import Connection

router = APIRouter(tags=["EVM balances"], route_class=FastRoute)


def _priced(
    out: dict[str, Any],
    st: AppState,
    chain_id: int,
    asset: str,
    raw: int,
    decimals: int,
    currency: str,
) -> None:
    """Add price and balanceValue when the price source knows the asset; nothing otherwise."""
    if st.prices is None:
        return
    price = st.prices.price(chain_id, asset, currency)
    if price is None:
        return
    as_string = st.settings.money_value == "string"
    out["price"] = money(price, currency, as_string)
    out["balanceValue"] = money(raw / 10**decimals * price, currency, as_string)


def native_balance(
    st: AppState, chain: ChainRow, raw: int | None, currency: str
) -> NativeTokenBalance:
    token = network_token(chain, st.settings)  # the chain's own gas token, else AVAX
    decimals = token["decimals"]
    out: dict[str, Any] = {
        **token,
        "chainId": str(chain.chain_id),
        # No snapshot recorded: the indexer never saw this address move native value.
        "balance": str(raw or 0),
    }
    _priced(out, st, chain.chain_id, "native", raw or 0, decimals, currency)
    return cast(NativeTokenBalance, out)


def block_and_native(
    conn: Connection, chain: ChainRow, holder: str, raw_block: str | None
) -> tuple[int | None, int | None]:
    """The block a balances route reads at (`blockNumber`, default the latest indexed; None
    when the chain has no block) and the holder's native balance there, in one statement."""
    asked = at_block(raw_block, None)
    head, native = queries.native_with_head(conn, chain.chain_id, holder, asked)
    return (head if asked is None else asked), native


def _contracts(raw: str | None) -> list[str] | None:
    if raw is None:
        return None
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    if not parts:
        return None
    return sorted({address(p, "contractAddresses") for p in parts})


def at_block(raw: str | None, latest: int | None) -> int | None:
    if raw is None or raw == "":
        return latest
    if not raw.isdigit() or len(raw) > 18:
        raise bad_request(f"blockNumber: must be a non-negative decimal block number (got {raw!r})")
    return int(raw)


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/balances:listErc20",
    operation_id="listErc20Balances",
    responses={200: {"model": ListErc20BalancesResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_erc20_balances(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    blockNumber: Annotated[
        str | None,
        Query(pattern=r"^[0-9]{1,18}$", description="Decimal block number; default the latest"),
    ] = None,
    pageToken: PageToken = None,
    pageSize: BalancePageSize = 10,
    filterSpamTokens: Annotated[bool, Query()] = True,
    contractAddresses: Annotated[
        str | None,
        Query(
            pattern=evm_addresses(),
            description="Comma-separated token contract addresses",
        ),
    ] = None,
    currency: Annotated[CurrencyCode, Query()] = "usd",
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        holder = address.lower()
        contracts = _contracts(contractAddresses)
        block, native = block_and_native(conn, chain, holder, blockNumber)
        filters = {
            "chain": chain.chain_id,
            "holder": holder,
            "block": block,
            "spam": filterSpamTokens,
            "contracts": contracts,
            "currency": currency,
        }
        pg = page(st, "erc20-balances", filters, pageToken, pageSize, arity=1)
        items: list[Erc20TokenBalance] = []
        token: str | None = None
        if block is not None:
            rows, token = cut(
                queries.erc20_at(
                    conn, chain.chain_id, holder, block, contracts, pg.after, pg.size + 1
                ),
                pg,
                lambda r: (str(r.token),),
            )
            for r in rows:
                known = r.token_name is not None and r.token_symbol is not None
                # Without a reputation source, "spam" means a token whose ERC-20 metadata could not
                # be read: it cannot be shown truthfully, so the default filter hides it.
                if filterSpamTokens and not (known and r.token_decimals is not None):
                    continue
                decimals = int(r.token_decimals or 0)
                item: dict[str, Any] = {
                    "address": checksum(r.token),
                    "name": r.token_name or "",
                    "symbol": r.token_symbol or "",
                    "decimals": decimals,
                    "ercType": "ERC-20",
                    "chainId": str(chain.chain_id),
                    "balance": str(r.balance),
                    "tokenReputation": None,
                }
                _priced(item, st, chain.chain_id, r.token, int(r.balance), decimals, currency)
                items.append(cast(Erc20TokenBalance, item))
        body: dict[str, Any] = {
            "nativeTokenBalance": native_balance(st, chain, native, currency),
            "erc20TokenBalances": items,
        }
        return JsonResponse(with_token(body, token))


@router.get(
    "/v1/chains/{chainId}/addresses/{address}/balances:listErc721",
    operation_id="listErc721Balances",
    responses={200: {"model": ListErc721BalancesResponse}, **ERROR_RESPONSES},
    response_model=None,
)
@on_store
def list_erc721_balances(
    st: State,
    chain_id: ChainIdPath,
    address: AddressPath,
    pageToken: PageToken = None,
    pageSize: BalancePageSize = 10,
    contractAddress: Annotated[
        str | None,
        Query(pattern=r"^0x[0-9a-fA-F]{40}$", description="Only tokens of this contract"),
    ] = None,
) -> JsonResponse:
    with chain_conn(st, chain_id) as (conn, chain):
        owner = address.lower()
        contract = None if contractAddress is None else contractAddress.lower()
        filters = {"chain": chain.chain_id, "owner": owner, "contract": contract}
        pg = page(st, "erc721-balances", filters, pageToken, pageSize, arity=2)
        owned, native = queries.erc721_owned_and_native(
            conn, chain.chain_id, owner, contract, pg.after, pg.size + 1
        )
        rows, token = cut(owned, pg, lambda r: (str(r.token), str(r.token_id)))
        # The collection list's token, always with its owner (the holder), and the chain.
        items = [
            cast(
                Erc721TokenBalance,
                {
                    **erc721_token(r),
                    "ownerAddress": checksum(r.owner),
                    "chainId": str(chain.chain_id),
                },
            )
            for r in rows
        ]
        body: dict[str, Any] = {
            "nativeTokenBalance": native_balance(st, chain, native, "usd"),
            "erc721TokenBalances": items,
        }
        return JsonResponse(with_token(body, token))
