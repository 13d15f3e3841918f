from __future__ import annotations

import dataclasses
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog

SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string()), ("dt", pa.string())])


def files_of(t, flt: str) -> int:  # type: ignore[no-untyped-def]
    _, splits, _ = t.plan(flt)
    return sum(len(s.files) for _, s in splits)


def write_ranges(t) -> None:  # type: ignore[no-untyped-def]
    for lo in (0, 10, 20):
        ids = list(range(lo, lo + 10))
        t.write(pa.table({"id": ids, "s": [f"s{i:03d}" for i in ids], "dt": ["a" if lo < 20 else "b"] * 10}))


def test_append_files_pruned_by_value_stats(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    write_ranges(t)
    assert files_of(t, "id >= 0") == 3
    assert files_of(t, "id > 25") == 1
    assert files_of(t, "id = 15 OR id = 27") == 2
    assert files_of(t, "s = 's005'") == 1
    assert files_of(t, "id IS NULL") == 0
    assert files_of(t, "id > 100") == 0
    assert sorted(t.read(filter="id > 25").column("id").to_pylist()) == [26, 27, 28, 29]
    # a file written before a schema change keeps its rows (its stats are by old columns)
    t2 = t.alter(add_columns=[pa.field("x", pa.int32())])
    assert files_of(t2, "id > 25") == 3
    assert sorted(t2.read(filter="id > 25").column("id").to_pylist()) == [26, 27, 28, 29]


def test_partition_pruning(catalog: Catalog) -> None:
    t = catalog.create_table("db.p", SCHEMA, partition_keys=["dt"])
    write_ranges(t)
    assert files_of(t, "dt = 'b'") == 1
    assert files_of(t, "dt <> 'b'") == 2
    assert t.read(filter="dt = 'b'").num_rows == 10


def test_primary_key_tables_prune_only_by_key(catalog: Catalog) -> None:
    t = catalog.create_table("db.k", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    write_ranges(t)
    t.write(pa.table({"id": [5], "s": ["zzz"], "dt": ["a"]}))  # newer value of key 5
    assert files_of(t, "id > 25") == 1
    # a value filter must not skip files: s='s005' is in an old file but was overwritten
    assert files_of(t, "s = 's005'") == 4
    assert t.read(filter="s = 's005'").num_rows == 0
    assert t.read(filter="id = 5").column("s").to_pylist() == ["zzz"]


def test_data_evolution_files_are_refused_not_read_as_nulls(tmp_path: Any) -> None:
    from paimon_sql.errors import UnsupportedError
    from paimon_sql.scan.reader import read_split

    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    t.write(pa.table({"id": [1], "v": ["a"]}))
    store, splits, _ = t.plan()
    split = splits[0][1]
    assert read_split(store, split, list(store.schema.fields)).num_rows == 1
    partial = dataclasses.replace(split, files=(dataclasses.replace(split.files[0], write_cols=("id",)),))
    with pytest.raises(UnsupportedError, match="db.t.*only the columns \\['id'\\].*data-evolution"):
        read_split(store, partial, list(store.schema.fields))
