"""deletion-vectors.merge-on-read (Paimon's DeletionVectorsMergeOnReadTest): a deletion-vector
primary-key table's batch read skips level-0 files by default; with the option (at CREATE or per
read) it reads them too, merged by key."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog

SCHEMA = pa.schema([("k", pa.int32()), ("v", pa.int32())])


def _table(catalog: Catalog, merge_on_read: bool):  # type: ignore[no-untyped-def]
    options = {"bucket": "1", "deletion-vectors.enabled": "true", "write-only": "true"}
    if merge_on_read:
        options["deletion-vectors.merge-on-read"] = "true"
    catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options=options)
    for rows in ([(1, 10), (2, 20)], [(1, 11), (3, 30)]):
        catalog.get_table("db.t").write(pa.Table.from_pylist([{"k": k, "v": v} for k, v in rows], SCHEMA))
    return catalog.get_table("db.t")


def _rows(t) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    return sorted((r["k"], r["v"]) for r in t.read().to_pylist())


def test_default_skips_level0(catalog: Catalog) -> None:
    t = _table(catalog, False)
    assert all(e.file.level == 0 for e in t.store.manifests.live_entries(t.latest_snapshot()))
    assert _rows(t) == []


def test_merge_on_read_reads_level0(catalog: Catalog) -> None:
    assert _rows(_table(catalog, True)) == [(1, 11), (2, 20), (3, 30)]


def test_merge_on_read_with_query_hint(catalog: Catalog) -> None:
    t = _table(catalog, False)
    assert _rows(t) == []
    assert _rows(t.copy({"deletion-vectors.merge-on-read": "true"})) == [(1, 11), (2, 20), (3, 30)]


@pytest.mark.parametrize("merge_on_read", [False, True])
def test_compacted_rows_and_level0_together(catalog: Catalog, merge_on_read: bool) -> None:
    # after a full compaction (deletion vectors in place), new level-0 rows show only with the option
    t = _table(catalog, merge_on_read)
    t.compact(full=True)
    catalog.get_table("db.t").write(pa.Table.from_pylist([{"k": 2, "v": 22}, {"k": 4, "v": 40}], SCHEMA))
    t = catalog.get_table("db.t")
    expected = [(1, 11), (2, 22), (3, 30), (4, 40)] if merge_on_read else [(1, 11), (2, 20), (3, 30)]
    assert _rows(t) == expected
