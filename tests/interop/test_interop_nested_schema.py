"""pypaimon 2.1.0 reads a table written by paimon_sql after nested schema changes (schema file with
nested field ids and highestFieldId as Paimon writes them)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyarrow as pa

from paimon_sql import Catalog
from paimon_sql import types as pt
from paimon_sql.meta.schema_change import AddColumn, DropColumn, RenameColumn, UpdateColumnType

SCRIPT = """
import sys
from pypaimon import CatalogFactory
t = CatalogFactory.create({"warehouse": sys.argv[1]}).get_table("db.t")
b = t.new_read_builder()
rows = b.new_read().to_arrow(b.new_scan().plan().splits()).to_pylist()
print(repr(sorted(rows, key=lambda r: r["k"])))
"""


def test_pypaimon_reads_after_nested_changes(warehouse: Path, pypaimon_python: Path) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    s = pa.struct([("f1", pa.int32()), ("f2", pa.string())])
    t = cat.create_table("db.t", pa.schema([("k", pa.int64()), ("s", s)]))
    t.write(pa.table({"k": [1], "s": [{"f1": 1, "f2": "a"}]}, schema=t.arrow_schema))
    t = t.alter(AddColumn.of(["s", "f3"], pt.IntType()), RenameColumn.of(["s", "f1"], "g"),
                UpdateColumnType.of(["s", "g"], pt.BigIntType()), DropColumn.of(["s", "f2"]))
    t.write(pa.table({"k": [2], "s": [{"g": 5, "f3": 6}]}, schema=t.arrow_schema))
    out = subprocess.run([str(pypaimon_python), "-c", SCRIPT, str(warehouse)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert eval(out.stdout) == [{"k": 1, "s": {"g": 1, "f3": None}}, {"k": 2, "s": {"g": 5, "f3": 6}}]
