"""The house's fences (docs/architecture.md): only coltypes.py and dialect.py look at the
dialect (STYLE.md section 7.2); only the store imports SQLAlchemy; the store imports no decode;
the API calls no node; decode does no I/O."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import avadata
import avadata.store

STORE = Path(avadata.store.__file__).parent
SRC = Path(avadata.__file__).parent
FENCED = {"coltypes.py", "dialect.py"}
# Looking at the dialect: its name, a dialect-specific import, or a backend name in code.
LOOKS = re.compile(
    r"dialect\.name|sqlalchemy\.dialects|get_backend_name|['\"](sqlite|postgresql)['\"]"
)


def test_only_two_modules_look_at_the_dialect():
    offenders = []
    for path in STORE.rglob("*.py"):
        if path.name in FENCED:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if LOOKS.search(line):
                offenders.append(f"{path.relative_to(STORE)}:{n}: {line.strip()}")
    assert offenders == []


def _imports(path: Path) -> set[str]:
    """Every module name a file imports, anywhere in it (lazy imports count)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _offenders(stage: str, forbidden: tuple[str, ...]) -> list[str]:
    out = []
    for path in sorted((SRC / stage).rglob("*.py")):
        bad = sorted(n for n in _imports(path) if n.startswith(forbidden))
        if bad:
            out.append(f"{path.relative_to(SRC)}: {', '.join(bad)}")
    return out


def test_only_the_store_imports_sqlalchemy():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "store":
            continue
        if any(n == "sqlalchemy" or n.startswith("sqlalchemy.") for n in _imports(path)):
            offenders.append(str(rel))
    assert offenders == []


def test_the_store_imports_no_decode_and_no_later_stage():
    assert _offenders("store", ("avadata.decode", "avadata.indexer", "avadata.api")) == []


def test_the_api_calls_no_node():
    # sources/ is where nodes are called; the indexer wires them; the devnet simulates them.
    forbidden = ("avadata.sources", "avadata.indexer", "avadata.devnet", "httpx", "aiohttp")
    assert _offenders("api", forbidden) == []


def test_decode_does_no_io_and_imports_no_later_stage():
    forbidden = ("avadata.sources", "avadata.store", "avadata.indexer", "avadata.api", "httpx")
    assert _offenders("decode", forbidden) == []
