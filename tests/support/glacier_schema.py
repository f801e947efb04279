"""Responses checked against the hosted Data API's own JSON Schemas (the reference
glacier.json's components), with a JSON Schema validator (jsonschema-rs, draft 2020-12, the
dialect of OpenAPI 3.1)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema_rs

GLACIER = Path("/work/shared/reference/glacier-openapi/glacier.json")


@functools.cache
def _components() -> dict[str, Any]:
    components: dict[str, Any] = json.loads(GLACIER.read_text())["components"]
    return components


@functools.cache
def _validator(name: str) -> Any:
    schema = {"$ref": f"#/components/schemas/{name}", "components": _components()}
    return jsonschema_rs.Draft202012Validator(schema)


def conforms(body: Any, name: str) -> None:
    """Fails with every violation (where, what) when `body` is not a valid `name`."""
    errors = [f"{list(e.instance_path)}: {e.message}" for e in _validator(name).iter_errors(body)]
    assert not errors, f"not a {name}: " + "; ".join(errors[:10])
