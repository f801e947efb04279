"""The hosted service's OpenAPI document (glacier.json) as an independent judge of our bodies:
the 200 schema of an operation, its component $refs resolved by a JSON Schema validator
(jsonschema_rs, draft 2020-12, as OpenAPI 3.1 specifies).

`strict` also closes every object schema that lists its properties (no member the reference
does not name), so "shaped exactly as the reference" is checked, not only "parses".

One defect of the document is mended: a nullable enum (`"type": ["string", "null"]` with an
`enum` that lacks null, e.g. tokenReputation, whose description says "null if the reputation
is unknown") lets null through, as its type and the SDK's zod schema do.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from pathlib import Path
from typing import Any

import jsonschema_rs

_RELATIVE = Path("shared/reference/glacier-openapi/glacier.json")


@functools.cache
def document() -> dict[str, Any]:
    """glacier.json: $AVADATA_GLACIER_OPENAPI, else shared/ beside the checkout or above it
    (CI lays shared/ beside the clone)."""
    named = os.environ.get("AVADATA_GLACIER_OPENAPI")
    candidates = [Path(named)] if named else []
    candidates += [p / _RELATIVE for p in Path(__file__).resolve().parents]
    for path in candidates:
        if path.is_file():
            return dict(json.loads(path.read_text()))
    raise FileNotFoundError(f"glacier.json not found (tried {_RELATIVE} above the tests)")


def _closed(node: Any, *, names: bool = False) -> Any:
    """`node` with every object schema that lists properties closed; `names`: `node` is a
    properties map (its keys are member names, not keywords)."""
    if isinstance(node, list):
        return [_closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {k: _closed(v) for k, v in node.items()}
    out = {k: _closed(v, names=k in ("properties", "schemas")) for k, v in node.items()}
    if isinstance(out.get("properties"), dict) and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _mended(node: Any) -> Any:
    """`node` with every nullable enum admitting null (see the module's docstring)."""
    if isinstance(node, list):
        return [_mended(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _mended(v) for k, v in node.items()}
    kinds = out.get("type")
    if isinstance(kinds, list) and "null" in kinds and isinstance(out.get("enum"), list):
        if None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out


@functools.cache
def _validator(path: str, method: str, status: str, strict: bool) -> Any:
    doc = document()
    op = doc["paths"][path][method]
    schema = op["responses"][status]["content"]["application/json"]["schema"]
    components = _mended(copy.deepcopy(doc["components"]))
    if strict:
        components = _closed(components)
        schema = _closed(schema)
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    root["components"] = components
    return jsonschema_rs.validator_for(root)


def check(body: Any, path: str, *, method: str = "get", status: str = "200", strict: bool = True):
    """Raise AssertionError naming every way `body` breaks the reference's schema of the
    operation at `path` (the reference's template, e.g. /v1/chains/{chainId}/blocks/{blockId})."""
    errors = [
        f"{'/'.join(map(str, e.instance_path))}: {e.message}"
        for e in _validator(path, method, status, strict).iter_errors(body)
    ]
    assert not errors, f"{path}: " + "; ".join(errors[:5])
