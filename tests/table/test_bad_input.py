"""Bad input to the Python API is a PaimonError naming the argument, and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError
from paimon_sql.table.table import Table

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int32())])


def _files(t: Table) -> list[str]:
    return sorted(str(p.relative_to(t.path)) for p in Path(t.path).rglob("*") if p.is_file())


@pytest.fixture(params=["pk", "append"])
def t(catalog: Catalog, request: Any) -> Table:
    pk = ["id"] if request.param == "pk" else None
    t = catalog.create_table("db.t", SCHEMA, primary_keys=pk, options={"bucket": "1" if pk else "-1"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"], "n": [1, 2]}, schema=SCHEMA))
    return t


BAD_CALLS: list[tuple[str, Callable[[Table], Any], str]] = [
    ("delete(None)", lambda t: t.delete(None), "needs a predicate"),  # type: ignore[arg-type]
    ("delete('')", lambda t: t.delete(""), "needs a predicate"),
    ("delete(5)", lambda t: t.delete(5), "needs a predicate"),  # type: ignore[arg-type]
    ("write(dict)", lambda t: t.write({"id": [3]}), "Cannot write dict"),  # type: ignore[arg-type]
    ("write(None)", lambda t: t.write(None), "Cannot write NoneType"),  # type: ignore[arg-type]
    ("write(list of ints)", lambda t: t.write([1, 2]), "must yield pyarrow RecordBatches"),  # type: ignore[list-item]
    ("write(5)", lambda t: t.write(5), "Cannot write int"),  # type: ignore[arg-type]
    ("write('x')", lambda t: t.write("x"), "Cannot write str"),  # type: ignore[arg-type]
    ("read(filter=123)", lambda t: t.read(filter=123), "filter"),  # type: ignore[arg-type]
    ("read(deep filter)", lambda t: t.read(filter="(" * 3000 + "id = 1" + ")" * 3000), "nest"),
    ("read(long AND chain)", lambda t: t.read(filter=" AND ".join(["id = 1"] * 3000)), "nested too deeply"),
    ("read(columns dup)", lambda t: t.read(columns=["id", "id"]), "more than once"),
    ("read(columns str)", lambda t: t.read(columns="id"), "list of column names"),  # type: ignore[arg-type]
    ("read(unknown column)", lambda t: t.read(columns=["nope"]), "'nope' does not exist"),
    ("read(timestamp_ms='abc')", lambda t: t.read(timestamp_ms="abc"), "timestamp_ms"),  # type: ignore[arg-type]
    ("read(snapshot_id=True)", lambda t: t.read(snapshot_id=True), "snapshot_id"),
    ("read(tag=5)", lambda t: t.read(tag=5), "tag"),  # type: ignore[arg-type]
    ("alter(nope=1)", lambda t: t.alter(nope=1), "unknown argument"),
    ("alter(rename to '')", lambda t: t.alter(rename_columns={"v": ""}), "non-blank name"),
    ("alter(drop_columns='v')", lambda t: t.alter(drop_columns="v"), "drop_columns"),
    ("alter(set_options None value)", lambda t: t.alter(set_options={"bucket": None}), "set_options"),
    ("alter(commit.max-retries=-1)", lambda t: t.alter(set_options={"commit.max-retries": "-1"}), "commit.max-retries"),
    ("alter(sequence.field unknown)", lambda t: t.alter(set_options={"sequence.field": "nope"}), "sequence.field"),
    ("alter(bucket-key unknown)", lambda t: t.alter(set_options={"bucket-key": "nope"}), "bucket-key"),
    ("alter(fields.nope.*)", lambda t: t.alter(set_options={"fields.nope.aggregate-function": "sum"}), "nope"),
    ("alter(add column '')", lambda t: t.alter(add_columns=[pa.field("", pa.int32())]), "non-blank name"),
    ("overwrite=5", lambda t: t.write(pa.table({"id": [3], "v": ["c"], "n": [3]}, schema=SCHEMA), overwrite=5),  # type: ignore[arg-type]
     "overwrite"),
    ("commit_changes(None)", lambda t: t.commit_changes(None), "list of CommitChanges"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("what,call,match", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_bad_input_is_a_paimon_error_and_changes_nothing(t: Table, what: str, call: Callable[[Table], Any],
                                                         match: str) -> None:
    before_files, before_snapshots = _files(t), t.snapshot_ids()
    with pytest.raises(PaimonError, match=match):
        call(t)
    assert _files(t) == before_files, what
    assert t.snapshot_ids() == before_snapshots
    assert sorted(t.read(columns=["id"]).column("id").to_pylist()) == [1, 2]


def test_deleting_everything_is_explicit(t: Table) -> None:
    with pytest.raises(ValidationError, match=r"truncate\(\) deletes every row"):
        t.delete(None)  # type: ignore[arg-type]
    assert t.truncate() == 2
    assert t.read().num_rows == 0


def test_create_table_rejects_bad_schemas_and_options(catalog: Catalog) -> None:
    arr = pa.schema([("id", pa.list_(pa.int64())), ("v", pa.string())])
    with pytest.raises(UnsupportedError, match="'id'.*ARRAY.*primary key"):
        catalog.create_table("db.a", arr, primary_keys=["id"])
    with pytest.raises(UnsupportedError, match="'m'.*MAP.*partition"):
        catalog.create_table("db.m", pa.schema([("m", pa.map_(pa.string(), pa.int32())), ("v", pa.int32())]),
                             partition_keys=["m"])
    for options, match in [
        ({"primary-key": "v", "sequence.field": "nope"}, "sequence.field"),
        ({"primary-key": "v", "sequence.field": "n,n"}, "more than once"),
        ({"primary-key": "v", "rowkind.field": "nope"}, "rowkind.field"),
        ({"primary-key": "v", "merge-engine": "partial-update", "fields.a,b.sequence-group": "n"}, "'a'"),
        ({"commit.max-retries": "-1"}, "commit.max-retries"),
        ({"write-buffer-size": "0"}, "write-buffer-size"),
    ]:
        with pytest.raises(ValidationError, match=match):
            catalog.create_table("db.o", pa.schema([("v", pa.string()), ("n", pa.int64())]), options=options)
    with pytest.raises(ValidationError, match="primary_keys"):
        catalog.create_table("db.s", SCHEMA, primary_keys="id")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="non-blank name"):
        catalog.create_table("db.e", pa.schema([("", pa.int32())]))
    assert catalog.list_tables("db") == []


def test_renaming_key_option_columns_renames_the_options(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int64()), ("b", pa.int64()), ("s", pa.int64()), ("g", pa.int64()),
                        ("x", pa.int64())])
    t = catalog.create_table("db.r", schema, options={"bucket": "2", "bucket-key": "b"})
    t = t.alter(rename_columns={"b": "b2"})
    assert t.options["bucket-key"] == "b2"
    t.write(pa.table({"id": [1, 2], "b2": [1, 2], "s": [1, 1], "g": [1, 1], "x": [1, 1]}))
    assert t.read().num_rows == 2
    pk = catalog.create_table("db.p", schema, primary_keys=["id"], options={
        "bucket": "1", "merge-engine": "partial-update", "sequence.field": "s",
        "fields.g.sequence-group": "x", "fields.x.aggregate-function": "sum"})
    pk = pk.alter(rename_columns={"s": "s2", "g": "g2", "x": "x2"})
    assert pk.options["sequence.field"] == "s2"
    assert pk.options["fields.g2.sequence-group"] == "x2"
    assert pk.options["fields.x2.aggregate-function"] == "sum"
    assert "fields.g.sequence-group" not in pk.options and "fields.x.aggregate-function" not in pk.options
    pk.write(pa.table({"id": [1, 1], "b": [1, 1], "s2": [1, 2], "g2": [1, 2], "x2": [5, 7]}))
    assert pk.read().to_pylist() == [{"id": 1, "b": 1, "s2": 2, "g2": 2, "x2": 12}]


def test_float_keys_compare_like_java(catalog: Catalog) -> None:
    """All NaNs are one key and -0.0 is another key than 0.0 (Double.compare), in one write and
    across commits."""
    t = catalog.create_table("db.f", pa.schema([("k", pa.float64()), ("v", pa.string())]),
                             primary_keys=["k"], options={"bucket": "1"})
    nan = float("nan")
    t.write(pa.table({"k": [nan, nan, -0.0, 0.0, 1.5], "v": ["a", "b", "neg", "pos", "x"]}))
    t.write(pa.table({"k": [nan, 0.0], "v": ["c", "pos2"]}))
    rows = t.read().to_pylist()
    assert len(rows) == 4
    by_v = {r["v"]: r["k"] for r in rows}
    assert set(by_v) == {"neg", "pos2", "x", "c"}
    assert str(by_v["neg"]) == "-0.0" and by_v["c"] != by_v["c"]
    f = catalog.create_table("db.f32", pa.schema([("k", pa.float32()), ("v", pa.string())]),
                             primary_keys=["k"], options={"bucket": "1"})
    f.write(pa.table({"k": pa.array([nan, nan], pa.float32()), "v": ["a", "b"]}))
    assert f.read().column("v").to_pylist() == ["b"]


def test_options_that_are_not_applied_are_refused(catalog: Catalog) -> None:
    """An option paimon_sql does not apply is refused at CREATE and ALTER unless it keeps its default;
    a table that already carries one (written by Paimon) still reads and alters."""
    for key, value in [("tag.create-success-file", "true"), ("tag.callbacks", "com.example.Callback"),
                       ("record-level.time-field", "v"),
                       ("vector-field", "v"), ("blob-field", "v"), ("deletion-vectors.modifiable", "true"),
                       ("compaction.file-num-limit", "3"), ("ignore-update-before", "true")]:
        with pytest.raises(UnsupportedError, match=f"Option '{key}'.*not supported"):
            catalog.create_table("db.u", SCHEMA, primary_keys=["id"], options={key: value})
    t = catalog.create_table("db.u", SCHEMA, primary_keys=["id"],
                             options={"tag.create-success-file": "false", "deletion-vectors.enabled": "false"})
    with pytest.raises(UnsupportedError, match="record-level.expire-time"):
        t.alter(set_options={"record-level.expire-time": "1 d"})
    # as if Paimon had written it: the table reads, and other options still change
    schema_file = Path(t.path) / "schema" / "schema-0"
    schema_file.write_text(schema_file.read_text().replace('"tag.create-success-file" : "false"',
                                                           '"tag.create-success-file" : "true"'))
    t = catalog.get_table("db.u")  # type: ignore[assignment]
    assert t.options["tag.create-success-file"] == "true"
    assert t.read().num_rows == 0
    assert t.alter(set_options={"target-file-size": "64 mb"}).options["target-file-size"] == "64 mb"
