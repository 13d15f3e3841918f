#!/usr/bin/env bash
# The test command: installs what it needs (and builds the Spark shim), then lint (ruff), types
# (mypy) and the test suite (pytest). Extra arguments go to pytest, e.g. `-m "not slow"` skips the
# tests that start extra JVMs (the paimon-sql shell and sql-examples/).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup_env.sh
# pypaimon 2.1.0 pins pyarrow<20, so it lives in its own virtualenv (interop tests use it)
bash scripts/pypaimon_venv.sh
# pypaimon-rust (apache/paimon-rust's Python binding, one wheel from PyPI) reads our changelogs in
# the interop tests; when it cannot be installed those tests skip with the reason
bash scripts/paimon_rust_venv.sh || echo "pypaimon-rust is not installed: its interop tests will skip" >&2
.venv/bin/ruff check paimon_sql pyspark_paimon_sql build_backend tests bench examples
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
