#!/usr/bin/env bash
# Builds the JVM shim with plain javac + jar (no Maven) against the jars of the installed pyspark,
# into paimon_sql/spark/jars/paimon-sql-shim.jar (git-ignored; package data of a built wheel).
# The work is done by build_backend/shim.py, which the wheel build (PEP 517 backend) uses too.
#
# Usage: jvm-shim/build.sh [python]   (default: <repo>/.venv/bin/python, else $PYTHON, else python3)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
py="${1:-${PYTHON:-}}"
if [ -z "$py" ]; then
  if [ -x "$root/.venv/bin/python" ]; then py="$root/.venv/bin/python"; else py=python3; fi
fi
exec "$py" "$root/build_backend/shim.py"
