"""compact_database and purge_files (Paimon's procedures)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from paimon_sql import Catalog
from paimon_sql.procedures import call_procedure

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def _kinds(catalog: Catalog, name: str) -> list[str]:
    t = catalog.get_table(name)
    return [t.store.snapshots.snapshot(s).commit_kind for s in t.snapshot_ids()]  # type: ignore[union-attr]


def test_compact_database_patterns(catalog: Catalog) -> None:
    catalog.create_database("other")
    for name in ("db.a", "db.b", "other.c"):
        t = catalog.create_table(name, SCHEMA, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
        t.write(pa.table({"id": [1], "v": ["x"]}))
        t.write(pa.table({"id": [1], "v": ["y"]}))
    rows = call_procedure(catalog, "compact_database", {"including_databases": "db", "excluding_tables": "db\\.b"}).rows
    assert rows == [("Compact database finished. Success: 1, Failed: 0",)]
    assert _kinds(catalog, "db.a")[-1] == "COMPACT"
    assert _kinds(catalog, "db.b")[-1] == "APPEND" and _kinds(catalog, "other.c")[-1] == "APPEND"
    rows = call_procedure(catalog, "compact_database", {"including_tables": ".*\\.[bc]"}).rows
    assert rows == [("Compact database finished. Success: 2, Failed: 0",)]
    assert _kinds(catalog, "other.c")[-1] == "COMPACT"


def test_purge_files_leaves_an_empty_table(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    for i in range(3):
        t.write(pa.table({"id": [i], "v": [str(i)]}))
    t.create_tag("t1", 1)
    t.create_branch("b", tag="t1")
    t.reset_consumer("c", 1)
    assert call_procedure(catalog, "purge_files", {"table": "db.t"}).rows == [("Success",)]
    t = catalog.get_table("db.t")
    assert t.read().num_rows == 0  # type: ignore[union-attr]
    assert len(t.snapshot_ids()) == 1 and t.store.tags.tag_names() == [] and t.branches() == []  # type: ignore[union-attr]
    assert not list(Path(t.path).rglob("data-*"))  # type: ignore[union-attr]
    t.write(pa.table({"id": [9], "v": ["again"]}))  # type: ignore[union-attr]
    assert catalog.get_table("db.t").read().num_rows == 1  # type: ignore[union-attr]
