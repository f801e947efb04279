"""The dashboard in Debian's Chromium against a real `avadata serve` on the indexed devnet:
what a person sees, checked against the API's own answers."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.dashboard.conftest import Site
from tests.dashboard.helpers import assert_heights_follow_values, chart, contrast, digits, series

pytestmark = pytest.mark.e2e

HOUR = 3600
PRIMARY_NAMES = ["P-Chain", "X-Chain", "C-Chain (atomic)"]


def settled(tab) -> None:
    """Wait until the view and every cell it fills later are rendered."""
    tab.wait_for_function(
        "() => window.__avadata && window.__avadata.hash === location.hash"
        " && !document.querySelector('main[aria-busy]')"
        " && ![...document.querySelectorAll('main td span, main td div')]"
        "      .some(e => e.textContent === '…')",
        timeout=30000,
    )


def test_overview_lists_every_chain_with_the_apis_figures(site: Site, page, shoot) -> None:
    tab, _ = page
    tab.goto(site.url + "/")
    settled(tab)
    chains = site.get("/v1/chains")["chains"]
    rows = tab.locator("main table tbody tr")
    assert rows.count() == len(chains) + 3
    names = [rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())]
    assert names == [c["chainName"] for c in chains] + PRIMARY_NAMES
    for i, c in enumerate(chains):
        row = rows.nth(i)
        cells = row.locator("td")
        newest = site.get(f"/v1/chains/{c['chainId']}/blocks", pageSize=1)["blocks"][0]
        assert digits(cells.nth(3).inner_text()) == int(newest["blockNumber"])
        drawn = chart(row.locator("svg.chart"))
        ts = [b["t"] for b in drawn["bars"]]
        truth = series(site, c["chainId"], "txCount", "hour", min(ts), max(ts))
        assert [(b["t"], b["v"]) for b in drawn["bars"]] == truth
        assert_heights_follow_values(drawn)
        first_hour = int(time.time()) // HOUR * HOUR - 23 * HOUR
        assert digits(cells.nth(5).inner_text()) == sum(v for t, v in truth if t >= first_hour)
    for i, key in enumerate(["p-chain", "x-chain", "c-chain"]):
        row = rows.nth(len(chains) + i)
        newest = site.get(f"/v1/networks/fuji/blockchains/{key}/transactions", pageSize=50)
        height = int(newest["transactions"][0]["blockNumber"])
        assert digits(row.locator("td").nth(3).inner_text()) == height
        # The chart: the newest 50 transactions counted per day, as the test counts them.
        drawn = chart(row.locator("svg.chart"))
        days = [t["blockTimestamp"] // 86400 * 86400 for t in newest["transactions"]]
        assert [b["v"] for b in drawn["bars"]] == [days.count(b["t"]) for b in drawn["bars"]]
        assert len(drawn["bars"]) == 7 and sum(b["v"] for b in drawn["bars"]) <= 50
        assert_heights_follow_values(drawn)
    shoot(tab, "overview-1280")
    tab.set_viewport_size({"width": 390, "height": 844})
    tab.reload()
    settled(tab)
    # Nothing wider than the phone: wide tables scroll inside their own region.
    assert tab.evaluate("document.documentElement.scrollWidth") <= 390
    shoot(tab, "overview-390")


CASES = [
    ("txCount", "43113", "day"),
    ("activeAddresses", "total", "week"),
    ("gasUsed", "99901", "hour"),
    ("cumulativeTxCount", "testnet", "day"),
    ("avgTps", "99902", "day"),
    ("activeSenders", "43113", "month"),
]


@pytest.mark.parametrize(("metric", "chain", "interval"), CASES)
def test_metrics_chart_is_the_apis_answer(site: Site, page, shoot, metric, chain, interval) -> None:
    tab, _ = page
    today = datetime.now(UTC).date()
    days = 3 if interval == "hour" else 60
    start = (today - timedelta(days=days)).isoformat()
    tab.goto(
        f"{site.url}/#/metrics?metric={metric}&chain={chain}&interval={interval}"
        f"&from={start}&to={today.isoformat()}"
    )
    settled(tab)
    drawn = chart(tab.locator("main svg.chart"))
    since = int(datetime.fromisoformat(start).replace(tzinfo=UTC).timestamp())
    truth = series(site, chain, metric, interval, since, since + (days + 1) * 86400 - 1)
    assert truth, "the devnet has data in the range"
    drawn_points = [(b["t"], b["v"]) for b in drawn["bars"]]
    assert [t for t, _ in drawn_points] == [t for t, _ in truth]
    assert all(
        math.isclose(a, b, rel_tol=1e-12)
        for (_, a), (_, b) in zip(drawn_points, truth, strict=True)
    )
    assert_heights_follow_values(drawn)
    assert tab.locator("main select[name=metric]").input_value() == metric
    assert tab.locator("main select[name=interval]").input_value() == interval
    shoot(tab, f"metrics-{metric}-{chain}-{interval}")


def test_day_only_metrics_offer_only_the_day(site: Site, page) -> None:
    tab, _ = page
    tab.goto(f"{site.url}/#/metrics?metric=feesPaid&chain=43113")
    settled(tab)
    enabled = tab.locator("main select[name=interval] option").evaluate_all(
        "els => els.filter(e => !e.disabled).map(e => e.value)"
    )
    assert enabled == ["day"]
    # Choosing another metric redraws from the API (the select's change event).
    tab.locator("main select[name=metric]").select_option("txCount")
    tab.wait_for_function("() => location.hash.includes('metric=txCount')")
    settled(tab)
    assert tab.locator("main h2").first.inner_text().startswith("Transactions per day")


def _search(tab, text: str) -> None:
    box = tab.locator("#q")
    box.fill(text)
    box.press("Enter")


def test_search_lands_on_the_transaction_and_links_onwards(site: Site, page, shoot) -> None:
    tab, _ = page
    tab.goto(site.url + "/")
    settled(tab)
    # An older transaction of an L1, so the page has to look past the newest page.
    pages = site.get("/v1/chains/99901/transactions", pageSize=100)
    pages = site.get(
        "/v1/chains/99901/transactions", pageSize=100, pageToken=pages["nextPageToken"]
    )
    tx = pages["transactions"][57]
    _search(tab, tx["txHash"])
    tab.wait_for_selector("[data-field=txHash]")
    settled(tab)
    assert tab.locator("[data-field=txHash]").inner_text() == tx["txHash"]
    assert "Transaction" in tab.locator("main h1").inner_text()
    fields = tab.locator("main dl.fields")
    assert str(int(tx["blockNumber"])) in fields.inner_text().replace(",", "")
    shoot(tab, "transaction")
    # The sender links to its address view, which shows its balances per chain.
    tab.locator(f"main dd a[title='{tx['from']['address']}']").click()
    tab.wait_for_function("() => location.hash.startsWith('#/address/')")
    settled(tab)
    assert tx["from"]["address"] in tab.locator("main").inner_text()
    assert tab.locator("main h2").count() == len(site.get("/v1/chains")["chains"])
    shoot(tab, "address")
    # Back to the block through the browser's history, then to the block.
    tab.go_back()
    settled(tab)
    tab.locator("main dd a[href^='#/block/']").click()
    settled(tab)
    assert tab.locator("main h1").inner_text().replace(",", "") == f"Block {int(tx['blockNumber'])}"
    assert tab.locator(f"main a[title='{tx['txHash']}']").count() == 1


def test_search_by_block_number_shows_each_chains_block(site: Site, page) -> None:
    tab, _ = page
    tab.goto(site.url + "/")
    _search(tab, "42")
    tab.wait_for_function("() => location.hash.startsWith('#/block/42')")
    settled(tab)
    for c in site.get("/v1/chains")["chains"]:
        txs = site.get(f"/v1/chains/{c['chainId']}/blocks/42/transactions", pageSize=0)
        section = tab.locator("main h2", has_text=f"({c['chainId']})")
        assert section.count() == 1
        for t in txs["transactions"]:
            assert tab.locator(f"main a[title='{t['txHash']}']").count() == 1


def test_search_by_node_id_and_primary_tx(site: Site, page, shoot) -> None:
    tab, _ = page
    tab.goto(site.url + "/")
    p_txs = site.get("/v1/networks/fuji/blockchains/p-chain/transactions", pageSize=100)
    staking = next(t for t in p_txs["transactions"] if t.get("nodeId"))
    _search(tab, staking["nodeId"])
    tab.wait_for_function("() => location.hash.startsWith('#/node/')")
    settled(tab)
    periods = site.get(f"/v1/networks/fuji/validators/{staking['nodeId']}", pageSize=100)
    assert tab.locator("main h2").count() == len(periods["validators"]) > 0
    shoot(tab, "node")
    x_tx = site.get("/v1/networks/fuji/blockchains/x-chain/transactions", pageSize=5)
    wanted = x_tx["transactions"][-1]
    _search(tab, wanted["txHash"])
    tab.wait_for_selector("[data-field=txHash]")
    settled(tab)
    assert tab.locator("[data-field=txHash]").inner_text() == wanted["txHash"]
    assert tab.locator("main h1").inner_text() == "X-Chain transaction"
    assert wanted["txType"] in tab.locator("main dl.fields").first.inner_text()


def test_primary_network_view(site: Site, page, shoot) -> None:
    tab, _ = page
    tab.goto(site.url + "/#/primary")
    settled(tab)
    text = tab.locator("main").inner_text()
    assert "Current validators (" in text and "L1 validators (" in text
    validators = tab.locator("main div[aria-label='Current validators'] tbody tr")
    assert validators.count() > 0
    details = set()
    for t in site.get("/v1/networks/fuji/blockchains/p-chain/transactions", pageSize=100)[
        "transactions"
    ]:
        details |= {d["validationId"] for d in t.get("l1ValidatorDetails", [])}
    l1_rows = tab.locator("main div[aria-label='L1 validators'] tbody tr")
    assert l1_rows.count() >= len(details) > 0
    for key, name in [("x-chain", "X-Chain"), ("c-chain", "C-Chain (atomic)")]:
        newest = site.get(f"/v1/networks/fuji/blockchains/{key}/transactions", pageSize=10)
        region = tab.locator(f"main div[aria-label='{name} transactions']")
        for t in newest["transactions"]:
            assert region.locator(f"a[title='{t['txHash']}']").count() == 1
    shoot(tab, "primary")


def test_keyboard_reaches_everything(site: Site, page) -> None:
    tab, _ = page
    tab.goto(site.url + "/")
    settled(tab)
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.textContent") == "Skip to content"
    order = []
    for _ in range(7):
        tab.keyboard.press("Tab")
        order.append(
            tab.evaluate("document.activeElement.textContent || document.activeElement.id")
        )
    assert order[:6] == ["avadata", "Overview", "Metrics", "Primary network", "q", "Search"]
    # Back to the Metrics link and follow it with Enter.
    for _ in range(4):
        tab.keyboard.press("Shift+Tab")
    assert tab.evaluate("document.activeElement.textContent") == "Metrics"
    tab.keyboard.press("Enter")
    settled(tab)
    assert tab.locator("main h1").inner_text() == "Metrics"
    # The focus moved to the content, so the next Tab enters the metric picker.
    tab.keyboard.press("Tab")
    assert tab.evaluate("document.activeElement.name") == "metric"
    # Arrowing through the metrics redraws the chart and leaves the focus on the picker.
    first = tab.locator("main select[name=metric]").input_value()
    tab.keyboard.press("ArrowDown")
    tab.wait_for_function(f"() => !location.hash.includes('metric={first}')")
    settled(tab)
    assert tab.evaluate("document.activeElement.name") == "metric"
    assert tab.locator("main select[name=metric]").input_value() != first


def test_text_has_readable_contrast(site: Site, page) -> None:
    tab, _ = page
    tab.goto(site.url + "/")
    settled(tab)
    pairs = tab.evaluate(
        """() => {
          const bg = (e) => { for (; e; e = e.parentElement) {
              const c = getComputedStyle(e).backgroundColor;
              if (c && c !== 'rgba(0, 0, 0, 0)') return c; } return 'rgb(255, 255, 255)'; };
          return [...document.querySelectorAll('a, th, td, p, h1, label, button, footer')]
            .filter(e => e.textContent.trim())
            .map(e => [e.tagName, getComputedStyle(e).color, bg(e)]);
        }"""
    )
    assert pairs
    low = [(tag, fg, bg) for tag, fg, bg in pairs if contrast(fg, bg) < 4.5]
    assert low == []
