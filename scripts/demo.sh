#!/usr/bin/env bash
# The main job: the real Claude Code CLI (bundled with claude-agent-sdk) works through the
# example suite against the scripted model on the local gateway. No API key, no network
# beyond PyPI for the first bootstrap. Extra arguments go to `coder-eval run` (e.g.
# `--stream full`). The deliberately failing example (tag example-fail) is left out; run the
# whole suite with `.venv/bin/coder-eval run examples/tasks -b script` to see it fail.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
# The tasks call `python`: each unit has its own virtual environment (sandbox.python's default),
# first on its PATH, so a machine with only `python3` runs them too.
.venv/bin/coder-eval plan examples/tasks -b script  # plan checks what run would need: the scripted model
.venv/bin/coder-eval run examples/tasks -b script --exclude-tags example-fail -j 2 "$@"
.venv/bin/coder-eval report runs/latest
