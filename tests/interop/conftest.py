"""Fixtures for the pypaimon 2.1.0 interop tests.

The pypaimon venv (.venv-pypaimon, made by scripts/pypaimon_venv.sh) is created on first use; the tests
are skipped, with the reason, only when it is missing and cannot be created."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.interop_util import PypaimonIO, ensure_pypaimon_python


@pytest.fixture(scope="session")
def pypaimon_python() -> Path:
    python, why = ensure_pypaimon_python()
    if python is None:
        pytest.skip(why)
    return python


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    path = tmp_path / "warehouse"
    path.mkdir()
    return path


@pytest.fixture()
def pypaimon(pypaimon_python: Path, warehouse: Path, tmp_path: Path) -> PypaimonIO:
    scratch = tmp_path / "ipc"
    scratch.mkdir()
    return PypaimonIO(pypaimon_python, warehouse, scratch)
