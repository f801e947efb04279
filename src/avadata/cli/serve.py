"""`avadata serve`."""

from __future__ import annotations

from avadata.cli.notyet import not_yet

HELP = "serve: not yet implemented."


def serve() -> None:
    not_yet("serve")
