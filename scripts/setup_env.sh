#!/usr/bin/env bash
# Creates ./.venv with paimon_sql (+ pyspark 4.3) and its test tools installed, and builds the Spark
# JVM shim (idempotent). Sourced by test.sh and demo.sh.
#
# The package is installed editable in setuptools' "compat" mode: Spark discovers the Python data
# source by scanning pkgutil.iter_modules() for the top-level module pyspark_paimon_sql, which pip's
# default editable mode hides. The shim (jvm-shim/) is compiled with javac against pyspark's own
# jars into paimon_sql/spark/jars/paimon-sql-shim.jar (needs a JDK >= 17; no Maven).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-python3}"
if [ ! -x "$root/.venv/bin/python" ]; then
  "$py" -m venv "$root/.venv"
fi
stamp="$root/.venv/.paimon_sql-installed"
discoverable() {  # can Spark's data source lookup (pkgutil.iter_modules) see pyspark_paimon_sql?
  (cd / && "$root/.venv/bin/python" -I -c 'import pkgutil, sys
sys.exit(0 if any(m.name == "pyspark_paimon_sql" for m in pkgutil.iter_modules()) else 1)')
}
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ] || ! discoverable; then
  "$root/.venv/bin/pip" install -q --disable-pip-version-check \
    --config-settings editable_mode=compat -e "$root[test]"
  touch "$stamp"
fi
# (re)built when missing, older than a Java source, or built for another pyspark version
"$root/.venv/bin/python" "$root/build_backend/shim.py" --if-stale
# Byte-compile the package (as a non-editable pip install does): every Python process Spark starts
# imports it, and where PYTHONDONTWRITEBYTECODE is set nothing else would write the .pyc files,
# so each process would compile the engine's sources again (issue 22's cold start)
"$root/.venv/bin/python" -m compileall -q -j 0 "$root/paimon_sql" "$root/pyspark_paimon_sql" >/dev/null
