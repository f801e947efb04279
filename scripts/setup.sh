#!/usr/bin/env bash
# Sets up everything the project needs on a fresh machine, idempotently:
# the virtualenv (.venv) with the locked Python dependencies, the package in
# editable mode, the Node-side tools (anvil, solc, the official SDK, avalanchejs)
# in tools/node_modules, the compiled devnet contracts, and Debian's Chromium (the dashboard's
# browser tests drive it through Playwright; no browser is ever downloaded by Playwright).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
mkdir -p .stamps

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
if [ ! -x .venv/bin/uv ]; then
  .venv/bin/pip install --quiet --disable-pip-version-check uv==0.13.9
fi
if [ ! -f .stamps/py ] || [ requirements.lock -nt .stamps/py ] || [ pyproject.toml -nt .stamps/py ]; then
  .venv/bin/uv pip sync --quiet --compile-bytecode --python .venv/bin/python requirements.lock
  .venv/bin/uv pip install --quiet --python .venv/bin/python --no-deps -e .
  touch .stamps/py
fi
if [ ! -x /usr/bin/chromium ]; then
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium > /dev/null
fi
if [ ! -f .stamps/npm ] || [ tools/package-lock.json -nt .stamps/npm ]; then
  npm ci --prefix tools --no-audit --no-fund --loglevel=error
  touch .stamps/npm
fi
# Bytecode ahead of time: uv installs none by default, and where PYTHONDONTWRITEBYTECODE is set
# (it is on the CI machine) every process would compile every module it imports from source,
# about 2 s per `avadata` start and per indexer fetch process. Up-to-date files are skipped.
.venv/bin/python -m compileall -q -j 0 src "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" > /dev/null
.venv/bin/python -m avadata.devnet.contracts.compile --if-stale
