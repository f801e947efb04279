"""Pluggable price sources. Today: a JSON file of prices; with none, no price is ever shown.

File format: {"<evm chain id>": {"native": {"usd": 25.1, "eur": 23.0}, "<token address>": {...}}}.
Addresses are matched case-insensitively; a missing currency means "no price", not zero.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import orjson


class PriceSource(Protocol):
    def price(self, chain_id: int, asset: str, currency: str) -> float | None:
        """The price of one unit of `asset` ("native" or a token address) in `currency`."""


class FilePriceSource:
    def __init__(self, path: Path):
        raw = orjson.loads(path.read_bytes())
        if not isinstance(raw, dict):
            raise ValueError(f"{path}: expected an object keyed by chain id")
        self._prices: dict[tuple[int, str], dict[str, float]] = {}
        for chain_key, assets in raw.items():
            if not isinstance(assets, dict):
                raise ValueError(f"{path}: chain {chain_key}: expected an object of assets")
            for asset, by_currency in assets.items():
                if not isinstance(by_currency, dict):
                    raise ValueError(f"{path}: {chain_key}/{asset}: expected currency -> price")
                self._prices[(int(chain_key), asset.lower())] = {
                    str(c).lower(): float(v) for c, v in by_currency.items()
                }

    def price(self, chain_id: int, asset: str, currency: str) -> float | None:
        return self._prices.get((chain_id, asset.lower()), {}).get(currency)
