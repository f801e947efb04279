"""GET / and GET /dashboard/{file}: the dashboard's own files, nothing else.

Stage: api. The page is static HTML, CSS and JavaScript modules (`static/`) that call the
JSON API from the browser, so this module reads no store and builds no data. The files are
read once, when the app is made: a request only picks bytes from a dict, so a path outside
`static/` cannot be asked for (there is no file system lookup per request).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import Response

from avadata.api.errors import not_found

STATIC = Path(__file__).parent / "static"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
# The page is small and served from loopback: revalidating costs nothing and an upgraded
# server never shows a stale page.
_HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


def _load() -> dict[str, tuple[bytes, str]]:
    """Every served file by its path under static/, with its content type."""
    files: dict[str, tuple[bytes, str]] = {}
    for path in sorted(STATIC.rglob("*")):
        kind = _TYPES.get(path.suffix)
        if path.is_file() and kind is not None:
            files[path.relative_to(STATIC).as_posix()] = (path.read_bytes(), kind)
    return files


def make_router() -> APIRouter:
    """The page's routes, over the files as they are now (tests may edit nothing between)."""
    files = _load()
    router = APIRouter(include_in_schema=False)

    def _serve(name: str) -> Response:
        found = files.get(name)
        if found is None:
            raise not_found(f"no dashboard file {name!r}")
        body, kind = found
        return Response(body, media_type=kind, headers=_HEADERS)

    @router.get("/")
    async def index() -> Response:
        return _serve("index.html")

    @router.get("/dashboard/{name:path}")
    async def asset(name: str) -> Response:
        return _serve(name)

    return router
