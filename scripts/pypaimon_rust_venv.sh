#!/usr/bin/env bash
# Create (idempotently) a separate virtualenv holding pypaimon-rust (apache/paimon-rust's Python
# binding) and pyarrow: an independent reader of incremental ranges with row kinds, used by
# tests/interop/test_interop_incremental_rust.py to cross-check paimon_sql's incremental reads.
#
# Usage: scripts/pypaimon_rust_venv.sh [venv-dir]      (default: <repo>/.venv-pypaimon-rust)
# Prints the venv's python path on success.
set -euo pipefail

VERSION="0.4.0"
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV_DIR="${1:-${REPO_DIR}/.venv-pypaimon-rust}"
PYTHON="${PYTHON:-python3}"

installed() {
    "${VENV_DIR}/bin/python" -c "from importlib.metadata import version; import pyarrow; print(version('pypaimon-rust'))" 2>/dev/null || true
}

if [[ -x "${VENV_DIR}/bin/python" && "$(installed)" == "${VERSION}" ]]; then
    echo "${VENV_DIR}/bin/python"
    exit 0
fi
if [[ ! -x "${VENV_DIR}/bin/python" ]]; then
    "${PYTHON}" -m venv "${VENV_DIR}"
fi
"${VENV_DIR}/bin/python" -m pip install --quiet "pypaimon-rust==${VERSION}" pyarrow >&2
if [[ "$(installed)" != "${VERSION}" ]]; then
    echo "pypaimon-rust ${VERSION} did not install into ${VENV_DIR}" >&2
    exit 1
fi
echo "${VENV_DIR}/bin/python"
