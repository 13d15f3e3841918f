"""``t$audit_log`` and ``t$binlog``: Paimon's AuditLogTableTest / BinlogTableTest /
IncrementalTableTest.testAuditLog cases (statements and expected rows), time travel, incremental
reads, filters, the sequence-number option and bad input."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.table.system import SYSTEM_TABLES, AuditLogTable, BinlogTable
from paimon_sql.table.table import Table

INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE = 0, 1, 2, 3
SCHEMA = pa.schema([("pk", pa.int32()), ("pt", pa.int32()), ("col1", pa.int32())])


def write(t: Table, kind: int, *rows: tuple[int, int, int]) -> None:
    """One commit of ``rows`` with row kind ``kind`` (Paimon's write(table, GenericRow.ofKind(...)))."""
    w = t.new_write()
    w.write(pa.table({n: pa.array([r[i] for r in rows], pa.int32()) for i, n in enumerate(SCHEMA.names)}), kind=kind)
    t.commit_changes([w.prepare_commit()])


def sorted_rows(t: pa.Table) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in t.to_pylist())


def audit_table(catalog: Catalog, name: str, **options: str) -> Table:
    """AuditLogTableTest.createAuditLogTable + writeTestData."""
    t = catalog.create_table(f"db.{name}", SCHEMA, primary_keys=["pk", "pt"], partition_keys=["pt"],
                             options={"bucket": "1", **options})
    write(t, INSERT, (1, 1, 1))
    write(t, DELETE, (1, 1, 1))
    write(t, INSERT, (1, 2, 5))
    write(t, UPDATE_BEFORE, (1, 2, 5))
    write(t, UPDATE_AFTER, (1, 2, 6))
    write(t, INSERT, (2, 3, 1))
    return t


def test_registered() -> None:
    assert SYSTEM_TABLES["audit_log"] is AuditLogTable
    assert SYSTEM_TABLES["binlog"] is BinlogTable


def test_read_audit_log_from_latest(catalog: Catalog) -> None:
    """AuditLogTableTest.testReadAuditLogFromLatest: the -D of a key not compacted away stays."""
    audit_table(catalog, "a", **{"write-only": "true"})
    a = catalog.get_table("db.a$audit_log")
    assert [f.name for f in a.fields] == ["rowkind", "pk", "pt", "col1"]
    assert a.arrow_schema == pa.schema([pa.field("rowkind", pa.string()), pa.field("pk", pa.int32(), False),
                                        pa.field("pt", pa.int32(), False), pa.field("col1", pa.int32())])
    got = a.read()
    assert got.schema == a.arrow_schema
    assert sorted_rows(got) == [("+I", 2, 3, 1), ("+U", 1, 2, 6), ("-D", 1, 1, 1)]
    # projection and filters, also on rowkind
    assert sorted_rows(a.read(["col1", "rowkind"], "rowkind = '-D' OR pt = 3")) == [(1, "+I"), (1, "-D")]
    assert sorted_rows(a.read(["pk"], "pt = 2")) == [(1,)]


def test_full_compaction_drops_deletes(catalog: Catalog) -> None:
    t = audit_table(catalog, "c", **{"write-only": "true"})
    t.compact()
    assert sorted_rows(catalog.get_table("db.c$audit_log").read()) == [("+I", 2, 3, 1), ("+U", 1, 2, 6)]


def test_sequence_number(catalog: Catalog) -> None:
    """AuditLogTableTest.testReadSequenceNumberWithTableOption / WithAlterTable."""
    t = audit_table(catalog, "s", **{"write-only": "true", "table-read.sequence-number.enabled": "true"})
    a = catalog.get_table("db.s$audit_log")
    assert [f.name for f in a.fields] == ["rowkind", "_SEQUENCE_NUMBER", "pk", "pt", "col1"]
    assert a.arrow_schema.field("_SEQUENCE_NUMBER") == pa.field("_SEQUENCE_NUMBER", pa.int64(), False)
    expected = [("+I", 0, 2, 3, 1), ("+U", 2, 1, 2, 6), ("-D", 1, 1, 1, 1)]
    assert sorted_rows(a.read()) == expected
    assert t.read().column_names == ["pk", "pt", "col1"]  # the table itself does not change
    # set by ALTER TABLE on a table without it
    u = audit_table(catalog, "s2", **{"write-only": "true"})
    assert [f.name for f in catalog.get_table("db.s2$audit_log").fields] == ["rowkind", "pk", "pt", "col1"]
    u.alter(set_options={"table-read.sequence-number.enabled": "true"})
    assert sorted_rows(catalog.get_table("db.s2$audit_log").read()) == expected
    # not as a dynamic option of the audit log (Paimon: "not supported by hint")
    with pytest.raises(UnsupportedError, match="not supported by hint"):
        catalog.get_table("db.s2$audit_log").copy({"table-read.sequence-number.enabled": "true"})
    # append tables have no sequence numbers
    v = catalog.create_table("db.app", SCHEMA, options={"table-read.sequence-number.enabled": "true"})
    v.write(pa.table({n: pa.array([1], pa.int32()) for n in SCHEMA.names}))
    with pytest.raises(UnsupportedError, match="primary-key"):
        catalog.get_table("db.app$audit_log").read()


def test_incremental_audit_log(catalog: Catalog) -> None:
    """IncrementalTableTest.testAuditLog: the records of snapshots 2..3 with their own kinds."""
    t = catalog.create_table("db.i", SCHEMA, primary_keys=["pk", "pt"], partition_keys=["pt"],
                             options={"bucket": "1", "write-only": "true"})
    write(t, INSERT, (1, 1, 1), (2, 1, 1), (3, 1, 1), (1, 2, 1))
    w = t.new_write()
    w.write(pa.table({"pk": pa.array([1, 2], pa.int32()), "pt": pa.array([1, 1], pa.int32()),
                      "col1": pa.array([1, 1], pa.int32())}), kind=DELETE)
    w.write(pa.table({"pk": pa.array([4, 1], pa.int32()), "pt": pa.array([1, 2], pa.int32()),
                      "col1": pa.array([1, 2], pa.int32())}), kind=INSERT)
    t.commit_changes([w.prepare_commit()])
    w = t.new_write()
    w.write(pa.table({"pk": pa.array([3], pa.int32()), "pt": pa.array([1], pa.int32()),
                      "col1": pa.array([1], pa.int32())}), kind=DELETE)
    w.write(pa.table({"pk": pa.array([1, 1, 2], pa.int32()), "pt": pa.array([1, 2, 2], pa.int32()),
                      "col1": pa.array([2, 3, 1], pa.int32())}), kind=INSERT)
    t.commit_changes([w.prepare_commit()])
    expected = sorted([("-D", 1, 1, 1), ("-D", 2, 1, 1), ("+I", 4, 1, 1), ("+I", 1, 2, 2),
                       ("-D", 3, 1, 1), ("+I", 1, 1, 2), ("+I", 1, 2, 3), ("+I", 2, 2, 1)])
    a = catalog.get_table("db.i$audit_log")
    assert sorted_rows(a.copy({"incremental-between": "1,3"}).read()) == expected
    assert sorted_rows(a.read(incremental_between=(1, 3))) == expected
    assert sorted_rows(a.read(["rowkind", "pk"], "rowkind = '-D'", incremental_between=(1, 3))) == [
        ("-D", 1), ("-D", 2), ("-D", 3)]


def test_time_travel(catalog: Catalog) -> None:
    audit_table(catalog, "tt", **{"write-only": "true"})
    a = catalog.get_table("db.tt$audit_log")
    assert sorted_rows(a.read(snapshot_id=1)) == [("+I", 1, 1, 1)]
    assert sorted_rows(a.read(snapshot_id=2)) == [("-D", 1, 1, 1)]


def test_binlog(catalog: Catalog) -> None:
    """BinlogTableTest: every column an array; a batch read gives [value], a delta read packs a
    -U with the record after it into [before, after] of the +U's kind."""
    t = catalog.create_table("db.b", SCHEMA, primary_keys=["pk", "pt"], partition_keys=["pt"],
                             options={"bucket": "1", "write-only": "true"})
    write(t, INSERT, (1, 1, 1))
    w = t.new_write()
    w.write(pa.table({"pk": pa.array([1], pa.int32()), "pt": pa.array([1], pa.int32()),
                      "col1": pa.array([1], pa.int32())}), kind=UPDATE_BEFORE)
    t.commit_changes([w.prepare_commit()])
    write(t, UPDATE_AFTER, (1, 1, 3))
    write(t, INSERT, (2, 1, 2))
    b = catalog.get_table("db.b$binlog")
    assert [f.name for f in b.fields] == ["rowkind", "pk", "pt", "col1"]
    assert b.arrow_schema.field("col1").type == pa.list_(pa.field("element", pa.int32()))
    got = b.read()
    assert got.schema == b.arrow_schema
    assert sorted_rows(got) == [("+I", [2], [1], [2]), ("+U", [1], [1], [3])]
    # delta of snapshots 2..4: -U (1,1,1) then +U (1,1,3) in sequence order in the bucket
    inc = b.read(incremental_between=(1, 4))
    assert sorted_rows(inc) == [("+I", [2], [1], [2]), ("+U", [1, 1], [1, 1], [1, 3])]
    assert sorted_rows(b.read(["rowkind", "col1"], incremental_between=(1, 3))) == [("+U", [1, 3])]


def test_bad_input(catalog: Catalog) -> None:
    audit_table(catalog, "bad", **{"write-only": "true"})
    a = catalog.get_table("db.bad$audit_log")
    with pytest.raises(ValidationError, match="nope"):
        a.read(["nope"])
    with pytest.raises(ValidationError, match="incremental-between"):
        a.copy({"incremental-between": "1"}).read()
    with pytest.raises(ValidationError, match="time travel"):
        a.read(snapshot_id=1, incremental_between=(1, 2))
