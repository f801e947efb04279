"""JSON-RPC 2.0 for the facade's avalanchego-style services (index.*, validators.*, platform.*).

Stage: devnet facade. avalanchego serves these through gorilla/rpc (node-rpc.md section 1a):
POST only, `application/json`, params an object (or an array holding that one object),
`service.method` names, `data: null` in every error, HTTP 200 even for errors, and no body for
a notification (no id). We keep those rules and the node's message texts, and add two things
the issue asks for and no client can be hurt by (docs/compatibility.md, "Node facade"):
batches (gorilla rejects them as a parse error) and the standard codes -32601 (method not
found) and -32602 (invalid params) where gorilla answers everything with -32000. Errors a
method returns keep -32000, as on the node.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from avadata.decode.codec.ids import cb58_decode, parse_node_id
from avadata.decode.codec.reader import DecodeError

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
METHOD_ERROR = -32000
# gorilla's fixed text for any params that do not unmarshal into the method's argument struct
BAD_PARAMS_MESSAGE = (
    "couldn't unmarshal an argument. Ensure arguments are valid and properly formatted. "
    "See documentation for example calls"
)

Params = dict[str, Any]
Handler = Callable[[Params], Any] | Callable[[Params], Awaitable[Any]]


class BadParams(Exception):
    """The params do not fit the method (wrong type, missing member): -32602."""


class MethodError(Exception):
    """The method ran and failed, with the node's message text: -32000."""


def _error(code: int, message: str, id_: Any, data: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message, "data": data}, "id": id_}


def _unknown_method(service: str, name: str) -> str:
    # gorilla looks the method up after upper-casing its first letter, and says so.
    return f'rpc: can\'t find method "{service}.{name[:1].upper()}{name[1:]}"'


async def _call_one(call: Any, service: str, methods: Mapping[str, Handler]) -> dict[str, Any]:
    if not isinstance(call, dict):
        return _error(INVALID_REQUEST, "invalid request", None, call)
    id_ = call.get("id")
    if call.get("jsonrpc") != "2.0":
        return _error(INVALID_REQUEST, "jsonrpc must be 2.0", id_, call)
    method = call.get("method")
    if not isinstance(method, str) or "." not in method:
        return _error(METHOD_NOT_FOUND, f'rpc: service/method request ill-formed: "{method}"', id_)
    svc, _, name = method.partition(".")
    if svc != service:
        return _error(METHOD_NOT_FOUND, f'rpc: can\'t find service "{method}"', id_)
    if name[:1].isupper():
        return _error(METHOD_NOT_FOUND, "method must start with a non-uppercase letter", id_)
    handler = methods.get(name)
    if handler is None:
        return _error(METHOD_NOT_FOUND, _unknown_method(service, name), id_)
    params = call.get("params")
    if isinstance(params, list) and len(params) == 1:
        params = params[0]
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return _error(INVALID_PARAMS, BAD_PARAMS_MESSAGE, id_)
    try:
        result = handler(params)
        if inspect.isawaitable(result):
            result = await result
    except BadParams:
        return _error(INVALID_PARAMS, BAD_PARAMS_MESSAGE, id_)
    except MethodError as exc:
        return _error(METHOD_ERROR, str(exc), id_)
    return {"jsonrpc": "2.0", "result": result, "id": id_}


def _is_notification(call: Any) -> bool:
    return isinstance(call, dict) and call.get("id") is None


async def dispatch(request: Request, service: str, methods: Mapping[str, Handler]) -> Response:
    """Answer one HTTP request to an avalanchego-style service named `service`."""
    if request.method != "POST":
        return PlainTextResponse(f"rpc: POST method required, received {request.method}", 405)
    content_type = request.headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        return PlainTextResponse(f"rpc: unrecognized Content-Type: {content_type}", 415)
    body = await request.body()
    try:
        payload = json.loads(body)
    except ValueError as exc:
        return JSONResponse(_error(PARSE_ERROR, f"parse error: {exc}", None))
    if isinstance(payload, list):
        if not payload:
            return JSONResponse(_error(INVALID_REQUEST, "empty batch", None))
        answers = []
        for call in payload:
            answer = await _call_one(call, service, methods)
            if not _is_notification(call):
                answers.append(answer)
        return JSONResponse(answers) if answers else Response(status_code=200)
    answer = await _call_one(payload, service, methods)
    if _is_notification(payload):
        return Response(status_code=200)  # gorilla writes no body for a notification
    return JSONResponse(answer)


# -- params: avalanchego's JSON types ---------------------------------------------------------


def uint64(value: Any) -> int:
    """json.Uint64: a bare number or a decimal string, 0..2^64-1."""
    if isinstance(value, bool):
        raise BadParams
    if isinstance(value, int):
        n = value
    elif isinstance(value, float) and value.is_integer():
        n = int(value)
    elif isinstance(value, str) and value.isdigit() and value.isascii():
        n = int(value)
    else:
        raise BadParams
    if not 0 <= n < 1 << 64:
        raise BadParams
    return n


def cb58_param(value: Any) -> bytes:
    """An ID string (cb58 with its checksum), decoded."""
    if not isinstance(value, str):
        raise BadParams
    try:
        return cb58_decode(value)
    except DecodeError:
        raise BadParams from None


def node_ids_param(value: Any) -> set[bytes] | None:
    """A `nodeIDs` filter: None when absent or empty (no filter)."""
    if value is None or value == []:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadParams
    try:
        return {parse_node_id(v) for v in value}
    except DecodeError:
        raise BadParams from None
