"""Loads the shared vectors from <repo>/../shared/vectors. Missing files fail loudly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO.parent / "shared" / "vectors"


def load(name: str) -> Any:
    path = VECTORS / name
    if not path.is_file():
        raise FileNotFoundError(f"shared vectors missing: {path} (tests need ../shared)")
    return json.loads(path.read_text())


def entries(name: str, key: str = "vectors") -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = load(name)[key]
    return data
