#!/usr/bin/env bash
# Sets everything up, then runs the whole system: devnet + indexer + API on an SQLite file.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/avadata up "$@"
