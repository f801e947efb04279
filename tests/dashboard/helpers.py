"""Reading what the page drew, and the API's own answers to compare it with."""

from __future__ import annotations

import re
from typing import Any

from tests.dashboard.conftest import Site

BARS = """els => els.map(e => ({t: +e.dataset.t, v: +e.dataset.v,
    h: +e.getAttribute('height')}))"""


def chart(locator: Any) -> dict[str, Any]:
    """A drawn chart: its bars (value, bucket, height) and its scale."""
    svg = locator.first
    return {
        "bars": svg.locator("rect.bar").evaluate_all(BARS),
        "max": float(svg.get_attribute("data-max")),
        "plot": float(svg.get_attribute("data-plot-height")),
    }


def assert_heights_follow_values(drawn: dict[str, Any]) -> None:
    """Each bar's height is its value over the chart's maximum, of the plot's height."""
    top = max([b["v"] for b in drawn["bars"]] + [0]) or 1
    assert drawn["max"] == top
    for b in drawn["bars"]:
        assert abs(b["h"] - b["v"] / top * drawn["plot"]) < 0.01, b


def series(site: Site, chain: str, metric: str, interval: str, start: int, end: int) -> list:
    """Every point of the Metrics API's answer, oldest first, every page followed."""
    points: list[tuple[int, float]] = []
    token = None
    while True:
        params: dict[str, Any] = {
            "timeInterval": interval,
            "startTimestamp": start,
            "endTimestamp": end,
            "pageSize": 500,
        }
        if token:
            params["pageToken"] = token
        page = site.get(f"/v2/chains/{chain}/metrics/{metric}", **params)
        points += [(r["timestamp"], float(r["value"])) for r in page["results"]]
        token = page.get("nextPageToken")
        if not token:
            return sorted(points)


def digits(text: str) -> int:
    return int(re.sub(r"[^0-9]", "", text))


def luminance(rgb: str) -> float:
    channels = [int(x) / 255 for x in re.findall(r"\d+", rgb)[:3]]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(fg: str, bg: str) -> float:
    a, b = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)
