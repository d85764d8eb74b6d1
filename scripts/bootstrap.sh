#!/usr/bin/env bash
# Create .venv (if needed) and install Coder Eval into it with the given extras.
# Usage: scripts/bootstrap.sh [EXTRAS]   e.g. scripts/bootstrap.sh dev
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
if [ ! -x .venv/bin/uv ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check uv
fi
spec="."
[ -n "$extras" ] && spec=".[$extras]"
.venv/bin/uv pip install --quiet --python .venv/bin/python --compile-bytecode -e "$spec"
