"""The pieces behind the command line's one-line errors, without a subprocess (those are in
tests/e2e/test_cli_errors.py)."""

from __future__ import annotations

import logging
import socket

import pytest

from avadata.cli.failures import debug_requested, line_for, mask_log_lines, verb_of
from avadata.cli.ports import check_free
from avadata.errors import ConfigError, PortInUse, RpcTransportError, StoreError
from avadata.store.urls import mask


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("postgresql://u:pw@h:5432/db", "postgresql://u:***@h:5432/db"),
        ("postgresql+psycopg://u:p@ss@h/db", "postgresql+psycopg://u:***@h/db"),
        (
            "a postgresql://u:x@h/d and https://k:y@node/rpc",
            "a postgresql://u:***@h/d and https://k:***@node/rpc",
        ),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("sqlite:////tmp/a.db", "sqlite:////tmp/a.db"),
        ("http://127.0.0.1:9650/ext/bc/C/rpc", "http://127.0.0.1:9650/ext/bc/C/rpc"),
    ],
)
def test_mask(text: str, masked: str) -> None:
    assert mask(text) == masked


def test_debug_flag_anywhere_before_a_double_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AVADATA_DEBUG", raising=False)
    assert debug_requested(["serve", "--debug", "--db", "x"]) == (["serve", "--db", "x"], True)
    assert debug_requested(["decode", "tx", "--", "--debug"]) == (
        ["decode", "tx", "--", "--debug"],
        False,
    )
    monkeypatch.setenv("AVADATA_DEBUG", "1")
    assert debug_requested(["serve"]) == (["serve"], True)
    monkeypatch.setenv("AVADATA_DEBUG", "0")
    assert debug_requested(["serve"]) == (["serve"], False)


def test_verb_names() -> None:
    assert verb_of(["index", "--db", "x"]) == "avadata index"
    assert verb_of(["keys", "create", "--db", "x"]) == "avadata keys create"
    assert verb_of(["metrics", "--db"]) == "avadata metrics"


def test_lines() -> None:
    assert (
        line_for(StoreError("store postgresql://u:pw@h/d: gone"))
        == "store postgresql://u:***@h/d: gone"
    )
    node = line_for(RpcTransportError("http://127.0.0.1:1: gave up after 8 attempts: refused"))
    assert node.startswith("http://127.0.0.1:1: gave up") and "node running" in node
    bug = line_for(KeyError("x"))
    assert "KeyError" in bug and "--debug" in bug
    assert "\n" not in line_for(RuntimeError("one\ntwo"))


def test_a_taken_port_and_a_free_one() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(PortInUse, match=rf"port {port} .*--port"):
            check_free(port, "--port")
    check_free(port, "--port")  # released: free again
    with pytest.raises(ConfigError, match="no-such-host.invalid"):
        check_free(port, "--port", "no-such-host.invalid")


def test_log_lines_are_masked(capsys: pytest.CaptureFixture[str]) -> None:
    mask_log_lines()
    mask_log_lines()  # once is enough, twice does no harm
    # Straight to the handler our log lines reach outside pytest (which adds its own to root).
    args = ("postgresql://u:pw@h/d",)
    record = logging.LogRecord("avadata.t", logging.WARNING, __file__, 1, "at %s", args, None)
    assert logging.lastResort is not None
    logging.lastResort.handle(record)
    assert "postgresql://u:***@h/d" in capsys.readouterr().err
