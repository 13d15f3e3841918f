#!/usr/bin/env bash
# The demo command: installs what it needs, then runs a short demo on a local warehouse.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup_env.sh
.venv/bin/python examples/demo.py "$@"
