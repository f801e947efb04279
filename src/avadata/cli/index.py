"""`avadata index`."""

from __future__ import annotations

from avadata.cli.notyet import not_yet

HELP = "index: not yet implemented."


def index() -> None:
    not_yet("index")
