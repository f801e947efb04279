"""Where the project's own tools and files live, found without PATH tricks."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
# src/avadata -> repository root (editable install; the tools folder sits beside src/).
REPO_ROOT = PACKAGE_DIR.parent.parent
TOOLS_DIR = Path(os.environ.get("AVADATA_TOOLS_DIR", REPO_ROOT / "tools"))
NODE_MODULES = TOOLS_DIR / "node_modules"


def anvil_binary() -> Path:
    """The pinned anvil from the npm package @foundry-rs/anvil-linux-amd64."""
    path = NODE_MODULES / "@foundry-rs" / "anvil-linux-amd64" / "bin" / "anvil"
    if not path.exists():
        raise FileNotFoundError(f"anvil not found at {path}: run `make setup` first")
    return path
