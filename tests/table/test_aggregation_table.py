"""Writes and reads of aggregation and partial-update tables through the table API.

Paimon's writer merges the records of a key inside its write buffer with the table's merge function
(a level-0 file has unique keys; a key with a single record keeps it as it is), and a read merges the
files of a bucket again. The model below does exactly that, row by row (tests/helpers/aggregate_model.py)."""

from __future__ import annotations

import glob
import os
import random
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.table.table import Table
from tests.helpers.aggregate_model import Col, canon, merge, visible

KINDS = {"+I": 0, "-U": 1, "+U": 2, "-D": 3}

SCHEMA = pa.schema([
    ("dt", pa.string()), ("k", pa.int64()), ("op", pa.string()), ("total", pa.int64()), ("mx", pa.int32()),
    ("d", pa.float64()), ("tags", pa.string()), ("last", pa.string()), ("first", pa.string()),
    ("flag", pa.bool_()),
])
OPTIONS = {
    "bucket": "2",
    "merge-engine": "aggregation",
    "rowkind.field": "op",
    "fields.total.aggregate-function": "sum",
    "fields.mx.aggregate-function": "max",
    "fields.mx.ignore-retract": "true",
    "fields.d.aggregate-function": "sum",
    "fields.tags.aggregate-function": "listagg",
    "fields.tags.ignore-retract": "true",
    "fields.last.aggregate-function": "last_value",
    "fields.first.aggregate-function": "first_value",
    "fields.first.ignore-retract": "true",
    "fields.flag.aggregate-function": "bool_or",
    "fields.flag.ignore-retract": "true",
}
MODEL_COLS = [
    Col("dt", "primary-key", "string"), Col("k", "primary-key", "int64"), Col("op", "last_non_null_value", "string"),
    Col("total", "sum", "int64"), Col("mx", "max", "int32", ignore_retract=True), Col("d", "sum", "float64"),
    Col("tags", "listagg", "string", ignore_retract=True), Col("last", "last_value", "string"),
    Col("first", "first_value", "string", ignore_retract=True), Col("flag", "bool_or", "bool", ignore_retract=True),
]


def table_rows(t: pa.Table, names: list[str]) -> dict[Any, list[Any]]:
    return {(r["dt"], r["k"]): [canon(r[n]) for n in names] for r in t.to_pylist()}


def random_batch(rng: random.Random, n: int) -> list[dict[str, Any]]:
    rows = []
    for _ in range(n):
        rows.append({
            "dt": rng.choice(["a", "b"]), "k": rng.randrange(8),
            "op": rng.choice(["+I", "+I", "+U", "-U", "-D"]),
            "total": rng.choice([None, rng.randrange(-50, 50)]), "mx": rng.choice([None, rng.randrange(100)]),
            "d": rng.choice([None, rng.random() * 10]), "tags": rng.choice([None, "", "x", "y", " "]),
            "last": rng.choice([None, "p", "q"]), "first": rng.choice([None, "f", "g"]),
            "flag": rng.choice([None, True, False]),
        })
    return rows


def model_of_writes(writes: list[list[dict[str, Any]]], cols: list[Col], remove: bool) -> dict[Any, list[Any]]:
    """Each write's buffer merged per key (kept with its kind), then every file merged on read."""
    files: list[tuple[Any, int, list[Any]]] = []
    names = [c.name for c in cols]
    for batch in writes:
        recs = [((r["dt"], r["k"]), KINDS[r["op"]], [r[n] for n in names]) for r in batch]
        for key, (kind, vals) in merge(recs, cols, remove).items():
            files.append((key, kind, vals))
    return {k: [canon(v) for v in vals] for k, vals in visible(merge(files, cols, remove)).items()}


def create(catalog: Catalog, name: str, **extra: str) -> Table:
    return catalog.create_table(name, SCHEMA, primary_keys=["dt", "k"], partition_keys=["dt"],
                                options={**OPTIONS, **extra})


def assert_unique_keys_per_file(t: Table) -> None:
    files = glob.glob(os.path.join(t.path, "dt=*", "bucket-*", "data-*"))
    assert files
    for f in files:
        keys = pq.read_table(f, columns=["_KEY_k"]).column(0).to_pylist()  # dt is the partition
        assert len(keys) == len(set(keys)), f


@pytest.mark.parametrize("seed", range(6))
def test_writes_of_overlapping_keys_read_as_paimon_merges_them(catalog: Catalog, seed: int) -> None:
    rng = random.Random(seed)
    t = create(catalog, f"db.agg{seed}")
    writes = [random_batch(rng, rng.randrange(1, 40)) for _ in range(5)]
    for i, batch in enumerate(writes):
        t.write(pa.Table.from_pylist(batch, SCHEMA))
        expected = model_of_writes(writes[: i + 1], MODEL_COLS, False)
        assert table_rows(t.read(), [c.name for c in MODEL_COLS]) == expected, f"after write {i + 1}"
    assert_unique_keys_per_file(t)
    # every earlier snapshot still reads as it was
    first = t.read(snapshot_id=t.snapshot_ids()[0])
    assert table_rows(first, [c.name for c in MODEL_COLS]) == model_of_writes(writes[:1], MODEL_COLS, False)


def test_small_write_buffer_flushes_merged_runs(catalog: Catalog) -> None:
    """Sums and maxima do not depend on where the buffer was cut into files."""
    t = create(catalog, "db.small", **{"write-buffer-size": "4 kb"})
    rng = random.Random(7)
    batch = random_batch(rng, 3000)
    t.write(pa.Table.from_pylist(batch, SCHEMA).to_batches(max_chunksize=100))
    assert len(glob.glob(os.path.join(t.path, "dt=a", "bucket-*", "data-*"))) > 2
    assert_unique_keys_per_file(t)
    expected: dict[Any, list[Any]] = {}
    for r in batch:
        e = expected.setdefault((r["dt"], r["k"]), [None, None])
        if r["total"] is not None:
            sign = -1 if r["op"] in ("-U", "-D") else 1
            e[0] = (e[0] or 0) + sign * r["total"]
        if r["mx"] is not None and r["op"] in ("+I", "+U"):
            e[1] = r["mx"] if e[1] is None else max(e[1], r["mx"])
    got = {(r["dt"], r["k"]): [r["total"], r["mx"]] for r in t.read(columns=["dt", "k", "total", "mx"]).to_pylist()}
    assert got == expected


def test_aggregation_example(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.string()), ("total", pa.int64()), ("mx", pa.int32()), ("names", pa.string())])
    t = catalog.create_table("db.ex", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.total.aggregate-function": "sum",
        "fields.mx.aggregate-function": "max", "fields.names.aggregate-function": "listagg",
        "fields.names.list-agg-delimiter": "|"})
    t.write(pa.table({"k": ["a", "b", "a"], "total": [1, 2, 3], "mx": [5, 1, 7], "names": ["x", "y", None]}))
    t.write(pa.table({"k": ["a", "b"], "total": [10, None], "mx": [3, 9], "names": ["z", "w"]}))
    assert t.read().sort_by("k").to_pylist() == [
        {"k": "a", "total": 14, "mx": 7, "names": "x|z"},
        {"k": "b", "total": 2, "mx": 9, "names": "y|w"},
    ]
    assert t.read(columns=["k", "total"], filter="total > 5").to_pylist() == [{"k": "a", "total": 14}]


def test_sequence_field_orders_records_in_and_across_writes(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int64()), ("ts", pa.int64()), ("v", pa.string()), ("n", pa.int64())])
    t = catalog.create_table("db.seq", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "sequence.field": "ts",
        "fields.v.aggregate-function": "listagg", "fields.n.aggregate-function": "first_value"})
    t.write(pa.table({"k": [1, 1, 1], "ts": [5, None, 2], "v": ["five", "null", "two"], "n": [5, 0, 2]}))
    t.write(pa.table({"k": [1], "ts": [3], "v": ["three"], "n": [3]}))
    # ordered by ts (a null sequence field is the oldest)
    # the first write's records were merged in its buffer into one record (ts 5, the newest by ts),
    # which on read is newer than the second write's ts 3
    assert t.read().to_pylist() == [{"k": 1, "ts": 5, "v": "three,null,two,five", "n": 3}]


def test_delete_needs_remove_record_on_delete(catalog: Catalog) -> None:
    t = create(catalog, "db.nodel")
    t.write(pa.Table.from_pylist(random_batch(random.Random(1), 5), SCHEMA))
    with pytest.raises(UnsupportedError, match="aggregation.remove-record-on-delete"):
        t.delete("k >= 0")


def test_delete_with_remove_record_on_delete(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int64()), ("total", pa.int64()), ("mx", pa.int64())])
    t = catalog.create_table("db.del", schema, primary_keys=["k"], options={
        "bucket": "2", "merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true",
        "fields.total.aggregate-function": "sum", "fields.mx.aggregate-function": "max"})
    t.write(pa.table({"k": [1, 2, 1], "total": [1, 2, 3], "mx": [1, 2, 3]}))
    t.write(pa.table({"k": [1, 2], "total": [10, 20], "mx": [0, 0]}))
    t.delete("k = 1")
    assert t.read().to_pylist() == [{"k": 2, "total": 22, "mx": 2}]
    # as in Paimon, the -D record (carrying the deleted row's values) becomes the new accumulator
    t.write(pa.table({"k": [1], "total": [5], "mx": [1]}))
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "total": 19, "mx": 3}, {"k": 2, "total": 22, "mx": 2}]


def test_retractions_in_one_write_combine_as_on_read(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int64()), ("op", pa.string()), ("total", pa.int64())])
    t = catalog.create_table("db.ret", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "rowkind.field": "op",
        "fields.total.aggregate-function": "sum"})
    t.write(pa.table({"k": [1, 2], "op": ["+I", "+I"], "total": [10, 10]}))
    t.write(pa.table({"k": [1, 1, 2, 3], "op": ["-U", "+U", "-D", "-D"], "total": [10, 12, 4, 1]}))
    # a lone -D of a new key stays a -D record: reads drop it, as Paimon does; 'op' aggregates with
    # last_non_null_value, whose retraction of a non-null value is null
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "op": "+U", "total": 12}, {"k": 2, "op": None, "total": 6}]


def test_unsupported_function_and_wrong_type_fail_at_create(catalog: Catalog) -> None:
    """Paimon's rule (its aggregator factories run when the table is created): a function on a type
    it does not take, or one paimon_sql does not implement, is refused at CREATE TABLE, naming the
    field; nothing is created."""
    schema = pa.schema([("k", pa.int64()), ("m", pa.map_(pa.string(), pa.int64()))])
    with pytest.raises(ValidationError, match="nested_partial_update.*'m'|'m'.*nested_partial_update"):
        catalog.create_table("db.mm", schema, primary_keys=["k"], options={
            "bucket": "1", "merge-engine": "aggregation", "fields.m.aggregate-function": "nested_partial_update"})
    with pytest.raises(ValidationError, match="Value type of MAP for field 'm' must be ROW"):
        catalog.create_table("db.mm", schema, primary_keys=["k"], options={
            "bucket": "1", "merge-engine": "aggregation", "fields.m.aggregate-function": "merge_map_with_keytime"})
    with pytest.raises(ValidationError, match="NumericType.*'s'"):
        catalog.create_table("db.bad", pa.schema([("k", pa.int64()), ("s", pa.string())]), primary_keys=["k"],
                             options={"bucket": "1", "merge-engine": "aggregation",
                                      "fields.s.aggregate-function": "sum"})
    assert not catalog.table_exists("db.mm") and not catalog.table_exists("db.bad")


# --------------------------------------------------------------------------------------------------
# partial-update


def test_partial_update_writes(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int64()), ("a", pa.string()), ("b", pa.int64()), ("c", pa.float64())])
    t = catalog.create_table("db.pu", schema, primary_keys=["k"], partition_keys=None,
                             options={"bucket": "2", "merge-engine": "partial-update"})
    t.write(pa.table({"k": [1, 2, 1], "a": ["x", "y", None], "b": [None, 2, 1], "c": [None, None, None]}))
    t.write(pa.table({"k": [1, 3], "a": [None, "z"], "b": [None, None], "c": [1.5, 2.5]}))
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "a": "x", "b": 1, "c": 1.5}, {"k": 2, "a": "y", "b": 2, "c": None},
        {"k": 3, "a": "z", "b": None, "c": 2.5}]
    files = glob.glob(os.path.join(t.path, "bucket-*", "data-*"))
    for f in files:
        keys = pq.read_table(f, columns=["_KEY_k"]).column(0).to_pylist()
        assert len(keys) == len(set(keys))


def test_partial_update_delete_and_reinsert(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int64()), ("a", pa.string()), ("b", pa.int64())])
    t = catalog.create_table("db.pud", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"})
    t.write(pa.table({"k": [1, 2], "a": ["x", "y"], "b": [1, 2]}))
    t.delete("k = 1")
    assert t.read().to_pylist() == [{"k": 2, "a": "y", "b": 2}]
    # the -D record holds the deleted row's values; Paimon updates them with the new non-null fields
    t.write(pa.table({"k": [1], "a": ["new"], "b": [None]}))
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "a": "new", "b": 1}, {"k": 2, "a": "y", "b": 2}]


def test_partial_update_delete_needs_an_option(catalog: Catalog) -> None:
    schema = pa.schema([("k", pa.int64()), ("a", pa.string())])
    t = catalog.create_table("db.pun", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "partial-update"})
    t.write(pa.table({"k": [1], "a": ["x"]}))
    with pytest.raises(UnsupportedError, match="partial-update.remove-record-on-delete"):
        t.delete("k = 1")


def test_partial_update_sequence_groups(catalog: Catalog) -> None:
    """The examples of Paimon's partial-update documentation, one write per INSERT."""
    schema = pa.schema([(n, pa.int32()) for n in ("k", "a", "b", "g_1", "c", "d", "g_2")])
    t = catalog.create_table("db.pug", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "partial-update",
        "fields.g_1.sequence-group": "a,b", "fields.g_2.sequence-group": "c,d"})
    t.write(pa.Table.from_pylist([dict(zip(schema.names, [1, 1, 1, 1, 1, 1, 1]))], schema))
    t.write(pa.Table.from_pylist([dict(zip(schema.names, [1, 2, 2, 2, 2, 2, None]))], schema))
    assert list(t.read().to_pylist()[0].values()) == [1, 2, 2, 2, 1, 1, 1]  # g_2 null: c, d unchanged
    t.write(pa.Table.from_pylist([dict(zip(schema.names, [1, 3, 3, 1, 3, 3, 3]))], schema))
    assert list(t.read().to_pylist()[0].values()) == [1, 2, 2, 2, 3, 3, 3]  # g_1 older: a, b unchanged
    # a projection still merges with the sequence fields
    assert t.read(columns=["k", "a", "c"]).to_pylist() == [{"k": 1, "a": 2, "c": 3}]

    schema = pa.schema([(n, pa.int32()) for n in ("k", "a", "b", "c", "d")])
    t = catalog.create_table("db.pug2", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "partial-update",
        "fields.a.sequence-group": "b", "fields.b.aggregate-function": "first_value",
        "fields.c.sequence-group": "d", "fields.d.aggregate-function": "sum"})
    for row in ([1, 1, 1, None, None], [1, None, None, 1, 1], [1, 2, 2, None, None], [1, None, None, 2, 2]):
        t.write(pa.Table.from_pylist([dict(zip(schema.names, row))], schema))
    assert list(t.read().to_pylist()[0].values()) == [1, 2, 1, 2, 3]
    # the same records in one write are merged in the write buffer: same answer
    t2 = catalog.create_table("db.pug3", schema, primary_keys=["k"], options=t.options)
    t2.write(pa.Table.from_pylist([dict(zip(schema.names, row)) for row in (
        [1, 1, 1, None, None], [1, None, None, 1, 1], [1, 2, 2, None, None], [1, None, None, 2, 2])], schema))
    assert list(t2.read().to_pylist()[0].values()) == [1, 2, 1, 2, 3]


PU_SCHEMA = pa.schema([("k", pa.int64()), ("op", pa.string()), ("g", pa.int32()), ("a", pa.string()),
                       ("total", pa.int64()), ("x", pa.int64())])
PU_OPTIONS = {"bucket": "2", "merge-engine": "partial-update", "rowkind.field": "op",
              "fields.g.sequence-group": "a,total", "fields.total.aggregate-function": "sum"}


@pytest.mark.parametrize("seed", range(4))
def test_partial_update_sequence_group_writes_read_as_paimon_merges_them(catalog: Catalog, seed: int) -> None:
    from tests.helpers.aggregate_model import Group, partial_update_key

    rng = random.Random(seed)
    t = catalog.create_table(f"db.pur{seed}", PU_SCHEMA, primary_keys=["k"], options=PU_OPTIONS)
    names = PU_SCHEMA.names
    aggs = {"total": Col("total", "sum", "int64")}
    groups = [Group(["g"], ["a", "total"])]
    files: list[tuple[int, int, list[Any]]] = []
    for _ in range(4):
        batch = [{"k": rng.randrange(6), "op": rng.choice(["+I", "+I", "+U", "-U", "-D"]),
                  "g": rng.choice([None, 1, 2, 3]), "a": rng.choice([None, "p", "q"]),
                  "total": rng.choice([None, rng.randrange(-9, 9)]), "x": rng.choice([None, rng.randrange(9)])}
                 for _ in range(rng.randrange(1, 25))]
        t.write(pa.Table.from_pylist(batch, PU_SCHEMA))
        by_key: dict[int, list[tuple[int, list[Any]]]] = {}
        for r in batch:
            by_key.setdefault(r["k"], []).append((KINDS[r["op"]], [r[n] for n in names]))
        for k, rows in by_key.items():  # the write buffer, merged per key
            kind, vals = partial_update_key(rows, names, groups, aggs, ["k"], False)
            files.append((k, kind, vals))
        merged: dict[int, list[tuple[int, list[Any]]]] = {}
        for k, kind, vals in files:
            merged.setdefault(k, []).append((kind, vals))
        expected = {}
        for k, rows in merged.items():
            kind, vals = partial_update_key(rows, names, groups, aggs, ["k"], False)
            if kind in (0, 2):
                expected[k] = vals
        got = {r["k"]: [r[n] for n in names] for r in t.read().to_pylist()}
        assert got == expected


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_write_buffer_orders_sequence_fields_like_paimon(catalog: Catalog, order: str) -> None:
    """In a write buffer as on read: a null sequence field is the oldest, the sort order applies."""
    schema = pa.schema([("k", pa.int64()), ("ts", pa.int64()), ("v", pa.string())])
    t = catalog.create_table(f"db.dd_{order}", schema, primary_keys=["k"], options={
        "bucket": "1", "sequence.field": "ts", "sequence.field.sort-order": order})
    t.write(pa.table({"k": [1, 1, 1, 2, 2], "ts": [5, None, 3, None, None], "v": ["5", "null", "3", "a", "b"]}))
    newest = "5" if order == "ascending" else "3"
    assert sorted(t.read().to_pylist(), key=lambda r: r["k"]) == [
        {"k": 1, "ts": int(newest), "v": newest}, {"k": 2, "ts": None, "v": "b"}]
    t.write(pa.table({"k": [1], "ts": [4], "v": ["4"]}))
    assert t.read(filter="k = 1").to_pylist()[0]["v"] == ("5" if order == "ascending" else "3")


def test_aggregate_type_errors_name_the_table_and_field(catalog: Catalog) -> None:
    schema = pa.schema([("id", pa.int64()), ("v", pa.string())])
    with pytest.raises(ValidationError, match=r"must be 'NumericType' but was 'STRING' \(field 'v'\) \(table db\.t\)"):
        catalog.create_table("db.t", schema, primary_keys=["id"],
                             options={"merge-engine": "aggregation", "fields.v.aggregate-function": "sum"})
    with pytest.raises(ValidationError, match=r"must be 'NumericType' but was 'STRING' \(field 'v'\) \(table db\.t\)"):
        catalog.create_table("db.t", schema, primary_keys=["id"],
                             options={"merge-engine": "aggregation", "fields.default-aggregate-function": "max",
                                      "fields.v.aggregate-function": "product"})
    assert not catalog.table_exists("db.t")
