"""Prices from the pluggable source: present only when the source knows the asset and
currency, computed as balance / 10**decimals * price; Money.value typed per the setting."""

from __future__ import annotations

import json
from pathlib import Path

from avadata.api.app import create_app
from avadata.settings import Settings
from tests.api.http import TestClient
from tests.api.routes import A
from tests.api.synthetic import CHAIN_ID, ERC20


def _client(store, tmp_path: Path, **kw: object) -> TestClient:
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps(
            {str(CHAIN_ID): {"native": {"usd": 20.0, "eur": 18.5}, ERC20.upper(): {"eur": 0.5}}}
        )
    )
    settings = Settings(
        db_url=store[0], page_token_secret="prices-secret-0123", prices_file=prices, **kw
    )
    return TestClient(create_app(settings))


def test_prices_when_known_only(store, tmp_path: Path) -> None:
    with _client(store, tmp_path) as c:
        usd = c.get(f"{A}/balances:listErc20").json()
        eur = c.get(f"{A}/balances:listErc20", params={"currency": "eur"}).json()
        jpy = c.get(f"{A}/balances:listErc20", params={"currency": "jpy"}).json()
    native = usd["nativeTokenBalance"]
    assert native["price"] == {"currencyCode": "usd", "value": 20.0}
    assert native["balanceValue"]["value"] == int(native["balance"]) / 10**18 * 20.0
    assert eur["nativeTokenBalance"]["price"] == {"currencyCode": "eur", "value": 18.5}
    # The token has a eur price only.
    (tok_usd,) = usd["erc20TokenBalances"]
    assert "price" not in tok_usd and "balanceValue" not in tok_usd
    (tok_eur,) = eur["erc20TokenBalances"]
    assert tok_eur["price"] == {"currencyCode": "eur", "value": 0.5}
    assert tok_eur["balanceValue"]["value"] == int(tok_eur["balance"]) / 10**18 * 0.5
    assert "price" not in jpy["nativeTokenBalance"]


def test_money_as_string_setting(store, tmp_path: Path) -> None:
    with _client(store, tmp_path, money_value="string") as c:
        body = c.get(f"{A}/balances:listErc20").json()
        doc = c.get("/openapi.json").json()
    assert body["nativeTokenBalance"]["price"] == {"currencyCode": "usd", "value": "20.0"}
    assert doc["components"]["schemas"]["Money"]["properties"]["value"]["type"] == "string"


def test_no_source_no_price(client: TestClient) -> None:
    body = client.get(f"{A}/balances:listErc20", params={"currency": "chf"}).json()
    assert "price" not in body["nativeTokenBalance"]
    assert all("price" not in b for b in body["erc20TokenBalances"])
