"""pypaimon 2.1.0 reads a table written by paimon_sql after the rest of the schema changes: a
renamed primary-key column, moved columns, a dropped NOT NULL and a type change beyond widening
(the schema files as Paimon writes them)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyarrow as pa

from paimon_sql import Catalog
from paimon_sql import types as pt
from paimon_sql.meta.schema_change import (
    Move,
    RenameColumn,
    UpdateColumnNullability,
    UpdateColumnPosition,
    UpdateColumnType,
)

SCRIPT = """
import sys
from pypaimon import CatalogFactory
t = CatalogFactory.create({"warehouse": sys.argv[1]}).get_table("db.t")
b = t.new_read_builder()
table = b.new_read().to_arrow(b.new_scan().plan().splits())
print(repr(table.column_names))
print(repr(sorted(table.to_pylist(), key=lambda r: r["key"])))
"""


def test_pypaimon_reads_after_more_changes(warehouse: Path, pypaimon_python: Path) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    schema = pa.schema([pa.field("k", pa.int64(), False), pa.field("v", pa.int32(), False), ("w", pa.string()),
                        ("n", pa.int32())])
    t = cat.create_table("db.t", schema, primary_keys=["k"], options={"bucket": "1"})
    t.write(pa.table({"k": [1, 2], "v": [10, 20], "w": ["a", "b"], "n": [7, None]}, schema=schema))
    t = t.alter(RenameColumn.of("k", "key"), UpdateColumnPosition.of(Move.first("w")),
                UpdateColumnNullability.of("v", True), UpdateColumnType.of("v", pt.BigIntType()),
                UpdateColumnType.of("n", pt.VarCharType(pt.MAX_LENGTH)))
    t.write(pa.table({"w": ["c"], "key": [2], "v": [None], "n": ["x"]}, schema=t.arrow_schema))
    expected = [{"w": "a", "key": 1, "v": 10, "n": "7"}, {"w": "c", "key": 2, "v": None, "n": "x"}]
    assert sorted(t.read().to_pylist(), key=lambda r: r["key"]) == expected
    out = subprocess.run([str(pypaimon_python), "-c", SCRIPT, str(warehouse)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    names, rows = out.stdout.strip().splitlines()
    assert eval(names) == ["w", "key", "v", "n"]
    assert eval(rows) == expected
