"""FastRoute: an APIRoute that reads a well-formed request's parameters itself and leaves
every other request to FastAPI.

Stage: api. FastAPI validates each query and path parameter through pydantic and resolves the
dependency tree on every request: about 0.1 ms, a third of what a list page costs in all. The
EVM routes take only plain parameters (str with an optional pattern, int with bounds, bool, a
Literal of strings, each optional or not) and one dependency (`deps.state`), so each route's
parameters compile once into plain converters. A request whose every value is one those
converters accept exactly as pydantic would (an in-range decimal int, `true`/`false`, a
pattern's full match, a listed literal) calls the endpoint directly; any other request (a
missing required value, an empty or out-of-range value, another spelling pydantic may or may
not accept) goes through FastAPI's own handler unchanged, so 400 bodies stay FastAPI's
validation errors as `errors.py` words them. The OpenAPI document is FastAPI's: the route keeps
its dependant, only the request handler differs.

A route whose parameters fall outside that set is refused when it is declared (TypeError), so
the fast path can never skip a rule FastAPI would have applied.
"""

from __future__ import annotations

import inspect
import re
import types
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Le
from fastapi import params
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

from avadata.api import deps

# A converter's answer when the value is not one it vouches for: FastAPI decides instead.
_DEFER: Any = object()
# An int FastAPI's bounds can be checked on without pydantic: plain decimal digits, no sign,
# no underscores, no whitespace, short enough to be exact.
_DECIMAL = re.compile(r"[0-9]{1,18}")
_BOOLS = {"true": True, "false": False}

Converter = Callable[[str], Any]


def _int(metadata: list[Any]) -> Converter:
    low: int | None = None
    high: int | None = None
    for m in metadata:
        if isinstance(m, Ge) and isinstance(m.ge, int):
            low = m.ge
        elif isinstance(m, Le) and isinstance(m.le, int):
            high = m.le
        else:
            raise TypeError(f"int parameter constraint {m!r} has no fast form")

    def convert(raw: str) -> Any:
        if _DECIMAL.fullmatch(raw) is None:
            return _DEFER
        value = int(raw)
        if (low is not None and value < low) or (high is not None and value > high):
            return _DEFER
        return value

    return convert


def _str(metadata: list[Any]) -> Converter:
    patterns = [getattr(m, "pattern", None) for m in metadata]
    if len(metadata) > 1 or None in patterns:
        raise TypeError(f"str parameter constraints {metadata!r} have no fast form")
    if not patterns:
        return lambda raw: raw
    # fullmatch: Python's `$` also matches before a final newline, pydantic's does not.
    pattern = re.compile(str(patterns[0]))
    return lambda raw: raw if pattern.fullmatch(raw) is not None else _DEFER


def _converter(annotation: Any, metadata: list[Any]) -> Converter:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        rest = [a for a in get_args(annotation) if a is not type(None)]
        if len(rest) != 1:
            raise TypeError(f"parameter type {annotation!r} has no fast form")
        annotation, origin = rest[0], get_origin(rest[0])
    if annotation is bool and not metadata:
        return lambda raw: _BOOLS.get(raw, _DEFER)
    if annotation is int:
        return _int(metadata)
    if annotation is str:
        return _str(metadata)
    if origin is Literal and not metadata and all(isinstance(a, str) for a in get_args(annotation)):
        allowed = frozenset(get_args(annotation))
        return lambda raw: raw if raw in allowed else _DEFER
    raise TypeError(f"parameter type {annotation!r} has no fast form")


@dataclass(frozen=True, slots=True)
class _Param:
    name: str
    alias: str
    in_path: bool
    required: bool
    default: Any
    convert: Converter


@dataclass(frozen=True, slots=True)
class _Plan:
    """How to read one route's parameters; `state_name` receives the app's AppState."""

    params: tuple[_Param, ...]
    state_name: str | None

    def values(self, request: Request) -> dict[str, Any] | None:
        """The endpoint's keyword arguments, or None when FastAPI must decide."""
        out: dict[str, Any] = {}
        if self.state_name is not None:
            out[self.state_name] = request.app.state.avadata
        path = request.path_params
        query = request.query_params
        for p in self.params:
            raw = path.get(p.alias) if p.in_path else query.get(p.alias)
            if raw is None:
                if p.required:
                    return None
                out[p.name] = p.default
                continue
            if raw == "":
                return None
            value = p.convert(raw)
            if value is _DEFER:
                return None
            out[p.name] = value
        return out


def _plan(dependant: Dependant) -> _Plan:
    if (
        dependant.header_params
        or dependant.cookie_params
        or dependant.body_params
        or dependant.request_param_name
        or dependant.websocket_param_name
        or dependant.http_connection_param_name
        or dependant.response_param_name
        or dependant.background_tasks_param_name
        or dependant.security_scopes_param_name
    ):
        raise TypeError(f"{dependant.call!r}: only path and query parameters have a fast form")
    state_name = None
    for sub in dependant.dependencies:
        if sub.call is not deps.state or sub.name is None:
            raise TypeError(f"{dependant.call!r}: dependency {sub.call!r} has no fast form")
        state_name = sub.name
    found: list[_Param] = []
    for fields, in_path in ((dependant.path_params, True), (dependant.query_params, False)):
        for field in fields:
            info = field.field_info
            if (
                not isinstance(info, params.Path | params.Query)
                or info.default_factory
                or info.validation_alias not in (None, field.alias)
            ):
                raise TypeError(f"{dependant.call!r}: parameter {field.name} has no fast form")
            found.append(
                _Param(
                    name=field.name,
                    alias=field.alias,
                    in_path=in_path,
                    required=info.is_required(),
                    default=info.default,
                    convert=_converter(info.annotation, list(info.metadata)),
                )
            )
    return _Plan(params=tuple(found), state_name=state_name)


class FastRoute(APIRoute):
    """An APIRoute whose well-formed requests skip FastAPI's parameter validation (see the
    module's docstring). The endpoint must be async and return a Response."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        slow = super().get_route_handler()
        plan = _plan(self.dependant)
        call = self.dependant.call
        if call is None or not inspect.iscoroutinefunction(call):
            raise TypeError(f"{self.path}: a FastRoute endpoint must be async")

        async def handler(request: Request) -> Response:
            values = plan.values(request)
            if values is None:
                return await slow(request)
            response = await call(**values)
            if not isinstance(response, Response):
                raise TypeError(f"{self.path}: a FastRoute endpoint must return a Response")
            return response

        return handler
