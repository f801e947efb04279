"""Off-chain NFT metadata for the devnet's own contracts, served by the facade.

Stage: devnet facade. Collectible.tokenURI gives http://127.0.0.1:9650/nft/<id>.json for a
third of its ids and MultiToken.uri gives http://127.0.0.1:9650/multi/{id}.json (ERC-1155:
the id as 64 lowercase hex digits). Serving them here makes those URIs resolvable on the
devnet, so a metadata fetcher can be tested end to end. The content is a pure function of the
id, like a static bucket's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


def _token_id(raw: str) -> int | None:
    name = raw.removesuffix(".json")
    try:
        # ERC-1155 clients substitute {id} with 64 hex digits; people type decimals.
        return int(name, 16) if len(name) == 64 else int(name)
    except ValueError:
        return None


def collectible(token_id: int) -> dict[str, Any]:
    return {
        "name": f"Devnet Punks #{token_id}",
        "description": "devnet collectible",
        "image": f"http://127.0.0.1:9650/img/{token_id}.png",
        "attributes": [{"trait_type": "parity", "value": "odd" if token_id % 2 else "even"}],
    }


def multi(token_id: int) -> dict[str, Any]:
    return {
        "name": f"Devnet Multi #{token_id}",
        "description": "devnet ERC-1155 item",
        "image": f"http://127.0.0.1:9650/img/multi-{token_id}.png",
        "decimals": 0,
    }


def _serve(document: Callable[[int], dict[str, Any]]) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        token_id = _token_id(request.path_params["name"])
        if token_id is None:
            return JSONResponse({"error": "not found"}, 404)
        return JSONResponse(document(token_id))

    return endpoint


ROUTES = [
    Route("/nft/{name}", _serve(collectible), methods=["GET"]),
    Route("/multi/{name}", _serve(multi), methods=["GET"]),
]
