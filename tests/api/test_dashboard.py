"""The dashboard's files as the app serves them (the page itself: tests/dashboard/)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from avadata.api.dashboard.routes import STATIC
from avadata.metrics.catalog import METRICS


def test_the_page_is_at_the_root_and_its_files_under_dashboard(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/html; charset=utf-8"
    assert 'src="/dashboard/app.js"' in r.text
    js = client.get("/dashboard/views/overview.js")
    assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
    css = client.get("/dashboard/style.css")
    assert css.headers["content-type"].startswith("text/css")


def test_every_module_the_page_imports_is_served(client: TestClient) -> None:
    for path in STATIC.rglob("*.js"):
        for target in re.findall(r'from "(\.[^"]+)"', path.read_text()):
            resolved = (path.parent / target).resolve().relative_to(STATIC.resolve())
            assert client.get(f"/dashboard/{resolved.as_posix()}").status_code == 200, target


def test_nothing_is_fetched_from_elsewhere() -> None:
    for path in STATIC.rglob("*"):
        if path.is_file():
            assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", path.read_text()), path


def test_the_pages_metric_list_is_the_catalog() -> None:
    text = (STATIC / "views" / "metrics.js").read_text()
    listed = dict(re.findall(r"^  (\w+): \[\"[^\"]+\", (ALL|DAY_ONLY)\],$", text, re.M))
    assert set(listed) == set(METRICS)
    for m in METRICS.values():
        day_only = [i.value for i in m.intervals] == ["day"]
        assert (listed[m.name.value] == "DAY_ONLY") == day_only, m.name
