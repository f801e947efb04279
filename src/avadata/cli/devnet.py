"""`avadata devnet`."""

from __future__ import annotations

from avadata.cli.notyet import not_yet

HELP = "devnet: not yet implemented."


def devnet() -> None:
    not_yet("devnet")
