"""read.allow.fullScan = false (Paimon's PaimonQueryTest "disallow full scan"): a read of a
partitioned table that skips no data file is refused with Paimon's message; unpartitioned tables
and reads that prune something are not."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError

GUARD = {"read.allow.fullScan": "false"}


def test_disallow_full_scan(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", pa.schema([("a", pa.int32())]))
    t.write(pa.table({"a": pa.array([1, 2], pa.int32())}))
    assert sorted(catalog.get_table("db.t").copy(GUARD).read().column("a").to_pylist()) == [1, 2]

    schema = pa.schema([("a", pa.int32()), ("p", pa.int32())])
    catalog.create_table("db.t_p", schema, partition_keys=["p"])
    catalog.get_table("db.t_p").write(pa.table({"a": pa.array([1, 2], pa.int32()), "p": pa.array([1, 2], pa.int32())}))
    t_p = catalog.get_table("db.t_p").copy(GUARD)
    with pytest.raises(UnsupportedError, match=r"^Full scan is not supported\..*db\.t_p"):
        t_p.read()
    with pytest.raises(UnsupportedError, match="Full scan is not supported."):
        t_p.read(filter="p > 0")
    assert t_p.read(filter="p > 1").to_pylist() == [{"a": 2, "p": 2}]
    # without the option (the default, true) everything reads
    assert catalog.get_table("db.t_p").read().num_rows == 2


def test_session_key_in_lower_case_and_stats_pruning(catalog: Catalog) -> None:
    # Spark hands option keys over in lower case; a filter that prunes by statistics skips files too
    schema = pa.schema([("a", pa.int32()), ("p", pa.int32())])
    catalog.create_table("db.s", schema, partition_keys=["p"])
    for a in (1, 100):
        catalog.get_table("db.s").write(pa.table({"a": pa.array([a], pa.int32()), "p": pa.array([1], pa.int32())}))
    t = catalog.get_table("db.s").copy({"read.allow.fullscan": "false"})
    with pytest.raises(UnsupportedError, match="Full scan is not supported."):
        t.read(filter="a > 0")
    assert t.read(filter="a > 50").to_pylist() == [{"a": 100, "p": 1}]
