"""JSON responses through orjson, always `Content-Type: application/json` (the SDK requires it)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import JSONResponse


# A JSONResponse subclass, so FastAPI documents bodies as JSON objects (not strings).
class JsonResponse(JSONResponse):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)
