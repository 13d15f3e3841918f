#!/usr/bin/env bash
# Create (idempotently) a separate virtualenv holding pypaimon 2.1.0, the second implementation used to
# cross-check the Java corpus expectations (tests/fixtures/corpus/). pypaimon pins pyarrow<20, which
# clashes with the project venv (pyarrow 26), hence its own venv.
#
# Usage: scripts/pypaimon_venv.sh [venv-dir]      (default: <repo>/.venv-pypaimon)
# Prints the venv's python path on success. Safe to re-run: an existing venv that already has the
# right pypaimon version is left alone.
set -euo pipefail

PYPAIMON_VERSION="2.1.0"
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV_DIR="${1:-${REPO_DIR}/.venv-pypaimon}"
PYTHON="${PYTHON:-python3}"

installed_version() {
    "${VENV_DIR}/bin/python" - <<'PY' 2>/dev/null || true
from importlib.metadata import PackageNotFoundError, version
try:
    print(version("pypaimon"))
except PackageNotFoundError:
    pass
PY
}

if [[ -x "${VENV_DIR}/bin/python" && "$(installed_version)" == "${PYPAIMON_VERSION}" ]]; then
    echo "${VENV_DIR}/bin/python"
    exit 0
fi

if [[ ! -x "${VENV_DIR}/bin/python" ]]; then
    "${PYTHON}" -m venv "${VENV_DIR}"
fi
"${VENV_DIR}/bin/python" -m pip install --quiet --upgrade pip >&2
# fastavro is a pypaimon dependency already; zstandard lets it read zstd-compressed avro manifests.
"${VENV_DIR}/bin/python" -m pip install --quiet "pypaimon==${PYPAIMON_VERSION}" zstandard >&2

if [[ "$(installed_version)" != "${PYPAIMON_VERSION}" ]]; then
    echo "pypaimon ${PYPAIMON_VERSION} did not install into ${VENV_DIR}" >&2
    exit 1
fi
echo "${VENV_DIR}/bin/python"
