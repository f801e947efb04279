#!/usr/bin/env bash
# Sets everything up, then runs every check CI runs: lint, types, the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/ruff check src tests
.venv/bin/ruff format --check src tests
.venv/bin/mypy
# Two workers, each given whole files (tests/support/scheduling.py): much of the suite waits on
# processes (anvil, PostgreSQL, indexers, servers), so two share the cores well.
.venv/bin/pytest -n "${AVADATA_TEST_WORKERS:-2}" --dist loadfile "$@"
