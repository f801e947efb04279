"""The EVM routes under test, with one valid set of arguments each (shared by the API tests)."""

from __future__ import annotations

from tests.api.synthetic import ALICE, CHAIN_ID, ERC721, ERC1155

C = f"/v1/chains/{CHAIN_ID}"
A = f"{C}/addresses/{ALICE}"

# (path, list key, paginated by nextPageToken, max pageSize)
LISTS: list[tuple[str, str, int]] = [
    (f"{C}/blocks", "blocks", 100),
    (f"{C}/blocks/7/transactions", "transactions", 100),
    (f"{C}/transactions", "transactions", 100),
    (f"{A}/transactions:listErc20", "transactions", 100),
    (f"{A}/transactions:listErc721", "transactions", 100),
    (f"{A}/transactions:listErc1155", "transactions", 100),
    (f"{A}/transactions:listInternals", "transactions", 100),
    (f"{C}/tokens/{ERC1155}/transfers", "transfers", 100),
    (f"{A}/balances:listErc20", "erc20TokenBalances", 500),
    (f"{A}/balances:listErc721", "erc721TokenBalances", 500),
    (f"{C}/contracts/{ALICE}/deployments", "contracts", 100),
    (f"{C}/nfts/collections/{ERC721}/tokens", "tokens", 100),
    (f"{A}/transactions", "transactions", 100),
    (f"{A}/transactions:listNative", "transactions", 100),
    (f"{A}/balances:listCollectibles", "collectibleBalances", 500),
]

# Routes with an {address} segment: (prefix, suffix) around the address.
ADDRESS_ROUTES: list[tuple[str, str]] = [
    (f"{C}/addresses/", "/transactions:listErc20"),
    (f"{C}/addresses/", "/transactions:listErc721"),
    (f"{C}/addresses/", "/transactions:listErc1155"),
    (f"{C}/addresses/", "/transactions:listInternals"),
    (f"{C}/tokens/", "/transfers"),
    (f"{C}/addresses/", "/balances:listErc20"),
    (f"{C}/addresses/", "/balances:listErc721"),
    (f"{C}/contracts/", "/deployments"),
    (f"{C}/nfts/collections/", "/tokens"),
    (f"{C}/addresses/", "/transactions"),
    (f"{C}/addresses/", "/transactions:listNative"),
    (f"{C}/addresses/", "/balances:getNative"),
    (f"{C}/addresses/", "/balances:listErc1155"),
    (f"{C}/addresses/", "/balances:listCollectibles"),
    (f"{C}/addresses/", ""),
    (f"{C}/contracts/", "/transactions:getDeployment"),
]

SINGLES: list[str] = ["/v1/chains", f"{C}"]
