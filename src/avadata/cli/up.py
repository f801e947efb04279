"""`avadata up`."""

from __future__ import annotations

from avadata.cli.notyet import not_yet

HELP = "up: not yet implemented."


def up() -> None:
    not_yet("up")
