#!/usr/bin/env bash
# Sets everything up, then runs every check CI runs: lint, types, the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/ruff check src tests
.venv/bin/ruff format --check src tests
.venv/bin/mypy
.venv/bin/pytest "$@"
