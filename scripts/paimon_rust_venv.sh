#!/usr/bin/env bash
# Create (idempotently) a separate virtualenv holding pypaimon-rust (apache/paimon-rust's Python
# binding), a second independent reader used by the interop tests (changelog files, incremental
# reads with row kinds; it returns pyarrow batches, so pyarrow comes too). It has its own venv so that
# its pinned dependencies never meet the project's.
#
# Usage: scripts/paimon_rust_venv.sh [venv-dir]      (default: <repo>/.venv-paimon-rust)
# Prints the venv's python path on success. Safe to re-run: an existing venv that already has the
# right pypaimon-rust version is left alone.
set -euo pipefail

PAIMON_RUST_VERSION="0.4.0"
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV_DIR="${1:-${REPO_DIR}/.venv-paimon-rust}"
PYTHON="${PYTHON:-python3}"

installed_version() {
    "${VENV_DIR}/bin/python" - <<'PY' 2>/dev/null || true
from importlib.metadata import PackageNotFoundError, version
try:
    print(version("pypaimon-rust"))
except PackageNotFoundError:
    print("")  # not installed: no version
PY
}

if [[ -x "${VENV_DIR}/bin/python" && "$(installed_version)" == "${PAIMON_RUST_VERSION}" ]]; then
    echo "${VENV_DIR}/bin/python"
    exit 0
fi

if [[ ! -x "${VENV_DIR}/bin/python" ]]; then
    "${PYTHON}" -m venv "${VENV_DIR}"
fi
"${VENV_DIR}/bin/python" -m pip install --quiet "pypaimon-rust==${PAIMON_RUST_VERSION}" pyarrow >&2

if [[ "$(installed_version)" != "${PAIMON_RUST_VERSION}" ]]; then
    echo "pypaimon-rust ${PAIMON_RUST_VERSION} did not install into ${VENV_DIR}" >&2
    exit 1
fi
echo "${VENV_DIR}/bin/python"
