"""System tables of the tables Apache Paimon (Java) wrote: every one reads, and its values agree with
what the table's metadata files and data files hold. The corpus is only read here."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as paorc
import pyarrow.parquet as pq
import pytest

from paimon_sql import Catalog
from paimon_sql.table.system import SYSTEM_TABLES, SystemTable

EXPECTED = Path(__file__).parent.parent / "fixtures" / "corpus"
CORPUS = Path(os.environ.get("PAIMON_JAVA_CORPUS", "/work/shared/fixtures/java-corpus"))
JAVA_WRITTEN = Path(os.environ.get("PAIMON_JAVA_WRITTEN", "/work/shared/fixtures/java-written"))


def _tables() -> list[Any]:
    out = []
    if not CORPUS.is_dir():
        return out
    for fmt in sorted(os.listdir(CORPUS)):
        if not (CORPUS / fmt).is_dir():
            continue
        for db in sorted(os.listdir(CORPUS / fmt)):
            if db.endswith(".db"):
                out.append(pytest.param(fmt, db[:-3], id=f"{fmt}/{db[:-3]}"))
    return out


TABLES = _tables()


def _cat(fmt: str) -> Catalog:
    return Catalog(str(CORPUS / fmt))


def _st(cat: Catalog, name: str) -> SystemTable:
    t = cat.get_table(name)
    assert isinstance(t, SystemTable)
    return t


def _epoch(ms: int) -> dt.datetime:
    return dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)


@pytest.mark.skipif(not TABLES, reason="Java corpus not found")
@pytest.mark.parametrize(("fmt", "name"), TABLES)
def test_corpus_system_tables(fmt: str, name: str) -> None:
    cat = _cat(fmt)
    ident = f"{name}.{name}"
    table_dir = CORPUS / fmt / f"{name}.db" / name
    results = {s: _st(cat, f"{ident}${s}").read() for s in SYSTEM_TABLES}
    for s, r in results.items():
        assert r.schema == _st(cat, f"{ident}${s}").arrow_schema, s

    # $snapshots: one row per snapshot file, with its values
    snap_files = sorted(int(p.name.split("-")[1]) for p in (table_dir / "snapshot").glob("snapshot-*"))
    snaps = results["snapshots"].to_pylist()
    assert [r["snapshot_id"] for r in snaps] == snap_files
    for r in snaps:
        raw = json.loads((table_dir / "snapshot" / f"snapshot-{r['snapshot_id']}").read_text())
        assert r["schema_id"] == raw["schemaId"] and r["commit_kind"] == raw["commitKind"]
        assert r["commit_time"] == _epoch(raw["timeMillis"])
        assert r["total_record_count"] == raw.get("totalRecordCount")
        assert r["changelog_manifest_list"] == raw.get("changelogManifestList")

    # $schemas: the schema files' fields and keys
    for r in results["schemas"].to_pylist():
        raw = json.loads((table_dir / "schema" / f"schema-{r['schema_id']}").read_text())
        assert json.loads(r["fields"]) == raw["fields"]
        assert json.loads(r["partition_keys"]) == raw["partitionKeys"]
        assert json.loads(r["primary_keys"]) == raw["primaryKeys"]
        assert set(json.loads(r["options"]).items()) >= set(raw["options"].items())

    # $files / $partitions / $buckets agree with the latest snapshot's record count and the disk
    files = results["files"].to_pylist()
    latest = json.loads((table_dir / "snapshot" / f"snapshot-{snap_files[-1]}").read_text()) if snap_files else None
    total = sum(f["record_count"] for f in files)
    if latest is not None and latest.get("totalRecordCount") is not None:
        assert total == latest["totalRecordCount"]
    for f in files:
        assert os.path.getsize(f["file_path"]) == f["file_size_in_bytes"], f["file_path"]
        assert f["file_format"] == f["file_path"].rsplit(".", 1)[1]
    assert sum(results["partitions"]["record_count"].to_pylist()) == total
    assert sum(results["buckets"]["record_count"].to_pylist()) == total
    assert sum(results["partitions"]["file_count"].to_pylist()) == len(files)
    assert sum(results["buckets"]["file_count"].to_pylist()) == len(files)

    # $manifests: files that exist, with their sizes
    for m in results["manifests"].to_pylist():
        assert (table_dir / "manifest" / m["file_name"]).stat().st_size == m["file_size"]

    # $branches: the branch folders
    branch_dir = table_dir / "branch"
    expected_branches = sorted(p.name[len("branch-"):] for p in branch_dir.glob("branch-*")) if branch_dir.is_dir() else []
    assert results["branches"]["branch_name"].to_pylist() == expected_branches


def _read_file(path: str) -> pa.Table:
    return pq.read_table(path) if path.endswith(".parquet") else paorc.ORCFile(path).read()


def _java_int_bound(v: object) -> str:
    return "null" if v is None else str(v)


@pytest.mark.skipif(not TABLES, reason="Java corpus not found")
@pytest.mark.parametrize(("fmt", "name"), [p for p in TABLES if p.values[1] in (
    "append_10", "append_09", "parquet_append_table", "multi_partition_append_table", "append_with_bloomfilter",
    "append_with_empty_partition",
)])
def test_corpus_value_stats_match_the_data(fmt: str, name: str) -> None:
    """Integer and short-string bounds and null counts of append files equal what the files hold."""
    cat = _cat(fmt)
    data_table = cat.get_table(f"{name}.{name}")
    fields = {f.name: f for f in data_table.schema.fields}
    files = _st(cat, f"{name}.{name}$files").read().to_pylist()
    assert files
    checked = 0
    for f in files:
        if f["schema_id"] != data_table.schema.id:
            continue
        data = _read_file(f["file_path"])
        nulls = _parse_map(f["null_value_counts"])
        mins, maxs = _parse_map(f["min_value_stats"]), _parse_map(f["max_value_stats"])
        for col in data.column_names:
            if col not in fields or col in data_table.schema.partition_keys:
                continue
            t = data[col].type
            if pa.types.is_integer(t) or (pa.types.is_string(t) and
                                          all(len(v) <= 16 for v in data[col].to_pylist() if v is not None)):
                mm = pc.min_max(data[col]).as_py()
                assert mins[col] == _java_int_bound(mm["min"]), (f["file_path"], col)
                assert maxs[col] == _java_int_bound(mm["max"]), (f["file_path"], col)
                assert nulls[col] == str(data[col].null_count)
                checked += 1
    assert checked


def _parse_map(text: str) -> dict[str, str]:
    assert text.startswith("{") and text.endswith("}")
    out = {}
    for part in text[1:-1].split(", "):
        if part:
            k, v = part.split("=", 1)
            out[k] = v
    return out


@pytest.mark.skipif(not TABLES, reason="Java corpus not found")
@pytest.mark.parametrize(("fmt", "name"), [p for p in TABLES if "dv" in p.values[1]])
def test_corpus_deletion_vectors_counted(fmt: str, name: str) -> None:
    """Rows a batch read returns = rows of the level > 0 files - rows their deletion vectors delete."""
    doc_path = EXPECTED / fmt / f"{name}.json"
    if not doc_path.exists():
        pytest.skip("no expectation")
    doc = json.loads(doc_path.read_text())
    cat = _cat(fmt)
    files = _st(cat, f"{name}.{name}$files").read(columns=["level", "record_count"]).to_pylist()
    deleted = _st(cat, f"{name}.{name}$partitions").read(columns=["deleted_record_count"]).to_pylist()
    if any(d["deleted_record_count"] is None for d in deleted):
        pytest.skip("a deletion vector without its cardinality")
    visible = sum(f["record_count"] for f in files if f["level"] > 0) - sum(d["deleted_record_count"] for d in deleted)
    assert visible == len(doc["latest"]["rows"])
    assert any(d["deleted_record_count"] for d in deleted) or "cardinality" not in name


def test_branch_fixture_system_tables() -> None:
    if not (CORPUS / "parquet" / "append_table_with_rt_branch.db").is_dir():
        pytest.skip("Java corpus not found")
    cat = _cat("parquet")
    t = "append_table_with_rt_branch"
    main_files = _st(cat, f"{t}.{t}$files").read().to_pylist()
    rt_files = _st(cat, f"{t}.{t}$branch_rt$files").read().to_pylist()
    # main: the append table's two rows; rt: the primary-key branch, one file per written key
    assert [(f["partition"], f["record_count"], f["min_key"]) for f in main_files] == [("{20240725}", 2, None)]
    assert sorted((f["partition"], f["bucket"], f["min_key"]) for f in rt_files) == [
        ("{20240725}", 0, "[apple]"), ("{20240725}", 1, "[peach]"),
        ("{20240726}", 0, "[cherry]"), ("{20240726}", 1, "[pear]"),
    ]
    assert _st(cat, f"{t}.{t}$branch_rt$options").read().to_pydict() == {
        "key": ["bucket", "manifest.format", "file.format"], "value": ["2", "avro", "parquet"],
    }
    assert _st(cat, f"{t}.{t}$branches").read()["branch_name"].to_pylist() == ["rt"]
    schemas = _st(cat, f"{t}.{t}$branch_rt$schemas").read().to_pylist()
    assert json.loads(schemas[1]["primary_keys"]) == ["dt", "name"]


def test_java_written_compaction_tables() -> None:
    if not JAVA_WRITTEN.is_dir():
        pytest.skip("Java-written fixtures not found")
    cat = Catalog(str(JAVA_WRITTEN))
    t = "default.test_pk_full_text_golden"
    snaps = _st(cat, f"{t}$snapshots").read(columns=["snapshot_id", "commit_kind"]).to_pylist()
    assert [s["commit_kind"] for s in snaps] == ["APPEND", "COMPACT"] * 4
    files = _st(cat, f"{t}$files").read().to_pylist()
    assert sorted((f["level"], f["file_source"]) for f in files) == [(1, "APPEND"), (2, "COMPACT")]
    for sid in range(1, 9):
        at = _st(cat, f"{t}$files").read(snapshot_id=sid)
        expected = (JAVA_WRITTEN / "expected" / f"test_pk_full_text_golden.snapshot-{sid}.jsonl").read_text()
        count = int(expected.strip().rsplit("count=", 1)[1])
        rows = sum(r for lvl, r in zip(at["level"].to_pylist(), at["record_count"].to_pylist()) if lvl > 0)
        deleted = sum(x or 0 for x in _st(cat, f"{t}$partitions").read(snapshot_id=sid)["deleted_record_count"].to_pylist())
        assert rows - deleted == count, sid
