"""The seed's error body `{message, error, statusCode}` for every failure, and the handlers.

Stage: api. Routes raise `ApiError` (or its helpers `bad_request` / `not_found`); FastAPI's
own validation errors become 400s that name the parameter and its rule (never 422); Starlette's
404/405 get the same shape; anything else is a 500 with no stack trace in the body.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from typing_extensions import TypedDict

from avadata.api.encoding import JsonResponse

log = logging.getLogger(__name__)

# The seed's spelling of each status name; others fall back to the HTTP reason phrase.
_NAMES = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


class ErrorBody(TypedDict):
    message: str
    error: str
    statusCode: int


# The responses every route documents besides its 200 (OpenAPI `responses=`).
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": _NAMES[code]} for code in (400, 401, 404, 429, 500)
}


class ApiError(Exception):
    """An error answered with the seed's body; `headers` e.g. Retry-After on a 429."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


def not_found(message: str) -> ApiError:
    return ApiError(404, message)


def status_name(status: int) -> str:
    if status in _NAMES:
        return _NAMES[status]
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    body: ErrorBody = {"message": message, "error": status_name(status), "statusCode": status}
    return JsonResponse(body, status_code=status, headers=headers)


def _describe(err: dict[str, Any]) -> str:
    """One pydantic error as "<parameter>: <rule>", naming the parameter the client sent."""
    loc: Sequence[Any] = err.get("loc", ())
    where = loc[0] if loc else "request"
    name = ".".join(str(p) for p in loc[1:]) or str(where)
    kind = err.get("type", "")
    ctx: dict[str, Any] = err.get("ctx") or {}
    if kind == "json_invalid":  # its loc is ("body", offset): name the body, not the offset
        return f"body: must be valid JSON ({ctx.get('error', 'decode error')})"
    if kind == "missing":
        rule = f"the {where} parameter is required"
    elif kind in ("int_parsing", "int_from_float", "int_type"):
        rule = "must be an integer"
    elif kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        ops = {
            "greater_than_equal": ">=",
            "less_than_equal": "<=",
            "greater_than": ">",
            "less_than": "<",
        }
        bound = ctx.get("ge", ctx.get("le", ctx.get("gt", ctx.get("lt"))))
        rule = f"must be {ops[kind]} {bound}"
    elif kind in ("bool_parsing", "bool_type"):
        rule = "must be a boolean (true or false)"
    elif kind == "enum" or kind == "literal_error":
        rule = f"must be one of {ctx.get('expected', '')}".rstrip()
    elif kind == "string_pattern_mismatch":
        rule = f"must match {ctx.get('pattern', '')}"
    else:
        rule = str(err.get("msg", "is invalid"))
    return (
        f"{name}: {rule} (got {_shown(err['input'])})"
        if "input" in err and kind != "missing"
        else (f"{name}: {rule}")
    )


def _shown(value: Any) -> str:
    """A rejected value as a message quotes it: a long one is cut, not echoed whole."""
    text = repr(value)
    return text if len(text) <= 120 else text[:120] + "..."


async def _on_validation(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    messages = [_describe(dict(e)) for e in exc.errors()]
    return error_response(400, "; ".join(messages) or "invalid request")


async def _on_api_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.message, exc.headers)


async def _on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        message = f"no route {request.url.path}"
    elif exc.status_code == 405:
        message = f"method {request.method} is not allowed on {request.url.path}"
    else:
        message = str(exc.detail)
    return error_response(exc.status_code, message, dict(exc.headers or {}))


async def _on_any(request: Request, exc: Exception) -> Response:
    # Logged with its traceback for the operator; the client sees only the shape.
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal error")


def drop_unserved(doc: dict[str, Any]) -> None:
    """Take FastAPI's 422 out of the OpenAPI document: no request is ever answered with one
    (a validation error is a 400 in the seed's shape), so no operation may list it."""
    for operations in doc.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).pop("422", None)
    schemas = doc.get("components", {}).get("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(ApiError, _on_api_error)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(Exception, _on_any)
