"""``copy`` (Paimon's CopyFilesProcedureTest cases, through the procedure registry): the source's live
files land in the target (created with the source's schema, or an existing compatible one) as one
OVERWRITE of the partitions they fill; partition filters; primary-key tables with dynamic buckets and
deletion vectors (index files copied, renamed); schema changes; incompatible targets refused with
nothing changed."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.procedures import call_procedure

KV = pa.schema([("k", pa.int32()), ("v", pa.string())])
PART = pa.schema([("k", pa.int32()), ("v", pa.string()), ("dt", pa.string()), ("hh", pa.int32())])


def _rows(cat: Catalog, name: str, **kw: Any) -> list[tuple[Any, ...]]:
    t = cat.get_table(name)
    return sorted(tuple(r.values()) for r in t.read(**kw).to_pylist())  # type: ignore[union-attr]


def _copy(cat: Catalog, **args: Any) -> None:
    assert call_procedure(cat, "copy", {"source_table": "db.t", "target_table": "db.target", **args}).rows == [(True,)]


def test_append_table(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", KV)
    t.write(pa.table({"k": pa.array([1, 2, 3], pa.int32()), "v": ["a", "b", "c"]}))
    t.refresh().write(pa.table({"k": pa.array([4, 5, 6], pa.int32()), "v": ["d", "e", "f"]}))
    _copy(catalog)
    assert _rows(catalog, "db.target") == _rows(catalog, "db.t")
    _copy(catalog)  # again: the table is overwritten, not doubled
    assert _rows(catalog, "db.target") == _rows(catalog, "db.t")
    target = catalog.get_table("db.target")
    assert target.schema.fields == t.schema.fields  # type: ignore[union-attr]
    # the copies are the target's own files: the source can go
    catalog.drop_table("db.t")
    assert len(target.read().to_pylist()) == 6  # type: ignore[union-attr]


def _parted(catalog: Catalog, **options: str) -> Any:
    t = catalog.create_table("db.t", PART, partition_keys=["dt", "hh"], options=options)
    t.write(pa.table({"k": pa.array([1, 2], pa.int32()), "v": ["a", "b"], "dt": ["2025-08-17", "2025-10-06"],
                      "hh": pa.array([5, 0], pa.int32())}))
    return t.refresh()


def test_partitioned_table_and_partition_filter(catalog: Catalog) -> None:
    _parted(catalog)
    _copy(catalog, where="dt = '2025-08-17' and hh = 5")
    assert _rows(catalog, "db.target") == [(1, "a", "2025-08-17", 5)]
    _copy(catalog)
    assert _rows(catalog, "db.target") == _rows(catalog, "db.t")
    with pytest.raises(ValidationError, match="Only partition predicate"):
        _copy(catalog, where="k = 1")


@pytest.mark.parametrize("options", [{"bucket": "-1"}, {"bucket": "2", "deletion-vectors.enabled": "true"}])
def test_primary_key_table(catalog: Catalog, options: dict[str, str]) -> None:
    t = catalog.create_table("db.t", PART, primary_keys=["dt", "hh", "k"], partition_keys=["dt", "hh"],
                             options=options)
    t.write(pa.table({"k": pa.array(list(range(50)), pa.int32()), "v": ["a"] * 50, "dt": ["2025-08-17"] * 50,
                      "hh": pa.array([5] * 50, pa.int32())}))
    t.refresh().write(pa.table({"k": pa.array([3, 60], pa.int32()), "v": ["b", "c"], "dt": ["2025-08-17"] * 2,
                                "hh": pa.array([5, 5], pa.int32())}))
    _copy(catalog)
    assert _rows(catalog, "db.target") == _rows(catalog, "db.t")
    target = catalog.get_table("db.target")
    src_index = {e.index_file.index_type for e in t.store.manifests.index_entries(t.refresh().latest_snapshot())}
    dst = target.store.manifests.index_entries(target.latest_snapshot())  # type: ignore[union-attr]
    assert {e.index_file.index_type for e in dst} == src_index and dst
    # the target takes writes of its own: upserts land on the copied keys
    target.write(pa.table({"k": pa.array([3], pa.int32()), "v": ["z"], "dt": ["2025-08-17"],  # type: ignore[union-attr]
                           "hh": pa.array([5], pa.int32())}))
    rows = _rows(catalog, "db.target")
    assert (3, "z", "2025-08-17", 5) in rows and len(rows) == 51


def test_schema_change(catalog: Catalog) -> None:
    t = _parted(catalog)
    t.alter(drop_columns=["v"])
    _copy(catalog)
    assert _rows(catalog, "db.target") == [(1, "2025-08-17", 5), (2, "2025-10-06", 0)]


def test_existing_table_partitions_are_overwritten(catalog: Catalog) -> None:
    t = _parted(catalog)
    target = catalog.create_table("db.target", PART, partition_keys=["dt", "hh"])
    target = target.alter(add_columns=[("v2", pa.string())])
    target.write(pa.table({"k": pa.array([3, 4], pa.int32()), "v": ["c", "d"], "dt": ["2025-08-17"] * 2,
                           "hh": pa.array([5, 6], pa.int32()), "v2": ["c1", "d1"]}))
    _copy(catalog)
    assert _rows(catalog, "db.target") == [(1, "a", "2025-08-17", 5, None), (2, "b", "2025-10-06", 0, None),
                                          (4, "d", "2025-08-17", 6, "d1")]
    assert t.snapshot_ids() == [1]


def test_incompatible_tables_are_refused(catalog: Catalog) -> None:
    _parted(catalog)
    renamed = catalog.create_table("db.target", pa.schema([("k", pa.int32()), ("v2", pa.string()),
                                                           ("dt", pa.string()), ("hh", pa.int32())]),
                                   partition_keys=["dt", "hh"])
    with pytest.raises(ValidationError, match="fields is not compatible"):
        _copy(catalog)
    unpartitioned = catalog.create_table("db.other", PART)
    with pytest.raises(ValidationError, match="partition keys is not compatible"):
        call_procedure(catalog, "copy", {"source_table": "db.t", "target_table": "db.other"})
    bucketed = catalog.create_table("db.pk", PART, primary_keys=["dt", "hh", "k"], partition_keys=["dt", "hh"],
                                    options={"bucket": "2"})
    with pytest.raises(ValidationError, match="bucket is not compatible"):
        call_procedure(catalog, "copy", {"source_table": "db.t", "target_table": "db.pk"})
    assert renamed.snapshot_ids() == unpartitioned.snapshot_ids() == bucketed.snapshot_ids() == []
    with pytest.raises(ValidationError, match="into itself"):
        call_procedure(catalog, "copy", {"source_table": "db.t", "target_table": "db.t"})
