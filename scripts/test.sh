#!/usr/bin/env bash
# The whole test suite (unit, end-to-end through the CLI, property-based), plus lint and types.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh dev,ray
.venv/bin/ruff check src tests bench
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
