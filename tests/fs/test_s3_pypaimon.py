"""pypaimon 2.1.0 reads what paimon_sql wrote to a warehouse in an S3-compatible store (the same
``s3.*`` catalog options; pypaimon builds its own pyarrow S3 filesystem from them)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql.catalog.factory import load_catalog
from paimon_sql.table.table import Table
from tests.helpers.interop_util import IO_SCRIPT, ensure_pypaimon_python, read_ipc
from tests.helpers.s3_server import S3Warehouse

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def _pypaimon_read(wh: S3Warehouse, table: str, out: Path, snapshot_id: int | None = None) -> pa.Table:
    python, why = ensure_pypaimon_python()
    if python is None:
        pytest.skip(why)
    cmd = [str(python), str(IO_SCRIPT), "read", "--warehouse", wh.uri, "--table", table, "--out", str(out)]
    if snapshot_id is not None:
        cmd += ["--snapshot-id", str(snapshot_id)]
    env = {**os.environ, "PYPAIMON_CATALOG_OPTIONS": json.dumps(wh.options)}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return read_ipc(out)


def test_pypaimon_reads_our_s3_tables(tmp_path: Path, s3_warehouse: S3Warehouse) -> None:
    cat = load_catalog(s3_warehouse.uri, s3_warehouse.options)
    cat.create_database("db")
    pk = cat.create_table("db.pk", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"], options={"bucket": "2"})
    ap = cat.create_table("db.ap", SCHEMA)
    assert isinstance(pk, Table) and isinstance(ap, Table)
    pk.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "dt": ["d1", "d1", "d2"]}, schema=SCHEMA))
    pk.write(pa.table({"id": [2], "v": ["B"], "dt": ["d1"]}, schema=SCHEMA))
    pk.compact()
    ap.write(pa.table({"id": list(range(100)), "v": ["x"] * 100, "dt": ["d"] * 100}, schema=SCHEMA))

    got = _pypaimon_read(s3_warehouse, "db.pk", tmp_path / "pk.arrow").sort_by("id")
    assert got.column("id").to_pylist() == [1, 2, 3]
    assert got.column("v").to_pylist() == ["a", "B", "c"]
    first = _pypaimon_read(s3_warehouse, "db.pk", tmp_path / "pk1.arrow", snapshot_id=1).sort_by("id")
    assert first.column("v").to_pylist() == ["a", "b", "c"]
    assert _pypaimon_read(s3_warehouse, "db.ap", tmp_path / "ap.arrow").num_rows == 100
