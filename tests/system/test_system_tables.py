"""System tables over tables written by paimon_sql: columns as Paimon declares them, values checked
against what the table's files and metadata hold."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import NotFoundError, TableNotFoundError, UnsupportedError, ValidationError
from paimon_sql.ops.tags import create_tag
from paimon_sql.table.system import SYSTEM_TABLES, SystemTable
from paimon_sql.table.system._format import java_hash_map_order

# Paimon's TABLE_TYPE of every system table (org.apache.paimon.table.system.*Table), as type strings.
PAIMON_COLUMNS = {
    "table_indexes": [
        "partition STRING", "bucket INT NOT NULL", "index_type STRING NOT NULL", "file_name STRING NOT NULL",
        "file_size BIGINT NOT NULL", "row_count BIGINT NOT NULL",
        "dv_ranges ARRAY<ROW<`f0` STRING NOT NULL, `f1` INT NOT NULL, `f2` INT NOT NULL, `_CARDINALITY` BIGINT>>",
        "row_range_start BIGINT", "row_range_end BIGINT", "index_field_id INT", "index_field_name STRING",
    ],
    "aggregation_fields": [
        "field_name STRING NOT NULL", "field_type STRING NOT NULL", "function STRING", "function_options STRING",
        "comment STRING",
    ],
    "snapshots": [
        "snapshot_id BIGINT NOT NULL", "schema_id BIGINT NOT NULL", "commit_user STRING NOT NULL",
        "commit_identifier BIGINT NOT NULL", "commit_kind STRING NOT NULL", "commit_time TIMESTAMP(3) NOT NULL",
        "base_manifest_list STRING NOT NULL", "delta_manifest_list STRING NOT NULL",
        "changelog_manifest_list STRING", "total_record_count BIGINT", "delta_record_count BIGINT",
        "changelog_record_count BIGINT", "watermark BIGINT", "next_row_id BIGINT", "operation STRING",
        "writer_version STRING",
    ],
    "schemas": [
        "schema_id BIGINT NOT NULL", "fields STRING NOT NULL", "partition_keys STRING NOT NULL",
        "primary_keys STRING NOT NULL", "options STRING NOT NULL", "comment STRING",
        "update_time TIMESTAMP(3) NOT NULL",
    ],
    "options": ["key STRING NOT NULL", "value STRING NOT NULL"],
    "files": [
        "partition STRING", "bucket INT NOT NULL", "file_path STRING NOT NULL", "file_format STRING NOT NULL",
        "schema_id BIGINT NOT NULL", "level INT NOT NULL", "record_count BIGINT NOT NULL",
        "file_size_in_bytes BIGINT NOT NULL", "min_key STRING", "max_key STRING",
        "null_value_counts STRING NOT NULL", "min_value_stats STRING NOT NULL", "max_value_stats STRING NOT NULL",
        "min_sequence_number BIGINT", "max_sequence_number BIGINT", "creation_time TIMESTAMP(3)",
        "deleteRowCount BIGINT", "file_source STRING", "first_row_id BIGINT", "write_cols ARRAY<STRING>",
    ],
    "manifests": [
        "file_name STRING NOT NULL", "file_size BIGINT NOT NULL", "num_added_files BIGINT NOT NULL",
        "num_deleted_files BIGINT NOT NULL", "schema_id BIGINT NOT NULL", "min_partition_stats STRING",
        "max_partition_stats STRING", "min_row_id BIGINT", "max_row_id BIGINT",
    ],
    "partitions": [
        "partition STRING", "record_count BIGINT NOT NULL", "file_size_in_bytes BIGINT NOT NULL",
        "file_count BIGINT NOT NULL", "last_update_time TIMESTAMP(3)", "created_at TIMESTAMP(3)",
        "created_by STRING", "updated_by STRING", "options STRING", "total_buckets INT NOT NULL",
        "done BOOLEAN NOT NULL", "deleted_record_count BIGINT",
    ],
    "buckets": [
        "partition STRING", "bucket INT NOT NULL", "record_count BIGINT NOT NULL",
        "file_size_in_bytes BIGINT NOT NULL", "file_count BIGINT NOT NULL", "last_update_time TIMESTAMP(3)",
    ],
    "tags": [
        "tag_name STRING NOT NULL", "snapshot_id BIGINT NOT NULL", "schema_id BIGINT NOT NULL",
        "commit_time TIMESTAMP(3) NOT NULL", "record_count BIGINT", "create_time TIMESTAMP(3)",
        "time_retained STRING",
    ],
    "branches": ["branch_name STRING NOT NULL", "create_time TIMESTAMP(3) NOT NULL"],
    "consumers": ["consumer_id STRING NOT NULL", "next_snapshot_id BIGINT NOT NULL"],
}

ARROW_OF = {"STRING": pa.string(), "BIGINT": pa.int64(), "INT": pa.int32(), "TIMESTAMP(3)": pa.timestamp("ms"),
            "BOOLEAN": pa.bool_(), "ARRAY<STRING>": pa.list_(pa.string()),
            "ARRAY<ROW<`f0` STRING, `f1` INT, `f2` INT, `_CARDINALITY` BIGINT>>": pa.list_(pa.struct([
                pa.field("f0", pa.string(), False), pa.field("f1", pa.int32(), False),
                pa.field("f2", pa.int32(), False), pa.field("_CARDINALITY", pa.int64())]))}


def _st(cat: Catalog, name: str) -> SystemTable:
    t = cat.get_table(name)
    assert isinstance(t, SystemTable)
    return t


@pytest.fixture()
def parted(catalog: Catalog):  # type: ignore[no-untyped-def]
    t = catalog.create_table(
        "db.p",
        pa.schema([("id", pa.int64()), ("name", pa.string()), ("dt", pa.date32()), ("x", pa.float64())]),
        partition_keys=["dt"],
    )
    t.write(pa.table({"id": [1, 2, 3], "name": ["a", "b", None], "dt": [dt.date(2024, 1, 1)] * 2 + [dt.date(2024, 1, 2)],
                      "x": [1.5, 1e10, None]}))
    t.write(pa.table({"id": [4], "name": ["z"], "dt": [dt.date(2024, 1, 2)], "x": [0.0001]}))
    return t


@pytest.fixture()
def pk(catalog: Catalog):  # type: ignore[no-untyped-def]
    t = catalog.create_table(
        "db.pk", pa.schema([("k", pa.int32()), ("v", pa.string()), ("ts", pa.timestamp("ms"))]),
        primary_keys=["k"], options={"bucket": "2"},
    )
    t.write(pa.table({"k": pa.array([1, 2, 3], pa.int32()), "v": ["x", "y", "z"],
                      "ts": pa.array([0, 1000, 1700000000123], pa.timestamp("ms"))}))
    t.write(pa.table({"k": pa.array([2], pa.int32()), "v": ["y2"], "ts": pa.array([5], pa.timestamp("ms"))}))
    return t


# ----------------------------------------------------------------------------------------------
# Schemas and the catalog
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PAIMON_COLUMNS))
def test_columns_are_paimons(catalog: Catalog, parted, name: str) -> None:  # type: ignore[no-untyped-def]
    st = _st(catalog, f"db.p${name}")
    assert [f"{f.name} {f.type.to_string()}" for f in st.fields] == PAIMON_COLUMNS[name]
    expected = []
    for col in PAIMON_COLUMNS[name]:
        cname, rest = col.split(" ", 1)
        tname = rest.replace(" NOT NULL", "")
        expected.append(pa.field(cname, ARROW_OF[tname], nullable=not rest.endswith("NOT NULL")))
    assert st.arrow_schema == pa.schema(expected)
    result = st.read()
    assert result.schema == st.arrow_schema
    assert st.name == f"db.p${name}"


def test_registry_holds_paimons_tables() -> None:
    # $ro, $audit_log and $binlog have the data table's columns (tests/system/test_read_optimized.py,
    # tests/system/test_audit_log.py)
    assert sorted(set(SYSTEM_TABLES) - {"ro", "audit_log", "binlog"}) == sorted(PAIMON_COLUMNS)


def test_unknown_system_table(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFoundError) as e:
        catalog.get_table("db.p$nope")
    assert "db.p$nope" in str(e.value) and "snapshots" in str(e.value) and "files" in str(e.value)
    with pytest.raises(UnsupportedError, match="statistics"):
        catalog.get_table("db.p$statistics")
    with pytest.raises(TableNotFoundError, match="db.missing"):
        catalog.get_table("db.missing$files")
    with pytest.raises(NotFoundError, match="Branch 'b'"):
        catalog.get_table("db.p$branch_b$files")
    # names are case-insensitive, like Paimon's SystemTableLoader
    assert _st(catalog, "db.p$SNAPSHOTS").read().num_rows == 2


def test_columns_and_filter(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    st = _st(catalog, "db.p$files")
    out = st.read(columns=["RECORD_COUNT", "partition"])
    assert out.column_names == ["record_count", "partition"]
    out = st.read(columns=["record_count"], filter="partition = '{2024-01-02}'")
    assert sorted(out["record_count"].to_pylist()) == [1, 1]
    assert st.read(filter="bucket = 1").num_rows == 0
    assert st.read(columns=[]).num_rows == 3
    with pytest.raises(ValidationError, match="nope"):
        st.read(columns=["nope"])
    with pytest.raises(ValidationError):
        st.read(filter="nope = 1")
    with pytest.raises(ValidationError, match="at most one"):
        st.read(snapshot_id=1, tag="x")


# ----------------------------------------------------------------------------------------------
# snapshots, schemas, options
# ----------------------------------------------------------------------------------------------


def test_snapshots(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    rows = _st(catalog, "db.p$snapshots").read().to_pylist()
    assert [r["snapshot_id"] for r in rows] == [1, 2]
    for r in rows:
        raw = json.loads(Path(parted.path, "snapshot", f"snapshot-{r['snapshot_id']}").read_text())
        assert r["schema_id"] == raw["schemaId"]
        assert r["commit_user"] == raw["commitUser"]
        assert r["commit_identifier"] == raw["commitIdentifier"]
        assert r["commit_kind"] == raw["commitKind"] == "APPEND"
        assert r["commit_time"] == dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=raw["timeMillis"])
        assert r["base_manifest_list"] == raw["baseManifestList"]
        assert r["delta_manifest_list"] == raw["deltaManifestList"]
        assert r["total_record_count"] == raw["totalRecordCount"]
        assert r["delta_record_count"] == raw["deltaRecordCount"]
    assert [r["total_record_count"] for r in rows] == [3, 4]
    assert [r["delta_record_count"] for r in rows] == [3, 1]
    st = _st(catalog, "db.p$snapshots")
    assert st.read(columns=["snapshot_id"], filter="snapshot_id > 1")["snapshot_id"].to_pylist() == [2]
    assert st.read(columns=["snapshot_id"], filter="snapshot_id IN (1, 7)")["snapshot_id"].to_pylist() == [1]


def test_snapshot_filter_reads_only_the_asked_snapshot(catalog: Catalog, parted, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    st = _st(catalog, "db.p$snapshots")
    sm = st.table.store.snapshots
    seen: list[int] = []
    original = type(sm).snapshot

    def spy(self, sid):  # type: ignore[no-untyped-def]
        seen.append(sid)
        return original(self, sid)

    monkeypatch.setattr(type(sm), "snapshot", spy)
    assert st.read(filter="snapshot_id = 2").num_rows == 1
    assert seen == [2]


def test_schemas_and_options(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    opts = {"target-file-size": "3 mb", "manifest.format": "avro", "read.batch-size": "9",
            "write-only": "true", "file.format": "parquet", "snapshot.num-retained.max": "50"}
    parted.alter(set_options=opts, add_columns=[pa.field("w", pa.int32())]).alter(rename_columns={"w": "w2"})
    rows = _st(catalog, "db.p$schemas").read().to_pylist()
    assert [r["schema_id"] for r in rows] == [0, 1, 2]
    for r in rows:
        raw = json.loads(Path(parted.path, "schema", f"schema-{r['schema_id']}").read_text())
        assert json.loads(r["fields"]) == raw["fields"]
        assert r["fields"] == json.dumps(raw["fields"], separators=(",", ":"))
        assert r["partition_keys"] == '["dt"]' and r["primary_keys"] == "[]"
        assert json.loads(r["options"]) == raw["options"]
        assert list(json.loads(r["options"])) == java_hash_map_order(raw["options"])
        assert r["update_time"] == dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=raw["timeMillis"])
    assert json.loads(rows[2]["fields"])[-1] == {"id": 4, "name": "w2", "type": "INT"}
    options = _st(catalog, "db.p$options").read().to_pylist()
    assert {r["key"]: r["value"] for r in options} == opts
    assert [r["key"] for r in options] == java_hash_map_order(opts)
    assert _st(catalog, "db.p$schemas").read(filter="schema_id = 1").num_rows == 1


def test_branch_system_tables(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    # a branch made by hand, as Paimon's createBranch(name, tag) lays it out
    create_tag(parted.store, "t1", 1)
    branch = Path(parted.path, "branch", "branch-b")
    (branch / "schema").mkdir(parents=True)
    (branch / "snapshot").mkdir()
    (branch / "tag").mkdir()
    Path(branch, "schema", "schema-0").write_text(Path(parted.path, "schema", "schema-0").read_text())
    tag_text = Path(parted.path, "tag", "tag-t1").read_text()
    Path(branch, "snapshot", "snapshot-1").write_text(tag_text)
    Path(branch, "tag", "tag-t1").write_text(tag_text)
    assert [r["snapshot_id"] for r in _st(catalog, "db.p$branch_b$snapshots").read().to_pylist()] == [1]
    assert _st(catalog, "db.p$branch_b$tags").read()["tag_name"].to_pylist() == ["t1"]
    files = _st(catalog, "db.p$branch_b$files").read()
    assert sum(files["record_count"].to_pylist()) == 3
    branches = _st(catalog, "db.p$branches").read().to_pylist()
    assert [r["branch_name"] for r in branches] == ["b"]
    mtime = os.stat(branch).st_mtime
    assert abs(branches[0]["create_time"] - dt.datetime(1970, 1, 1) - dt.timedelta(seconds=mtime)) < dt.timedelta(seconds=1)
    assert _st(catalog, "db.p$branch_b$branches").read()["branch_name"].to_pylist() == ["b"]
    assert _st(catalog, "db.p$branch_b$files").name == "db.p$branch_b$files"


# ----------------------------------------------------------------------------------------------
# files
# ----------------------------------------------------------------------------------------------


def _java_num(v: object) -> str:
    if isinstance(v, float):
        return {1.5: "1.5", 1e10: "1.0E10", 0.0001: "1.0E-4"}[v]
    return str(v)


def test_files_of_append_table(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    rows = _st(catalog, "db.p$files").read().to_pylist()
    assert len(rows) == 3
    assert [r["partition"] for r in rows] == ["{2024-01-01}", "{2024-01-02}", "{2024-01-02}"]
    for r in rows:
        path = r["file_path"]
        assert os.path.isfile(path)
        assert os.path.getsize(path) == r["file_size_in_bytes"]
        assert r["file_format"] == "parquet" and path.endswith(".parquet")
        assert f"/dt={(dt.date.fromisoformat(r['partition'][1:-1]) - dt.date(1970, 1, 1)).days}/bucket-0/" in path
        data = pq.read_table(path)
        assert data.num_rows == r["record_count"]
        assert r["bucket"] == 0 and r["level"] == 0 and r["schema_id"] == 0
        assert r["min_key"] is None and r["max_key"] is None
        assert r["file_source"] == "APPEND" and r["write_cols"] is None
        assert r["creation_time"] is not None
        # statistics: what the file holds, printed as Java prints Paimon's internal values
        nulls, mins, maxs = [], [], []
        for name in sorted(["dt", "id", "name", "x"]):
            col = data[name] if name != "dt" else None
            if name == "dt":
                days = str((dt.date.fromisoformat(r["partition"][1:-1]) - dt.date(1970, 1, 1)).days)
                nulls.append("dt=0")
                mins.append(f"dt={days}")
                maxs.append(f"dt={days}")
                continue
            assert col is not None
            nulls.append(f"{name}={col.null_count}")
            mm = pc.min_max(col).as_py()
            mins.append(f"{name}={'null' if mm['min'] is None else _java_num(mm['min'])}")
            maxs.append(f"{name}={'null' if mm['max'] is None else _java_num(mm['max'])}")
        assert r["null_value_counts"] == "{" + ", ".join(nulls) + "}"
        assert r["min_value_stats"] == "{" + ", ".join(mins) + "}"
        assert r["max_value_stats"] == "{" + ", ".join(maxs) + "}"
    assert rows[0]["max_value_stats"] == "{dt=19723, id=2, name=b, x=1.0E10}"


def test_files_of_primary_key_table(catalog: Catalog, pk) -> None:  # type: ignore[no-untyped-def]
    rows = _st(catalog, "db.pk$files").read().to_pylist()
    assert [(r["partition"], r["bucket"]) for r in rows] == sorted((r["partition"], r["bucket"]) for r in rows)
    assert all(r["partition"] == "{}" for r in rows)
    assert sum(r["record_count"] for r in rows) == 4
    for r in rows:
        data = pq.read_table(r["file_path"])
        keys = data["_KEY_k"].to_pylist()
        assert r["min_key"] == f"[{min(keys)}]" and r["max_key"] == f"[{max(keys)}]"
        assert r["min_sequence_number"] == min(data["_SEQUENCE_NUMBER"].to_pylist())
        assert r["max_sequence_number"] == max(data["_SEQUENCE_NUMBER"].to_pylist())
    by_key = {r["min_key"]: r for r in rows if r["min_key"] == r["max_key"]}
    # a TIMESTAMP bound prints as LocalDateTime.toString()
    assert "ts=2023-11-14T22:13:20.123" in by_key["[3]"]["min_value_stats"]
    assert any("ts=1970-01-01T00:00, " in r["min_value_stats"] for r in rows)


def test_files_time_travel(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    st = _st(catalog, "db.p$files")
    assert st.read(snapshot_id=1).num_rows == 2
    assert st.read().num_rows == 3
    create_tag(parted.store, "first", 1)
    assert sorted(st.read(tag="first")["record_count"].to_pylist()) == [1, 2]
    t1 = parted.snapshot(1).time_millis
    assert st.read(timestamp_ms=t1).num_rows == 2
    with pytest.raises(NotFoundError, match="Snapshot 9"):
        st.read(snapshot_id=9)
    with pytest.raises(NotFoundError, match="nope"):
        st.read(tag="nope")
    with pytest.raises(NotFoundError):
        st.read(timestamp_ms=1)
    # time travel is ignored by the tables Paimon ignores it for
    assert _st(catalog, "db.p$snapshots").read(snapshot_id=1).num_rows == 2


def test_files_after_schema_evolution_and_rewrite(catalog: Catalog) -> None:
    t = catalog.create_table("db.e", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    t.write(pa.table({"id": [1, 2, 3], "v": ["x", "y", "z"]}))
    t.delete("id = 2")  # rewrites the file: the old one leaves the table
    t = t.alter(add_columns=[pa.field("w", pa.int32())])
    t.write(pa.table({"id": [9], "v": ["q"], "w": pa.array([5], pa.int32())}))
    rows = _st(catalog, "db.e$files").read(
        columns=["schema_id", "record_count", "null_value_counts", "min_value_stats", "max_value_stats"]
    ).to_pylist()
    assert rows == [
        {"schema_id": 0, "record_count": 2, "null_value_counts": "{id=0, v=0, w=2}",
         "min_value_stats": "{id=1, v=x, w=null}", "max_value_stats": "{id=3, v=z, w=null}"},
        {"schema_id": 1, "record_count": 1, "null_value_counts": "{id=0, v=0, w=0}",
         "min_value_stats": "{id=9, v=q, w=5}", "max_value_stats": "{id=9, v=q, w=5}"},
    ]
    # the snapshot before the schema change reads with its own schema
    old = _st(catalog, "db.e$files").read(columns=["null_value_counts"], snapshot_id=1).to_pylist()
    assert old == [{"null_value_counts": "{id=0, v=0}"}]


def test_files_type_change_casts_bounds(catalog: Catalog) -> None:
    t = catalog.create_table("db.c", pa.schema([("id", pa.int32()), ("f", pa.float32())]))
    t.write(pa.table({"id": pa.array([1, 5], pa.int32()), "f": pa.array([0.1, 2.5], pa.float32())}))
    before = _st(catalog, "db.c$files").read(columns=["min_value_stats"]).to_pylist()
    assert before == [{"min_value_stats": "{f=0.1, id=1}"}]  # Float.toString
    t.alter(change_types={"id": pa.int64(), "f": pa.float64()})
    rows = _st(catalog, "db.c$files").read(columns=["min_value_stats", "max_value_stats"]).to_pylist()
    # Paimon casts the old bounds to the new types (CastedRow), then prints them: (double) 0.1f
    assert rows == [{"min_value_stats": "{f=0.10000000149011612, id=1}", "max_value_stats": "{f=2.5, id=5}"}]


# ----------------------------------------------------------------------------------------------
# manifests, partitions, buckets
# ----------------------------------------------------------------------------------------------


def test_manifests(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    rows = _st(catalog, "db.p$manifests").read().to_pylist()
    assert [(r["num_added_files"], r["num_deleted_files"]) for r in rows] == [(2, 0), (1, 0)]
    assert [(r["min_partition_stats"], r["max_partition_stats"]) for r in rows] == [
        ("{2024-01-01}", "{2024-01-02}"), ("{2024-01-02}", "{2024-01-02}"),
    ]
    for r in rows:
        path = Path(parted.path, "manifest", r["file_name"])
        assert path.stat().st_size == r["file_size"]
        assert r["schema_id"] == 0 and r["min_row_id"] is None
    assert _st(catalog, "db.p$manifests").read(snapshot_id=1).num_rows == 1


def test_manifests_unpartitioned(catalog: Catalog, pk) -> None:  # type: ignore[no-untyped-def]
    rows = _st(catalog, "db.pk$manifests").read().to_pylist()
    assert {r["min_partition_stats"] for r in rows} == {"{}"}


def test_partitions(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    rows = _st(catalog, "db.p$partitions").read().to_pylist()
    files = _st(catalog, "db.p$files").read().to_pylist()
    assert [r["partition"] for r in rows] == ["dt=2024-01-01", "dt=2024-01-02"]
    data = parted.read()
    for r in rows:
        day = dt.date.fromisoformat(r["partition"].split("=")[1])
        mine = [f for f in files if f["partition"] == "{" + str(day) + "}"]
        assert r["record_count"] == sum(1 for d in data["dt"].to_pylist() if d == day)
        assert r["file_count"] == len(mine)
        assert r["file_size_in_bytes"] == sum(f["file_size_in_bytes"] for f in mine)
        assert r["last_update_time"] == max(f["creation_time"] for f in mine)
        assert r["total_buckets"] == -1 and r["done"] is False and r["deleted_record_count"] == 0
        assert r["created_at"] is None and r["created_by"] is None and r["options"] is None
    assert _st(catalog, "db.p$partitions").read(snapshot_id=1)["record_count"].to_pylist() == [2, 1]


def test_partitions_count_deletes(catalog: Catalog) -> None:
    t = catalog.create_table("db.d", pa.schema([("id", pa.int64()), ("g", pa.string())]), partition_keys=["g"])
    t.write(pa.table({"id": [1, 2, 3, 4], "g": ["a", "a", "b", None]}))
    t.delete("id = 1")
    t.write(pa.table({"id": [5], "g": ["b"]}), overwrite={"g": "b"})
    rows = {r["partition"]: r for r in _st(catalog, "db.d$partitions").read().to_pylist()}
    assert {k: (v["record_count"], v["file_count"]) for k, v in rows.items()} == {
        "g=a": (1, 1), "g=b": (1, 1), "g=__DEFAULT_PARTITION__": (1, 1),
    }
    buckets = _st(catalog, "db.d$buckets").read().to_pylist()
    assert [(b["partition"], b["bucket"], b["record_count"]) for b in buckets] == [
        ("{a}", 0, 1), ("{b}", 0, 1), ("{null}", 0, 1),
    ]


def test_buckets(catalog: Catalog, pk) -> None:  # type: ignore[no-untyped-def]
    rows = _st(catalog, "db.pk$buckets").read().to_pylist()
    files = _st(catalog, "db.pk$files").read().to_pylist()
    assert [r["bucket"] for r in rows] == sorted({f["bucket"] for f in files})
    for r in rows:
        mine = [f for f in files if f["bucket"] == r["bucket"]]
        assert r["partition"] == "{}"
        assert r["record_count"] == sum(f["record_count"] for f in mine)
        assert r["file_count"] == len(mine)
        assert r["file_size_in_bytes"] == sum(f["file_size_in_bytes"] for f in mine)
        assert r["last_update_time"] == max(f["creation_time"] for f in mine)
    part = _st(catalog, "db.pk$partitions").read().to_pylist()
    assert [(p["partition"], p["total_buckets"], p["record_count"]) for p in part] == [("", 2, 4)]


# ----------------------------------------------------------------------------------------------
# tags, consumers
# ----------------------------------------------------------------------------------------------


def test_tags(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    create_tag(parted.store, "b", 1)
    create_tag(parted.store, "a", 2, time_retained_ms=90_061_500)
    after = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    rows = _st(catalog, "db.p$tags").read().to_pylist()
    assert [r["tag_name"] for r in rows] == ["a", "b"]
    a, b = rows
    assert (a["snapshot_id"], a["record_count"], b["snapshot_id"], b["record_count"]) == (2, 4, 1, 3)
    assert a["commit_time"] == dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=parted.snapshot(2).time_millis)
    assert a["time_retained"] == "PT25H1M1.5S"
    assert before - dt.timedelta(milliseconds=1) <= a["create_time"] <= after
    assert b["create_time"] is None and b["time_retained"] is None
    assert _st(catalog, "db.p$tags").read(filter="tag_name = 'b'")["snapshot_id"].to_pylist() == [1]


def test_tags_written_by_java_shapes(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    # tag files as Jackson writes them: LocalDateTime arrays without trailing zeros, Duration seconds
    snap = json.loads(Path(parted.path, "snapshot", "snapshot-1").read_text())
    tag_dir = Path(parted.path, "tag")
    tag_dir.mkdir()
    for name, ct, tr in [("j1", [2024, 5, 6, 7, 8], 3600.0), ("j2", [2024, 5, 6, 7, 8, 9, 120000000], 0.0)]:
        Path(tag_dir, f"tag-{name}").write_text(json.dumps({**snap, "tagCreateTime": ct, "tagTimeRetained": tr}))
    rows = _st(catalog, "db.p$tags").read(columns=["tag_name", "create_time", "time_retained"]).to_pylist()
    assert rows == [
        {"tag_name": "j1", "create_time": dt.datetime(2024, 5, 6, 7, 8), "time_retained": "PT1H"},
        {"tag_name": "j2", "create_time": dt.datetime(2024, 5, 6, 7, 8, 9, 120000), "time_retained": "PT0S"},
    ]


def test_consumers(catalog: Catalog, parted) -> None:  # type: ignore[no-untyped-def]
    folder = Path(parted.path, "consumer")
    folder.mkdir()
    ids = ["flink-job", "b", "a-consumer", "x1"]
    for i, cid in enumerate(ids):
        Path(folder, f"consumer-{cid}").write_text(json.dumps({"nextSnapshot": 10 + i}))
    Path(folder, ".consumer-tmp.crc").write_text("junk")
    rows = _st(catalog, "db.p$consumers").read().to_pylist()
    assert [r["consumer_id"] for r in rows] == java_hash_map_order(ids)
    assert {r["consumer_id"]: r["next_snapshot_id"] for r in rows} == {c: 10 + i for i, c in enumerate(ids)}


def test_empty_table(catalog: Catalog) -> None:
    catalog.create_table("db.empty", pa.schema([("a", pa.int32())]))
    for name in PAIMON_COLUMNS:
        out = _st(catalog, f"db.empty${name}").read()
        expected = {"schemas": 1, "options": 0, "aggregation_fields": 1}.get(name, 0)  # one per column
        assert out.num_rows == expected, name


def test_many_files_are_fast(catalog: Catalog) -> None:
    t = catalog.create_table("db.many", pa.schema([("id", pa.int64()), ("s", pa.string()), ("f", pa.float64())]),
                             partition_keys=["s"])
    n = 300
    t.write(pa.table({"id": list(range(n)), "s": [f"p{i}" for i in range(n)], "f": [i / 7 for i in range(n)]}))
    start = time.perf_counter()
    out = _st(catalog, "db.many$files").read()
    assert out.num_rows == n
    assert time.perf_counter() - start < 5
    row = out.filter(pc.equal(out["partition"], "{p7}")).to_pylist()[0]
    assert row["min_value_stats"] == "{f=1.0, id=7, s=p7}"
