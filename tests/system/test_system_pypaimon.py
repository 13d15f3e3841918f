"""Our system tables against pypaimon 2.1.0's (a second implementation, in its own venv) on the
columns where both follow Paimon: manifests entirely, the numbers of files / partitions / buckets /
snapshots, and the JSON of schemas. (pypaimon prints statistics as JSON and partitions of $files as
``k=v``, unlike Paimon's Java; those columns are checked against Java facts elsewhere.)
Skipped when the pypaimon venv (scripts/pypaimon_venv.sh) is not there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.table.system import SystemTable

VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv-pypaimon" / "bin" / "python"
CORPUS = Path(os.environ.get("PAIMON_JAVA_CORPUS", "/work/shared/fixtures/java-corpus"))

SCRIPT = r"""
import json, sys
from pypaimon import CatalogFactory
cat = CatalogFactory.create({"warehouse": sys.argv[1]})
out = {}
for s in ["files", "manifests", "partitions", "buckets", "schemas", "snapshots"]:
    st = cat.get_table(sys.argv[2] + "$" + s)
    rb = st.new_read_builder()
    res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    out[s] = res.to_pylist()
print(json.dumps(out, default=str))
"""


def _theirs(warehouse: Path, table: str) -> dict[str, list[dict[str, Any]]]:
    if not VENV_PYTHON.exists():
        pytest.skip(f"pypaimon venv not found at {VENV_PYTHON}")
    script = warehouse.parent / "dump.py"
    script.write_text(SCRIPT)
    res = subprocess.run([str(VENV_PYTHON), str(script), str(warehouse), table], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _ours(cat: Catalog, table: str, name: str) -> list[dict[str, Any]]:
    st = cat.get_table(f"{table}${name}")
    assert isinstance(st, SystemTable)
    return st.read().to_pylist()  # type: ignore[no-any-return]


def _compare(cat: Catalog, wh: Path, table: str) -> None:
    theirs = _theirs(wh, table)
    assert _ours(cat, table, "manifests") == theirs["manifests"]

    def files(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return sorted((os.path.basename(r["file_path"]), r["bucket"], r["schema_id"], r["level"], r["record_count"],
                       r["file_size_in_bytes"], r["min_sequence_number"], r["max_sequence_number"],
                       r["deleteRowCount"]) for r in rows)

    assert files(_ours(cat, table, "files")) == files(theirs["files"])

    def parts(rows: list[dict[str, Any]], keys: tuple[str, ...]) -> list[tuple[Any, ...]]:
        return sorted(tuple(r[k] for k in keys) for r in rows)

    pkeys = ("partition", "record_count", "file_size_in_bytes", "file_count", "deleted_record_count")
    assert parts(_ours(cat, table, "partitions"), pkeys) == parts(theirs["partitions"], pkeys)
    bkeys = ("bucket", "record_count", "file_size_in_bytes", "file_count")
    assert parts(_ours(cat, table, "buckets"), bkeys) == parts(theirs["buckets"], bkeys)
    skeys = ("schema_id", "fields", "partition_keys", "primary_keys", "comment")
    assert parts(_ours(cat, table, "schemas"), skeys) == parts(theirs["schemas"], skeys)
    for ours, other in zip(_ours(cat, table, "schemas"), theirs["schemas"]):
        assert json.loads(ours["options"]) == json.loads(other["options"])
    nkeys = ("snapshot_id", "schema_id", "commit_user", "commit_identifier", "commit_kind", "base_manifest_list",
             "delta_manifest_list", "changelog_manifest_list", "total_record_count", "delta_record_count",
             "changelog_record_count", "watermark")
    assert parts(_ours(cat, table, "snapshots"), nkeys) == parts(theirs["snapshots"], nkeys)


def test_our_table_against_pypaimon(tmp_path: Path) -> None:
    wh = tmp_path / "wh"
    cat = Catalog(str(wh))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())]),
                         partition_keys=["dt"])
    assert isinstance(t, Table)
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "dt": ["x", "x", "y"]}))
    t.delete("id = 2")
    t.write(pa.table({"id": [4], "v": ["d"], "dt": ["y"]}))
    t.alter(set_options={"target-file-size": "64 mb"})
    _compare(cat, wh, "db.t")


@pytest.mark.parametrize("name", ["pk_table_with_dv_cardinality", "append_table_with_alter_table",
                                  "pk_table_scan_and_read_mor"])
def test_java_tables_against_pypaimon(tmp_path: Path, name: str) -> None:
    src = CORPUS / "parquet" / f"{name}.db"
    if not src.is_dir():
        pytest.skip("Java corpus not found")
    wh = tmp_path / "wh"
    shutil.copytree(src, wh / f"{name}.db")
    _compare(Catalog(str(wh)), wh, f"{name}.{name}")
