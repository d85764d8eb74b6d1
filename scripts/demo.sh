#!/usr/bin/env bash
# The main job: grade the shipped example solution against its task (no key, no network).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
.venv/bin/coder-eval plan examples/tasks
.venv/bin/coder-eval evaluate examples/tasks/word_count/task.yaml examples/solutions/word_count "$@"
.venv/bin/coder-eval report runs/latest
