"""Primary-key tables with deletion vectors (merge-on-write): writers move level-0 files up at
once, deleting the older row of every key they rewrite through the bucket's deletion vectors
(one DELETION_VECTORS index file per bucket), so reads merge nothing; deletes, every writable
engine, Java-written deletion-vector tables written on and compacted, and pypaimon reading ours."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.format import deletion_vector
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int64())])
JAVA = Path("/work/shared/fixtures/java-corpus/parquet")


def _rows(t: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r.values()) for r in t.read().to_pylist()), key=lambda r: r[0])


def _dv_entries(t: Any) -> list[Any]:
    return [e for e in t.store.manifests.index_entries(t.latest_snapshot())
            if e.index_file.index_type == INDEX_TYPE_DELETION_VECTORS]


def test_upserts_and_deletes_write_deletion_vectors(catalog: Catalog) -> None:
    catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "deletion-vectors.enabled": "true"})
    ids = list(range(1, 4)) + list(range(100, 400))  # a large first file: the second write stays above it
    catalog.get_table("db.t").write(pa.table({"id": ids, "v": ["a"] * len(ids), "n": [1] * len(ids)}))
    catalog.get_table("db.t").write(pa.table({"id": [2, 4], "v": ["b", "b"], "n": [2, 2]}))
    t = catalog.get_table("db.t")
    assert _rows(t)[:4] == [(1, "a", 1), (2, "b", 2), (3, "a", 1), (4, "b", 2)]
    live = list(t.store.manifests.live_entries(t.latest_snapshot()))
    assert len(live) == 2 and all(e.file.level > 0 for e in live)
    (dv,) = _dv_entries(t)
    ranges = dv.index_file.dv_ranges
    assert len(ranges) == 1 and next(iter(ranges.values())).cardinality == 1  # key 2's old row
    # the vector is the bytes Paimon writes: version byte, length, magic, portable bitmap, crc
    data = Path(t.store.index_file_path(dv.index_file.file_name)).read_bytes()
    r = next(iter(ranges.values()))
    assert data[0] == 1 and deletion_vector.deserialize(data[r.offset:r.offset + r.length + 8]).tolist() == [1]
    t.delete("id in (1, 4)")
    t = catalog.get_table("db.t")
    assert _rows(t)[:2] == [(2, "b", 2), (3, "a", 1)] and len(_rows(t)) == 302
    # a full compaction rewrites the vectors away
    t.compact()
    t = catalog.get_table("db.t")
    assert _rows(t)[:2] == [(2, "b", 2), (3, "a", 1)] and len(_rows(t)) == 302
    assert _dv_entries(t) == []
    assert len(list(t.store.manifests.live_entries(t.latest_snapshot()))) == 1


@pytest.mark.parametrize("opts,expected", [
    ({"merge-engine": "partial-update"}, [(1, "a", 1), (2, "b", 1), (3, "a", 5)]),
    ({"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"}, [(1, "a", 1), (2, "b", 1), (3, "a", 6)]),
], ids=["partial-update", "aggregation"])
def test_engines_merge_the_older_row(catalog: Catalog, opts: dict[str, str], expected: list[Any]) -> None:
    catalog.create_table("db.t", SCHEMA, primary_keys=["id"],
                         options={"bucket": "2", "deletion-vectors.enabled": "true", **opts})
    catalog.get_table("db.t").write(pa.table({"id": [1, 2, 3], "v": ["a"] * 3, "n": [1, 1, 1]}))
    catalog.get_table("db.t").write(pa.table({"id": [2, 3], "v": ["b", None], "n": [None, 5]}, schema=SCHEMA))
    assert _rows(catalog.get_table("db.t")) == expected


def test_write_only_rows_show_after_compaction(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"],
                             options={"bucket": "1", "deletion-vectors.enabled": "true", "write-only": "true"})
    t.write(pa.table({"id": [1], "v": ["a"], "n": [1]}))
    assert t.read().num_rows == 0  # level 0 is skipped by batch reads, as in Paimon
    t.compact(full=False)
    assert _rows(catalog.get_table("db.t")) == [(1, "a", 1)]


@pytest.mark.parametrize("fixture", ["pk_table_scan_and_read_dv.db", "pk_table_with_dv_cardinality.db"])
def test_writing_on_java_deletion_vector_tables(tmp_path: Path, fixture: str) -> None:
    src = JAVA / fixture
    if not src.exists():
        pytest.skip(f"{src} is missing")
    wh = tmp_path / "wh"
    shutil.copytree(src, wh / fixture)
    cat = Catalog(str(wh))
    db = fixture[: -len(".db")]
    (name,) = [n for n in cat.list_tables(db)]
    t = cat.get_table(f"{db}.{name}")
    assert t.store.options.deletion_vectors_enabled and t.store.options.merge_engine == "deduplicate"
    expected = _merge_every_file(t)  # level 0 included: what the table holds once compacted
    t.compact()
    t = cat.get_table(f"{db}.{name}")
    assert sorted(map(repr, t.read().to_pylist())) == sorted(map(repr, expected.to_pylist()))
    assert all(e.file.level > 0 for e in t.store.manifests.live_entries(t.latest_snapshot()))
    # and a write on top merges with Paimon's files and vectors
    row = expected.slice(0, 1)
    t.write(row)
    assert cat.get_table(f"{db}.{name}").read().num_rows == expected.num_rows


def _merge_every_file(t: Any) -> pa.Table:
    """The newest live record of every key over all files, level 0 included (deletion vectors
    applied), by hand."""
    from paimon_sql.format.binary_row import decode_row
    from paimon_sql.format.system_fields import KEY_PREFIX, KIND, SEQ
    from paimon_sql.scan.reader import read_data_file
    from paimon_sql.scan.split import DataSplit, DeletionFile

    store, snap = t.store, t.latest_snapshot()
    fields = list(store.schema.fields)
    keys = [KEY_PREFIX + k.name for k in store.key_fields]
    dvs: dict[tuple[bytes, int], dict[str, DeletionFile]] = {}
    for ie in _dv_entries(t):
        path = store.index_file_path(ie.index_file.file_name)
        for name, r in ie.index_file.dv_ranges.items():
            dvs.setdefault((ie.partition, ie.bucket), {})[name] = DeletionFile(path, r.offset, r.length)
    rows = []
    for e in store.manifests.live_entries(snap):
        values = tuple(decode_row(e.partition, store.partition_types))
        sp = DataSplit(snap.id, e.partition, values, e.bucket, e.total_buckets, store.bucket_dir(list(values), e.bucket),
                       (e.file,), dvs.get((e.partition, e.bucket), {}))
        rows += read_data_file(store, sp, e.file, fields, (SEQ, KIND), store.key_fields).to_pylist()
    newest: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in sorted(rows, key=lambda r: r[SEQ]):
        newest[tuple(r[k] for k in keys)] = r
    live = [{f.name: r[f.name] for f in fields} for r in newest.values() if r[KIND] in (0, 2)]
    return pa.Table.from_pylist(live, schema=t.read().schema)


def test_table_indexes_system_table_lists_the_vectors(catalog: Catalog) -> None:
    catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "deletion-vectors.enabled": "true"})
    ids = list(range(300))
    catalog.get_table("db.t").write(pa.table({"id": ids, "v": ["a"] * 300, "n": [1] * 300}))
    catalog.get_table("db.t").write(pa.table({"id": [5, 7], "v": ["b", "b"], "n": [2, 2]}))
    rows = catalog.get_table("db.t$table_indexes").read().to_pylist()
    (row,) = rows
    assert (row["partition"], row["bucket"], row["index_type"], row["row_count"]) == ("{}", 0, "DELETION_VECTORS", 1)
    (dv,) = row["dv_ranges"]
    assert dv["_CARDINALITY"] == 2 and dv["f0"].startswith("data-") and dv["f1"] == 1
    assert row["index_field_name"] is None


def test_aggregation_fields_system_table(catalog: Catalog) -> None:
    catalog.create_table("db.agg", SCHEMA, primary_keys=["id"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
        "fields.n.ignore-retract": "true"})
    rows = {r["field_name"]: r for r in catalog.get_table("db.agg$aggregation_fields").read().to_pylist()}
    assert rows["id"]["field_type"] == "BIGINT NOT NULL" and rows["id"]["function"] == "[]"
    assert sorted(rows["n"]["function"][1:-1].split(", ")) == ["sum", "true"]
    assert sorted(rows["n"]["function_options"][1:-1].split(", ")) == [
        "fields.n.aggregate-function", "fields.n.ignore-retract"]
    assert rows["v"]["field_type"] == "STRING" and rows["v"]["comment"] is None


def test_full_compaction_rewrites_a_top_level_file_with_a_vector(catalog: Catalog) -> None:
    """Paimon's pickFullCompaction: a bucket that is one run at the highest level still rewrites
    the files that have a deletion vector (each on its own), so the deleted rows leave the disk."""
    catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "deletion-vectors.enabled": "true"})
    catalog.get_table("db.t").write(pa.table({"id": list(range(50)), "v": ["a"] * 50, "n": [1] * 50}))
    catalog.get_table("db.t").compact()
    catalog.get_table("db.t").delete("id < 5")
    t = catalog.get_table("db.t")
    assert len(_dv_entries(t)) == 1 and len(list(t.store.manifests.live_entries(t.latest_snapshot()))) == 1
    r = t.compact()
    t = catalog.get_table("db.t")
    assert r.snapshot_id is not None and _dv_entries(t) == []
    (live,) = t.store.manifests.live_entries(t.latest_snapshot())
    assert live.file.row_count == 45 and t.read().num_rows == 45
    assert catalog.get_table("db.t").compact().snapshot_id is None  # nothing left to do
