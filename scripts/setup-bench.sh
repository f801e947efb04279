#!/usr/bin/env bash
# The peers `avadata bench` compares against, each in its own virtualenv under .bench/:
# ethereum-etl 2.4.2 (needs parsimonious 0.10.0 and regex on Python 3.11, against its pins).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
if [ ! -x .bench/ethereum-etl/bin/ethereumetl ]; then
  "$PY" -m venv .bench/ethereum-etl
  .bench/ethereum-etl/bin/pip install --quiet --disable-pip-version-check ethereum-etl==2.4.2
  .bench/ethereum-etl/bin/pip install --quiet --disable-pip-version-check --no-deps parsimonious==0.10.0 regex==2026.11.15
fi
# wrk (Debian package) drives `avadata bench api`.
if ! command -v wrk > /dev/null; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get install -y wrk > /dev/null 2>&1 || { $SUDO apt-get update > /dev/null && $SUDO apt-get install -y wrk > /dev/null; }
fi
