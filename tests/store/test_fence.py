"""Only coltypes.py and dialect.py may look at the dialect (STYLE.md section 7.2)."""

from __future__ import annotations

import re
from pathlib import Path

import avadata.store

STORE = Path(avadata.store.__file__).parent
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
