"""The node facade: one port that looks like an avalanchego node's HTTP API.

Stage: devnet facade. A router only: POST /ext/bc/<chain>/rpc is forwarded byte for byte to
that chain's anvil (parsed only when the chain has local methods to answer), and
GET /ext/health reports whether every upstream answers; GET /ext/bc/<chain>/ws hands a
WebSocket handshake on to that chain's anvil (`ws`); GET /nft/... and /multi/... serve
the off-chain metadata the devnet's NFT contracts point to (metadata.py). The Index API
(/ext/index/..., index_api.py) and the P-chain views come in as `extra_routes`.

Errors: an unknown chain is a 404 (as avalanchego answers); an upstream that does not answer
is a 502 with a JSON-RPC error body, so JSON-RPC clients see an error, not a hang.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from avadata.devnet.facade import metadata
from avadata.devnet.facade.routes import ChainRoute, ChainTable, RpcFault

UPSTREAM_TIMEOUT = 120.0  # a 2,000-block batch of receipts can take a while on anvil


HEALTH_METHODS = ("health.health", "health.readiness", "health.liveness")


def _id(call: Any) -> Any:
    return call.get("id") if isinstance(call, dict) else None


def _error(code: int, message: str, id_: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}}


def create_app(chains: Sequence[ChainRoute], extra_routes: Sequence[BaseRoute] = ()) -> Starlette:
    """The facade for `chains`, plus `extra_routes` (the Index API, validators, platform API).
    Raises ValueError when two chains share a name or alias."""
    table = ChainTable(chains)
    state: dict[str, httpx.AsyncClient] = {}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # One pooled client for all upstreams: keep-alive matters for batch-heavy indexers.
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
        async with httpx.AsyncClient(timeout=UPSTREAM_TIMEOUT, limits=limits) as client:
            state["client"] = client
            yield

    async def forward(chain: ChainRoute, body: bytes) -> Response:
        try:
            upstream = await state["client"].post(
                chain.upstream, content=body, headers={"content-type": "application/json"}
            )
        except httpx.HTTPError as exc:
            return JSONResponse(_error(-32603, f"upstream {chain.name}: {exc!r}"), 502)
        return Response(
            upstream.content,
            status_code=upstream.status_code,
            media_type="application/json",
        )

    async def rpc(request: Request) -> Response:
        chain = table.find(request.path_params["chain"])
        if chain is None:
            return JSONResponse(_error(-32601, "no such chain on this node"), 404)
        body = await request.body()
        # Parsed only when it names a local method: an indexer's large batches (blocks,
        # receipts) go through byte for byte, as they did before the chain had local methods.
        if not any(name.encode() in body for name in chain.local_methods):
            return await forward(chain, body)
        return await _with_local_methods(chain, body, forward)

    async def health_report() -> dict[str, Any]:
        checks = await asyncio.gather(*(_check(state["client"], c) for c in table.chains))
        named = zip(table.chains, checks, strict=True)
        return {
            "healthy": all("error" not in c for c in checks),
            "checks": {c.name: r for c, r in named},
        }

    async def health(request: Request) -> Response:
        report = await health_report()
        if request.method == "GET":
            return JSONResponse(report, 200 if report["healthy"] else 503)
        # avalanchego's JSON-RPC form: health.health / health.readiness / health.liveness.
        try:
            call = json.loads(await request.body())
        except ValueError:
            return JSONResponse(_error(-32700, "parse error"))
        if not isinstance(call, dict) or call.get("method") not in HEALTH_METHODS:
            return JSONResponse(_error(-32601, "method not found", _id(call)))
        return JSONResponse({"jsonrpc": "2.0", "id": call.get("id"), "result": report})

    async def chains_index(request: Request) -> Response:
        """Which chains this facade serves: handy for humans and for `avadata up`."""
        return JSONResponse(
            [
                {
                    "name": c.name,
                    "chainId": c.chain_id,
                    "aliases": c.keys(),
                    "rpc": str(request.url_for("rpc", chain=c.name)),
                }
                for c in table.chains
            ]
        )

    async def ws(request: Request) -> Response:
        """avalanchego's `/ext/bc/<chain>/ws` (eth_subscribe): a 307 to the chain's anvil,
        which serves WebSocket on its HTTP port. This server has no WebSocket library, so it
        hands the handshake on: a client that follows redirects (aiohttp's, the indexer's
        sources/heads.py) subscribes to new heads there; one that does not polls as before."""
        chain = table.find(request.path_params["chain"])
        if chain is None:
            return JSONResponse(_error(-32601, "no such chain on this node"), 404)
        return RedirectResponse(chain.upstream, status_code=307)

    routes = [
        Route("/ext/bc/{chain}/rpc", rpc, methods=["POST"], name="rpc"),
        Route("/ext/bc/{chain}/ws", ws, methods=["GET"]),
        Route("/ext/health", health, methods=["GET", "POST"]),
        Route("/ext/health/liveness", health, methods=["GET", "POST"]),
        Route("/ext/health/readiness", health, methods=["GET", "POST"]),
        Route("/ext/devnet/chains", chains_index, methods=["GET"]),
        *metadata.ROUTES,
        *extra_routes,
    ]
    return Starlette(routes=routes, lifespan=lifespan)


async def _check(client: httpx.AsyncClient, chain: ChainRoute) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []}
    try:
        answer = (await client.post(chain.upstream, json=body, timeout=5.0)).json()
        return {"message": {"chainId": chain.chain_id, "height": int(answer["result"], 16)}}
    except (httpx.HTTPError, KeyError, ValueError) as exc:
        return {"error": repr(exc)}


Forward = Callable[[ChainRoute, bytes], Awaitable[Response]]


async def _with_local_methods(chain: ChainRoute, body: bytes, forward: Forward) -> Response:
    """Answer the chain's local methods here and forward the rest, keeping batch order."""
    try:
        payload = json.loads(body)
    except ValueError:
        return JSONResponse(_error(-32700, "parse error"), 200)
    batch = isinstance(payload, list)
    requests = payload if batch else [payload]
    answers: list[Any] = [None] * len(requests)
    remote: list[int] = []
    for i, req in enumerate(requests):
        method = req.get("method") if isinstance(req, dict) else None
        handler = chain.local_methods.get(method) if isinstance(method, str) else None
        if handler is None:
            remote.append(i)
            continue
        try:
            result = await handler(req.get("params"))
            answers[i] = {"jsonrpc": "2.0", "id": req.get("id"), "result": result}
        except RpcFault as fault:
            error = {"code": fault.code, "message": fault.message}
            if fault.data is not None:
                error["data"] = fault.data
            answers[i] = {"jsonrpc": "2.0", "id": req.get("id"), "error": error}
    if remote:
        forwarded = [requests[i] for i in remote]
        response = await forward(chain, json.dumps(forwarded if batch else forwarded[0]).encode())
        if response.status_code != 200:
            return response
        upstream = json.loads(bytes(response.body))
        for i, answer in zip(remote, upstream if batch else [upstream], strict=True):
            answers[i] = answer
    return JSONResponse(answers if batch else answers[0])
