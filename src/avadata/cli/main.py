"""The `avadata` command line: one thin module per verb (parse, build settings, call one thing)."""

from __future__ import annotations

import os
import sys

import typer

from avadata.cli import bench, chains, decode, devnet, failures, index, metrics, serve, up

app = typer.Typer(
    name="avadata",
    help="A self-hosted Avalanche data stack: devnet, indexer, Data API and Metrics API.\n\n"
    "A misconfiguration is one line on stderr and exit 1 (usage errors: exit 2); --debug "
    "anywhere, or AVADATA_DEBUG=1, prints the traceback too.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("devnet", help=devnet.HELP)(devnet.devnet)
app.command("index", help=index.HELP)(index.index)
app.command("serve", help=serve.HELP)(serve.serve)
app.add_typer(serve.keys_app, name="keys")
app.command("up", help=up.HELP)(up.up)
app.command("chains", help=chains.HELP)(chains.chains)
app.add_typer(bench.app, name="bench")
app.add_typer(decode.app, name="decode")
app.add_typer(metrics.app, name="metrics")


def main(argv: list[str] | None = None, *, appliers: index.AppliersMaker | None = None) -> None:
    """The command line on `argv` (else the process's arguments). `appliers`: what `avadata
    index` runs in its write transactions instead of the default (bench/timed_index.py)."""
    args, debug = failures.debug_requested(sys.argv[1:] if argv is None else argv)
    if debug:  # `avadata up --debug`: its children show theirs too
        os.environ[failures.DEBUG_ENV] = "1"
    if args[:1] == ["index"] and index.start_fetch_early(args[1:]):
        from avadata.indexer.fetch import spawn

        # Only the command line's own process: a library caller's keeps its priority.
        spawn.yield_cpu()
    failures.mask_log_lines()
    try:
        # Not standalone: click's usage errors come here too, and leave as one line (exit 2).
        code = app(args=args, obj=appliers, standalone_mode=False)
    except Exception as exc:  # every verb's failures, turned into one line here (failures.py)
        if debug:
            raise
        sys.exit(failures.report(exc, args))
    sys.exit(code if isinstance(code, int) else 0)
