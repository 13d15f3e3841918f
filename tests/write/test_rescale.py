"""rescale (Paimon's procedure): partitions rewritten with another bucket count as one OVERWRITE;
writes keep a partition's bucket count unless they overwrite it; strict against concurrent commits."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError, WriteConflictError
from paimon_sql.procedures import call_procedure

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def _buckets(t: object) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for e in t.store.manifests.live_entries(t.latest_snapshot()):  # type: ignore[attr-defined]
        out.setdefault(e.partition.hex(), set()).add(e.total_buckets)
    return out


def _rows(t: object) -> list[tuple[object, ...]]:
    return sorted(tuple(r.values()) for r in t.read().to_pylist())  # type: ignore[attr-defined]


def test_rescale_partitions_and_write_after(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"], options={"bucket": "2"})
    ids = list(range(100))
    t.write(pa.table({"id": ids, "v": ["a"] * 100, "dt": ["d1", "d2"] * 50}))
    t.write(pa.table({"id": [0, 1], "v": ["b", "b"], "dt": ["d1", "d2"]}))
    before = _rows(t)
    assert call_procedure(catalog, "rescale", {"table": "db.t", "bucket_num": 4, "partitions": "dt=d1"}).rows == [(True,)]
    t = catalog.get_table("db.t")
    assert t.latest_snapshot().commit_kind == "OVERWRITE"  # type: ignore[union-attr]
    assert sorted(map(sorted, _buckets(t).values())) == [[2], [4]]
    assert _rows(t) == before
    # a write into the rescaled partition with the table's old bucket count is refused
    with pytest.raises(ValidationError, match="new bucket num 2, but the previous bucket num is 4"):
        t.write(pa.table({"id": [5], "v": ["c"], "dt": ["d1"]}))
    t.rescale(4)  # every partition, to the given count
    assert {n for ns in _buckets(catalog.get_table("db.t")).values() for n in ns} == {4}
    assert _rows(catalog.get_table("db.t")) == before
    # an overwrite may change a partition's bucket count
    catalog.get_table("db.t").write(pa.table({"id": [7], "v": ["o"], "dt": ["d2"]}), overwrite={"dt": "d2"})
    assert sorted(map(sorted, _buckets(catalog.get_table("db.t")).values())) == [[2], [4]]


def test_rescale_refusals_and_strictness(catalog: Catalog) -> None:
    ap = catalog.create_table("db.ap", SCHEMA)
    ap.write(pa.table({"id": [1], "v": ["a"], "dt": ["d"]}))
    with pytest.raises(UnsupportedError, match="fixed buckets"):
        ap.rescale(2)
    empty = catalog.create_table("db.e", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    with pytest.raises(ValidationError, match="no snapshot, no need to rescale"):
        empty.rescale(2)
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "a"], "dt": ["d", "d"]}))
    with pytest.raises(ValidationError, match="bucket_num"):
        t.rescale(0)
    with pytest.raises(ValidationError, match="partitions and where"):
        call_procedure(catalog, "rescale", {"table": "db.t", "partitions": "dt=d", "where": "dt = 'd'"})
    # a commit landing while the rows are rewritten fails the rescale; nothing is lost
    from paimon_sql.ops import rescale as rescale_ops

    real = rescale_ops.read_split

    def read_and_commit(*a: object, **k: object) -> pa.Table:
        out = real(*a, **k)  # type: ignore[arg-type]
        catalog.get_table("db.t").write(pa.table({"id": [3], "v": ["late"], "dt": ["d"]}))
        return out

    rescale_ops.read_split = read_and_commit  # type: ignore[assignment]
    try:
        with pytest.raises(WriteConflictError, match="committed while"):
            catalog.get_table("db.t").rescale(3)
    finally:
        rescale_ops.read_split = real
    assert _rows(catalog.get_table("db.t")) == [(1, "a", "d"), (2, "a", "d"), (3, "late", "d")]
    assert {n for ns in _buckets(catalog.get_table("db.t")).values() for n in ns} == {1}
