"""Append tables with deletion vectors written by paimon_sql (inserts, DELETEs as deletion vectors,
compaction dropping them): pypaimon 2.1.0 reads the same rows at every snapshot."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from tests.helpers.interop_util import PARTITIONED, PypaimonIO, assert_same_rows, simple_rows


@pytest.mark.parametrize("options", [
    pytest.param({"deletion-vectors.enabled": "true"}, id="unaware"),
    pytest.param({"deletion-vectors.enabled": "true", "deletion-vector.index-file.target-size": "1 b"},
                 id="unaware-rolled"),
    pytest.param({"deletion-vectors.enabled": "true", "bucket": "2", "bucket-key": "id"}, id="fixed-bucket"),
])
def test_pypaimon_reads_our_append_deletion_vectors(warehouse: Any, pypaimon: PypaimonIO, options: dict[str, str]) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    t = cat.create_table("db.t", PARTITIONED, partition_keys=["dt"], options=options)
    expected: dict[int, pa.Table] = {}

    def snap() -> None:
        expected[t.latest_snapshot().id] = t.read()

    t.write(simple_rows(range(0, 40), "c1", PARTITIONED))
    snap()
    t.write(simple_rows(range(40, 70), "c2", PARTITIONED))
    snap()
    t.delete("id IN (1, 2, 3, 45, 69)")
    snap()
    t.delete("id >= 60 OR name = 'c1-11'")
    snap()
    t.compact(where="dt = '2024-01-01'")
    snap()
    kinds = [t.store.snapshots.snapshot(i).commit_kind for i in sorted(expected)]
    assert kinds == ["APPEND", "APPEND", "OVERWRITE", "OVERWRITE", "COMPACT"]
    assert expected[5].num_rows == 70 - 5 - 9 - 1
    read = pypaimon.read_all("db.t")
    assert sorted(read) == sorted(expected)
    for sid, rows in expected.items():
        assert_same_rows(read[sid], rows, f"pypaimon reading snapshot {sid}")
