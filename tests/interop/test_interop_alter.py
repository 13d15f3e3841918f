"""pypaimon 2.1.0 reads a table after ordered schema changes (an added column placed FIRST, a renamed
column) and after 'bucket' was changed and the table rescaled, as paimon_sql reads it."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from paimon_sql import Catalog
from paimon_sql import types as pt
from paimon_sql.meta.schema_change import AddColumn, Move, RenameColumn, SetOption
from tests.helpers.interop_util import PypaimonIO, assert_same_rows


def test_pypaimon_reads_after_alter_and_rescale(warehouse: Path, pypaimon: PypaimonIO) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db", ignore_if_exists=True)
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())]),
                         primary_keys=["id", "dt"], partition_keys=["dt"], options={"bucket": "2"})
    t.write(pa.table({"id": list(range(10)), "v": ["a"] * 10, "dt": ["d1", "d2"] * 5}))
    t = t.alter(AddColumn.of("n", pt.IntType(), move=Move.first("n")), RenameColumn.of("v", "v2"),
                SetOption("bucket", "3"))
    t.write(pa.table({"n": [7], "id": [20], "v2": ["b"], "dt": ["d3"]}))  # a new partition: 3 buckets
    t.rescale()  # d1 and d2 to 3 buckets
    t = t.refresh()
    t.write(pa.table({"n": [8], "id": [0], "v2": ["c"], "dt": ["d1"]}))
    ours = t.read()
    assert ours.column_names == ["n", "id", "v2", "dt"] and ours.num_rows == 11
    assert {e.total_buckets for e in t.store.manifests.live_entries(t.latest_snapshot())} == {3}  # type: ignore[arg-type]
    assert_same_rows(pypaimon.read("db.t"), ours, "pypaimon after ADD COLUMN FIRST, RENAME, bucket 2 -> 3, rescale")
