"""The one place where a command's failure becomes one line on stderr and an exit code.

Every verb raises; none catches to print. What reaches here: a misconfiguration
(`errors.ConfigError`: the store, a port, a node that is not the store's chain), any other
`AvadataError` (a node that does not answer, a reorg), or an exception we did not foresee.
Each becomes `avadata VERB: <one line>` and exit 1, or 2 for a value malformed as given
(click's usage errors too: one line, exit 2). The traceback is printed
only when asked: `--debug` anywhere among the arguments, or AVADATA_DEBUG=1 (which
`avadata up` passes on to its children).
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Sequence
from typing import cast

import typer

from avadata.errors import AvadataError, ConfigError, RpcTransportError

DEBUG_FLAG = "--debug"
DEBUG_ENV = "AVADATA_DEBUG"

# Verbs that are groups: their name is the group and its command (`avadata keys create: ...`).
_GROUPS = {"bench", "decode", "keys", "metrics"}


def debug_requested(args: list[str]) -> tuple[list[str], bool]:
    """`args` without `--debug` (before any `--`), and whether the traceback was asked for."""
    end = args.index("--") if "--" in args else len(args)
    flagged = DEBUG_FLAG in args[:end]
    rest = [a for a in args[:end] if a != DEBUG_FLAG] + args[end:]
    env = os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")
    return rest, flagged or env


def verb_of(args: Sequence[str]) -> str:
    """`avadata index`, `avadata keys create`: the command a message is from."""
    words = [a for a in args[:2] if not a.startswith("-")]
    if words[:1] and words[0] in _GROUPS:
        return "avadata " + " ".join(words)
    return "avadata " + words[0] if words else "avadata"


def line_for(exc: BaseException, args: Sequence[str] = ()) -> str:
    """The one line that says what went wrong (and, for a bug of ours, how to see more)."""
    from avadata.store.urls import mask

    if isinstance(exc, RpcTransportError):
        return f"{mask(str(exc))} (is the node running, and is that its URL?)"
    if isinstance(exc, AvadataError):
        return mask(str(exc))
    db = _option(args, "--db")
    if db is not None and type(exc).__module__.split(".")[0] == "sqlalchemy":
        from avadata.store.probe import explain

        return explain(db, exc)  # a store opened without store.probe.open_store (the benches)
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):  # pydantic: the settings
        first = errors()[0]
        name = ".".join(str(p) for p in first["loc"])
        got = mask(repr(first.get("input")))
        return f"setting {name} (AVADATA_{name.upper()}): {first['msg']} (got {got})"
    if isinstance(exc, FileNotFoundError) and exc.filename:
        return f"{exc.filename}: no such file (check the option or AVADATA_* setting naming it)"
    if isinstance(exc, OSError) and exc.errno == errno.EADDRINUSE:
        return f"{exc.strerror}: a port it listens on is taken; pick another (--port)"
    text = mask(str(exc).strip().splitlines()[0]) if str(exc).strip() else ""
    return (
        f"unexpected {type(exc).__name__}{': ' + text if text else ''} "
        f"(run again with {DEBUG_FLAG} for the traceback)"
    )


# Typer's (vendored) click UsageError, the class of every usage error it raises; typer names
# only its subclass BadParameter.
_USAGE_ERROR = cast(type[typer.TyperException], typer.BadParameter.__base__)


def report(exc: BaseException, args: Sequence[str]) -> int:
    """Print `exc` as one line for the command `args` ran; the exit code to end with."""
    if isinstance(exc, KeyboardInterrupt | typer.Abort):
        return 130
    if isinstance(exc, _USAGE_ERROR):  # a missing or malformed option: usage, exit 2
        known = not exc.format_message().startswith("No such command")
        hint = f" (see {verb_of(args) if known else 'avadata'} --help)"
        typer.echo(f"{verb_of(args)}: {exc.format_message()}{hint}", err=True)
        return 2
    if isinstance(exc, typer.TyperException):  # the command line's own (click's) errors
        typer.echo(f"{verb_of(args)}: {exc.format_message()}", err=True)
        return int(getattr(exc, "exit_code", 1))
    typer.echo(f"{verb_of(args)}: {line_for(exc, args)}", err=True)
    return exc.exit_code if isinstance(exc, ConfigError) else 1


def _option(args: Sequence[str], name: str) -> str | None:
    """The last value of option `name` in `args` (`--name value` or `--name=value`)."""
    value = None
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith(name + "="):
            value = arg.partition("=")[2]
    return value


class _MaskPasswords(logging.Filter):
    """Masks the password of any URL in a log line (a store or node URL with credentials)."""

    def filter(self, record: logging.LogRecord) -> bool:
        from avadata.store.urls import mask

        text = record.getMessage()
        masked = mask(text)
        if masked != text:
            record.msg, record.args = masked, None
        return True


def mask_log_lines() -> None:
    """Install the masking on the handler our log lines reach: avadata configures no logging,
    so its warnings go to logging's last-resort handler (stderr)."""
    handler = logging.lastResort
    if handler is not None and not any(isinstance(f, _MaskPasswords) for f in handler.filters):
        handler.addFilter(_MaskPasswords())
