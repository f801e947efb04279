"""The deployment files of docs/deploy.md are valid: systemd accepts each unit
(`systemd-analyze verify`), and each unit's command line is one `avadata` itself parses."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from avadata.cli.main import app
from avadata.paths import REPO_ROOT

UNITS = sorted((REPO_ROOT / "deploy" / "systemd").glob("*.service"))
# What the EnvironmentFiles of docs/deploy.md hold, for the expansion.
ENV = {
    "AVADATA_DB_URL": "postgresql://avadata@db.internal/avadata",
    "AVADATA_READ_DB_URL": "postgresql://avadata@replica.internal/avadata",
    "AVADATA_API_WORKERS": "4",
    "AVADATA_INDEX_RPC": "http://node.internal:9650/ext/bc/C/rpc",
}


def _exec_start(unit: Path) -> list[str]:
    (line,) = [x for x in unit.read_text().splitlines() if x.startswith("ExecStart=")]
    expanded = re.sub(r"\$\{(\w+)\}", lambda m: ENV[m.group(1)], line.removeprefix("ExecStart="))
    return shlex.split(expanded)


def test_there_are_units_for_the_api_its_replica_and_the_indexers() -> None:
    assert {u.name for u in UNITS} == {
        "avadata-api.service",
        "avadata-api-replica.service",
        "avadata-index@.service",
    }


@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_each_command_line_parses(unit: Path) -> None:
    argv = _exec_start(unit)
    assert argv[0] == "/opt/avadata/bin/avadata"
    group = typer.main.get_command(app)
    with group.make_context("avadata", argv[1:2]) as ctx:
        command = group.get_command(ctx, argv[1])  # type: ignore[attr-defined]
        assert command is not None, argv[1]
        command.make_context(argv[1], argv[2:], parent=ctx)  # raises on a bad option


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.name)
def test_systemd_accepts_the_unit(unit: Path, tmp_path: Path) -> None:
    # verify checks that the program exists and the environment file too: point them at
    # this machine's (the interpreter, running avadata as a module; an empty file).
    env_file = tmp_path / "env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in ENV.items()))
    text = unit.read_text().replace("/opt/avadata/bin/avadata", f"{sys.executable} -m avadata")
    text = re.sub(r"^EnvironmentFile=.*$", f"EnvironmentFile={env_file}", text, flags=re.M)
    copy = tmp_path / unit.name.replace("@.", "@test.")
    copy.write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    problems = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        # The service user exists on the deployed host, not on a test machine.
        if line.strip() and "avadata" not in line.split(":")[-1] or "Failed" in line
    ]
    assert done.returncode == 0 and not problems, done.stdout + done.stderr
