#!/usr/bin/env bash
# The demo command: installs what it needs (scripts/setup_env.sh), then runs the short SQL script
# examples/demo.sql through the paimon-sql shell (Spark's spark-sql with the paimon catalog) on a
# temporary warehouse, echoing each statement before its rows.
#
# Usage: scripts/demo.sh [--warehouse DIR] [more paimon-sql options]
# Spark's logs go to a temporary file, shown only if the demo fails.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup_env.sh
args=("$@")
tmp="$(mktemp -d "${TMPDIR:-/tmp}/paimon-sql-demo.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
if [[ " ${args[*]-} " != *" --warehouse "* ]]; then
  args=(--warehouse "$tmp/warehouse" "${args[@]}")
fi
echo "paimon-sql ${args[*]} -v -f examples/demo.sql" >&2
if ! (cd "$tmp" && "$root/.venv/bin/paimon-sql" "${args[@]}" -v -f "$root/examples/demo.sql" 2>"$tmp/spark.log"); then
  cat "$tmp/spark.log" >&2
  exit 1
fi
