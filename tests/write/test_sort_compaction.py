"""Sort compaction of append tables: Paimon's orders (its CompactProcedureTest expectations for
zorder and hilbert on two int columns), one OVERWRITE of the partitions, nothing lost, refusals."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.types import BigIntType, DoubleType, IntType, VarCharType
from paimon_sql.write.sort_order import hilbert_index, interleave_bits, sort_indices, zorder_column_bytes

GRID = [(a, b) for a in range(3) for b in range(3)]
ZORDER = [(0, 0), (0, 1), (1, 0), (1, 1), (0, 2), (1, 2), (2, 0), (2, 1), (2, 2)]
HILBERT = [(0, 0), (0, 1), (1, 1), (1, 0), (2, 0), (2, 1), (2, 2), (1, 2), (0, 2)]


def _grid_table() -> pa.Table:
    return pa.table({"a": pa.array([g[0] for g in GRID], pa.int32()), "b": pa.array([g[1] for g in GRID], pa.int32())})


@pytest.mark.parametrize("strategy,expected", [("zorder", ZORDER), ("hilbert", HILBERT), ("order", GRID)])
def test_orders_are_paimons(strategy: str, expected: list[tuple[int, int]]) -> None:
    idx = sort_indices(_grid_table(), ["a", "b"], [IntType(), IntType()], strategy)
    assert [GRID[i] for i in idx] == expected


def test_single_column_orders_follow_the_values() -> None:
    rng = np.random.default_rng(1)
    ints = rng.integers(-(2**40), 2**40, 500)
    t = pa.table({"x": pa.array(ints, pa.int64())})
    for strategy in ("zorder", "order"):
        idx = sort_indices(t, ["x"], [BigIntType()], strategy)
        assert np.all(np.diff(ints[idx]) >= 0)
    words = ["b", "ab", "a", "", "abcdefghij", "abcdefgh"]
    s = pa.table({"s": pa.array(words)})
    idx = sort_indices(s, ["s"], [VarCharType()], "zorder")
    # the first 8 UTF-8 bytes order (longer strings tie on their prefix)
    assert [words[i] for i in idx] == ["", "a", "ab", "abcdefghij", "abcdefgh", "b"]
    # columns of different widths interleave round robin, the wider one's rest at the end
    wide = zorder_column_bytes(pa.array(["zz"]), VarCharType(), var_size=16)
    narrow = zorder_column_bytes(pa.array([0], pa.int64()), BigIntType())
    assert len(interleave_bits([wide, narrow])) == 3
    assert len(hilbert_index([np.array([1, 2]), np.array([3, 4])])) == 2  # 126 bits in two words
    d = pa.table({"d": pa.array([0.5, 2.0, 1.0, None])})
    assert len(sort_indices(d, ["d"], [DoubleType()], "hilbert")) == 4


def test_sort_compact_rewrites_partitions_in_order(catalog: Catalog) -> None:
    schema = pa.schema([("a", pa.int32()), ("b", pa.int32()), ("pt", pa.string())])
    t = catalog.create_table("db.s", schema, partition_keys=["pt"])
    for a, b in GRID:  # one file per row, in row-major order
        catalog.get_table("db.s").write(pa.table({"a": pa.array([a], pa.int32()), "b": pa.array([b], pa.int32()),
                                                  "pt": ["p0"]}))
    catalog.get_table("db.s").write(pa.table({"a": pa.array([9], pa.int32()), "b": pa.array([9], pa.int32()),
                                              "pt": ["p1"]}))
    r = catalog.get_table("db.s").sort_compact("zorder", ["a", "b"], partitions=[{"pt": "p0"}])
    t = catalog.get_table("db.s")
    assert r.snapshot_id is not None and t.latest_snapshot().commit_kind == "OVERWRITE"
    p0 = t.read(filter="pt = 'p0'")
    assert list(zip(p0.column("a").to_pylist(), p0.column("b").to_pylist())) == ZORDER
    assert t.read(filter="pt = 'p1'").num_rows == 1
    t.sort_compact("hilbert", ["a", "b"])
    p0 = catalog.get_table("db.s").read(filter="pt = 'p0'")
    assert list(zip(p0.column("a").to_pylist(), p0.column("b").to_pylist())) == HILBERT
    assert catalog.get_table("db.s").read().num_rows == 10


def test_sort_compact_refusals(catalog: Catalog) -> None:
    schema = pa.schema([("a", pa.int32()), ("b", pa.int32())])
    pk = catalog.create_table("db.pk", schema, primary_keys=["a"], options={"bucket": "1"})
    pk.write(pa.table({"a": pa.array([1], pa.int32()), "b": pa.array([1], pa.int32())}))
    with pytest.raises(UnsupportedError, match="unaware-bucket append"):
        pk.sort_compact("zorder", ["b"])
    ap = catalog.create_table("db.ap", schema)
    ap.write(pa.table({"a": pa.array([1], pa.int32()), "b": pa.array([1], pa.int32())}))
    with pytest.raises(ValidationError, match="not columns"):
        ap.sort_compact("zorder", ["nope"])
    with pytest.raises(ValidationError, match="unknown strategy"):
        ap.sort_compact("spiral", ["a"])
    assert catalog.get_table("db.ap").snapshot_ids() == [1]
