"""The success bodies of the primary-network, webhooks and operations routes in the OpenAPI
document.

Stage: api. The bodies are described by the hosted Data API's own schemas:
`glacier_schemas.json` holds the components of the reference `glacier.json` that these
responses use, copied as published but for one enum: ValidatorActivitySubEvents adds the two
sub-events avadata serves beyond the spec's (docs/compatibility.md, "Webhooks, second part").
Where the reference answers a `oneOf` of list shapes (transactions, UTXOs) the document says
`anyOf`: the SDK takes the first shape that parses, and an X-chain page, a superset of the
P-chain shape, is valid as both (the webhook shapes' `oneOf` is told apart by `eventType`, so
`anyOf` says the same of them).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

SCHEMAS = Path(__file__).with_name("glacier_schemas.json")


@functools.cache
def _schemas() -> dict[str, Any]:
    schemas: dict[str, Any] = json.loads(SCHEMAS.read_text())
    return schemas


def ok(*names: str, status: int = 200) -> dict[int | str, dict[str, Any]]:
    """`responses=` entry of a route whose `status` body is one of these reference schemas."""
    refs = [{"$ref": f"#/components/schemas/{n}"} for n in names]
    schema = refs[0] if len(refs) == 1 else {"anyOf": refs}
    body = {"application/json": {"schema": schema}}
    return {status: {"description": "Successful response", "content": body}}


def add_components(doc: dict[str, Any]) -> None:
    """Put the reference schemas the primary routes name into the document's components; a
    name the document already uses for another schema would make those routes lie."""
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in _schemas().items():
        if schemas.setdefault(name, schema) != schema:
            raise ValueError(f"OpenAPI component {name!r} is both ours and the reference's")
