"""The Index API of the devnet node: /ext/index/{C/block, P/block, X/tx, X/block, X/vtx}.

Stage: devnet facade. Answers the six `index.*` methods from the persisted IndexStore with
avalanchego's rules (seed 002 "Indexer", node-rpc.md section 2): `index` a decimal string,
the first container at index 0, `bytes` 0x-hex with a 4-byte checksum (`hexnc`: without),
timestamps Go's RFC3339Nano in UTC, numToFetch 1..1024, the node's error texts. One place
differs from today's avalanchego and follows the seed: numToFetch 0 is not an error but an
empty answer, `{"containers": null}` (docs/compatibility.md, "Node facade").
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from avadata.decode.codec.ids import cb58_encode, hex_with_checksum
from avadata.devnet.facade.jsonrpc import (
    BadParams,
    Handler,
    MethodError,
    cb58_param,
    dispatch,
    uint64,
)
from avadata.devnet.primary.containers import INDEXES
from avadata.devnet.primary.index_store import IndexStore, StoredContainer

MAX_FETCHED_BY_RANGE = 1024
EMPTY = "no containers have been accepted"
NOT_FOUND = "not found"
ENCODINGS = ("hex", "hexc", "hexnc")


def go_time(ns: int) -> str:
    """Go's time.Time JSON (RFC3339Nano) in UTC: trailing zeros of the fraction removed, no
    fraction at all when it is zero."""
    seconds, frac = divmod(ns, 1_000_000_000)
    text = datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        text += "." + f"{frac:09d}".rstrip("0")
    return text + "Z"


def _encoding(params: dict[str, Any]) -> str:
    value = params.get("encoding")
    if value is None:
        return "hex"
    if not isinstance(value, str):
        raise BadParams
    name = value.lower()
    if name == "json":
        raise MethodError("unsupported encoding in method")
    if name not in ENCODINGS:
        raise BadParams
    return name


def _id(params: dict[str, Any]) -> bytes:
    raw = cb58_param(params.get("id"))
    if len(raw) != 32:
        raise BadParams
    return raw


def container_json(c: StoredContainer, encoding: str) -> dict[str, str]:
    return {
        "id": cb58_encode(c.id),
        "bytes": "0x" + c.bytes.hex() if encoding == "hexnc" else hex_with_checksum(c.bytes),
        "timestamp": go_time(c.accepted_ns),
        "encoding": encoding,
        "index": str(c.index),
    }


def index_methods(store: IndexStore, name: str) -> dict[str, Handler]:
    """The `index` service of one index (`name`, e.g. "P/block")."""

    def get_last_accepted(params: dict[str, Any]) -> dict[str, str]:
        encoding = _encoding(params)
        last = store.last(name)
        if last is None:
            raise MethodError(EMPTY)
        return container_json(last, encoding)

    def get_container_by_index(params: dict[str, Any]) -> dict[str, str]:
        index = uint64(params.get("index"))
        encoding = _encoding(params)
        found = store.by_index(name, index)
        if found is None:
            raise MethodError(f"no container at index {index}")
        return container_json(found, encoding)

    def get_container_by_id(params: dict[str, Any]) -> dict[str, str]:
        container_id = _id(params)
        encoding = _encoding(params)
        found = store.by_id(name, container_id)
        if found is None:
            raise MethodError(NOT_FOUND)
        return container_json(found, encoding)

    def get_container_range(params: dict[str, Any]) -> dict[str, Any]:
        start = uint64(params.get("startIndex"))
        count = uint64(params.get("numToFetch"))
        encoding = _encoding(params)
        if count == 0:
            return {"containers": None}  # seed rule 2 (avalanchego today: an error)
        if count > MAX_FETCHED_BY_RANGE:
            raise MethodError(f"numToFetch must be in [1,{MAX_FETCHED_BY_RANGE}] but is {count}")
        last = store.last(name)
        if last is None:
            raise MethodError(EMPTY)
        if start > last.index:
            raise MethodError(f"start index ({start}) > last accepted index ({last.index})")
        rows = store.range(name, start, count)
        return {"containers": [container_json(c, encoding) for c in rows]}

    def get_index(params: dict[str, Any]) -> dict[str, str]:
        container_id = _id(params)
        _encoding(params)  # accepted and ignored, as on the node
        found = store.by_id(name, container_id)
        if found is None:
            raise MethodError(NOT_FOUND)
        return {"index": str(found.index)}

    def is_accepted(params: dict[str, Any]) -> dict[str, bool]:
        container_id = _id(params)
        _encoding(params)
        return {"isAccepted": store.by_id(name, container_id) is not None}

    return {
        "getLastAccepted": get_last_accepted,
        "getContainerByIndex": get_container_by_index,
        "getContainerByID": get_container_by_id,
        "getContainerRange": get_container_range,
        "getIndex": get_index,
        "isAccepted": is_accepted,
    }


def index_routes(store: Callable[[], IndexStore | None]) -> list[Route]:
    """Routes for every index. `store()` is None while indexing is off: then, as on a node run
    without --index-enabled, the Index API does not exist (404)."""

    def endpoint(name: str) -> Callable[[Request], Any]:
        async def serve(request: Request) -> Response:
            current = store()
            if current is None:
                return PlainTextResponse("404 page not found", 404)
            return await dispatch(request, "index", index_methods(current, name))

        return serve

    return [
        Route(f"/ext/index/{name}", endpoint(name), methods=["GET", "POST", "PUT", "DELETE"])
        for name in INDEXES
    ]
