"""One Python bridge per Python executable, owned by the catalogs that use it (issue 23, seam 7):
a catalog with its own ``python`` option gets a bridge process of its own, and the session's
catalogs keep theirs."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_a_catalog_with_another_python_has_a_bridge_of_its_own(
    spark: Any, sql: Any, db: str, tmp_path: Path
) -> None:
    jvm = spark.sparkContext._jvm.org.paimon_sql.spark
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT)")
    session_pid = jvm.PythonBridge.pid()
    assert session_pid > 0
    # another executable running the same interpreter (a script: a symlink would lose the venv)
    other_python = tmp_path / "python-other"
    other_python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    other_python.chmod(0o755)
    name = f"other_{uuid.uuid4().hex[:8]}"
    spark.conf.set(f"spark.sql.catalog.{name}", "org.paimon_sql.spark.PaimonCatalog")
    spark.conf.set(f"spark.sql.catalog.{name}.warehouse", str(tmp_path / "wh"))
    spark.conf.set(f"spark.sql.catalog.{name}.python", str(other_python))
    spark.sql(f"CREATE TABLE {name}.default.u (id BIGINT)")
    spark.sql(f"INSERT INTO {name}.default.u VALUES (7)")
    assert sql(f"SELECT * FROM {name}.default.u") == [(7,)]

    other = jvm.PythonBridge.of(str(other_python))
    assert other.python() == str(other_python)
    assert other.processId() > 0 and other.processId() != session_pid
    # the session's catalog still talks to its own bridge (the last catalog does not win)
    assert jvm.PythonBridge.pid() == session_pid
    assert sql(f"SHOW TABLES IN {db}") == [(db, "t", False)]
    assert jvm.PythonBridge.pid() == session_pid
    other.stop()
    assert other.processId() == -1
