"""Compile the devnet's Solidity sources with the pinned solc from npm (tools/node_modules/solc).

Run by `scripts/setup.sh`; the output (ABI + bytecode per contract) goes to `build/contracts.json`
beside the sources, which is generated and not committed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from avadata.paths import NODE_MODULES

HERE = Path(__file__).resolve().parent
OUT = HERE / "build" / "contracts.json"


def sources() -> list[Path]:
    return sorted(HERE.glob("*.sol"))


def is_stale() -> bool:
    if not OUT.exists():
        return True
    built = OUT.stat().st_mtime
    return any(p.stat().st_mtime > built for p in [*sources(), Path(__file__)])


def compile_all() -> dict[str, dict[str, object]]:
    request = {
        "language": "Solidity",
        "sources": {p.name: {"content": p.read_text()} for p in sources()},
        "settings": {
            "optimizer": {"enabled": True, "runs": 200},
            "evmVersion": "paris",
            "outputSelection": {"*": {"*": ["abi", "evm.bytecode.object"]}},
        },
    }
    # solc.js's own CLI prints with console.log and then calls process.exit, which cuts stdout
    # at the pipe buffer (64 KiB) once the output is large; this script writes a file instead.
    script = (
        "const fs = require('fs');"
        "const solc = require(process.argv[1]);"
        "fs.writeFileSync(process.argv[2], solc.compile(fs.readFileSync(0, 'utf8')));"
    )
    with tempfile.TemporaryDirectory() as tmp:
        out_path = Path(tmp) / "solc-output.json"
        subprocess.run(
            ["node", "-e", script, str(NODE_MODULES / "solc"), str(out_path)],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=True,
        )
        output = json.loads(out_path.read_text())
    errors = [e for e in output.get("errors", []) if e.get("severity") == "error"]
    if errors:
        raise SystemExit("\n".join(e["formattedMessage"] for e in errors))
    result: dict[str, dict[str, object]] = {}
    for per_file in output.get("contracts", {}).values():
        for name, art in per_file.items():
            result[name] = {"abi": art["abi"], "bytecode": "0x" + art["evm"]["bytecode"]["object"]}
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--if-stale", action="store_true", help="skip when build/ is up to date")
    args = parser.parse_args(argv)
    if args.if_stale and not is_stale():
        return 0
    if not sources():
        return 0
    artifacts = compile_all()
    OUT.parent.mkdir(exist_ok=True)
    # Atomic: test workers may compile at the same time while others read the file.
    tmp = OUT.with_name(f"{OUT.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(artifacts, indent=1, sort_keys=True))
    tmp.replace(OUT)
    print(f"compiled {len(artifacts)} contracts -> {OUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
