"""Responses checked against the hosted Data API's own JSON Schemas (the reference
glacier.json's components), with a JSON Schema validator (jsonschema-rs, draft 2020-12, the
dialect of OpenAPI 3.1); the 3.0 keyword `nullable` the reference still uses is read as 3.0
meant it."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema_rs

GLACIER = Path("/work/shared/reference/glacier-openapi/glacier.json")


def _nullable(node: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` (which the reference still writes, e.g. an active
    validator's geolocation) as JSON Schema says it: the schema, or null."""
    if isinstance(node, list):
        return [_nullable(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _nullable(v) for k, v in node.items()}
    if out.pop("nullable", False) is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


@functools.cache
def _components() -> dict[str, Any]:
    components: dict[str, Any] = _nullable(json.loads(GLACIER.read_text())["components"])
    return components


@functools.cache
def _validator(name: str) -> Any:
    schema = {"$ref": f"#/components/schemas/{name}", "components": _components()}
    return jsonschema_rs.Draft202012Validator(schema)


def conforms(body: Any, name: str) -> None:
    """Fails with every violation (where, what) when `body` is not a valid `name`."""
    errors = [f"{list(e.instance_path)}: {e.message}" for e in _validator(name).iter_errors(body)]
    assert not errors, f"not a {name}: " + "; ".join(errors[:10])
