"""Starlette's TestClient, imported without its warning about httpx (the project pins httpx;
the warning is an error under our pytest settings)."""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

__all__ = ["TestClient"]
