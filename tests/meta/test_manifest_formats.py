from __future__ import annotations

import glob
import os

import pyarrow as pa
import pyarrow.orc as paorc
import pytest

from paimon_sql import Catalog
from paimon_sql.meta.manifest_io import read_records

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "java-corpus")


@pytest.mark.parametrize("fmt", ["avro", "orc", "parquet"])
@pytest.mark.parametrize("data_fmt", ["parquet", "orc"])
def test_manifest_and_data_formats_round_trip(catalog: Catalog, fmt: str, data_fmt: str) -> None:
    schema = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options={"bucket": "2", "manifest.format": fmt, "file.format": data_fmt})
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "dt": ["x", "x", "y"]}))
    t.write(pa.table({"id": [2], "v": ["B"], "dt": ["x"]}))
    got = sorted(t.read().to_pylist(), key=lambda r: r["id"])
    assert got == [{"id": 1, "v": "a", "dt": "x"}, {"id": 2, "v": "B", "dt": "x"}, {"id": 3, "v": "c", "dt": "y"}]
    manifest_dir = os.path.join(t.path, "manifest")
    magic = {"avro": b"Obj\x01", "orc": b"ORC", "parquet": b"PAR1"}[fmt]
    for name in os.listdir(manifest_dir):
        with open(os.path.join(manifest_dir, name), "rb") as f:
            assert f.read(len(magic)) == magic, name
    assert all(f.endswith("." + data_fmt) for f in glob.glob(os.path.join(t.path, "dt=*", "bucket-*", "*")))


def test_orc_manifest_columns_match_java(catalog: Catalog) -> None:
    """Our ORC manifests have the column names and types Java Paimon writes."""
    base = os.path.abspath(os.path.join(SHARED, "orc", "append_10.db", "append_10", "manifest"))
    java = next(f for f in sorted(os.listdir(base)) if f.startswith("manifest-") and "list" not in f)
    java_schema = paorc.ORCFile(os.path.join(base, java)).schema
    schema = pa.schema([("f0", pa.string()), ("f1", pa.int32()), ("f2", pa.int32()), ("f3", pa.float64())])
    t = catalog.create_table("db.o", schema, partition_keys=["f1"],
                             options={"bucket": "2", "bucket-key": "f2", "manifest.format": "orc"})
    t.write(pa.table({"f0": ["a"], "f1": [10], "f2": [1], "f3": [1.5]}))
    snap = t.latest_snapshot()
    assert snap is not None
    ours = paorc.ORCFile(os.path.join(t.path, "manifest", t.store.manifests.data_manifests(snap)[0].file_name)).schema
    assert ours.names == java_schema.names
    for name in java_schema.names:
        if name != "_FILE":
            assert ours.field(name).type == java_schema.field(name).type, name
    ours_file, java_file = ours.field("_FILE").type, java_schema.field("_FILE").type
    for i in range(java_file.num_fields):  # this Java version wrote fewer (older) fields
        assert ours_file.field(i).name == java_file.field(i).name
        assert ours_file.field(i).type == java_file.field(i).type, java_file.field(i).name
    recs = read_records(t.file_io, os.path.join(t.path, "manifest", snap.base_manifest_list))
    assert recs == []
