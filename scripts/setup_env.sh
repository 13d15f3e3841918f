#!/usr/bin/env bash
# Creates ./.venv with paimon_sql and its test tools installed (idempotent). Sourced by test.sh and demo.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if [ ! -x "$root/.venv/bin/python" ]; then
  "$py" -m venv "$root/.venv"
fi
stamp="$root/.venv/.paimon_sql-installed"
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
  "$root/.venv/bin/pip" install -q --disable-pip-version-check -e "$root[test]"
  touch "$stamp"
fi
