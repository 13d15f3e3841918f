"""A Spark write whose commit lost a race to a commit of the same primary-key bucket fails with a
commit conflict naming the bucket, and leaves no snapshot and no file behind."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from paimon_sql import Catalog
from paimon_sql.table.table import Table

pytestmark = pytest.mark.spark


def test_insert_that_lost_a_race_to_the_same_bucket_fails_cleanly(
    spark: Any, db: str, spark_warehouse: str, tmp_path: Path
) -> None:
    from pyspark.sql.functions import udf

    spark.sql(f"CREATE TABLE {db}.t (k BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'k', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'old'), (2, 'old')")
    marker, warehouse, name = str(tmp_path / "raced"), spark_warehouse, f"{db}.t"

    def race(k: int) -> str:
        """Runs in the INSERT's task, after the driver planned the write: another writer commits
        the same key first (once)."""
        import pyarrow as pa

        from paimon_sql import Catalog

        try:  # atomic: the two rows may be evaluated by two tasks at once
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return "mine"
        Catalog(warehouse).get_table(name).write(pa.table({"k": [1], "v": ["theirs"]}))  # type: ignore[union-attr]
        return "mine"

    spark.udf.register("race", udf(race, "string"))
    # without adaptive execution the write is planned (its base snapshot fixed) before the UDF runs
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        with pytest.raises(Exception, match=r"conflicts with a concurrent commit to bucket 0") as err:
            spark.sql(f"INSERT INTO {db}.t SELECT k, race(k) FROM VALUES (1), (3) AS s(k)").collect()
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    # the sequence-number race (a SequenceConflictError), as a commit conflict (SQLSTATE 40001:
    # retry), with the engine's message
    assert "and sequence numbers up to 2, at or above this write's 2" in str(err.value)
    assert err.value.getSqlState() == "40001"  # type: ignore[attr-defined]
    t = Catalog(warehouse).get_table(name)
    assert isinstance(t, Table)
    assert t.snapshot_ids() == [1, 2]
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM {db}.t").collect()) == [(1, "theirs"), (2, "old")]
    live = {e.file.file_name for e in t.store.manifests.live_entries(t.latest_snapshot())}  # type: ignore[arg-type]
    on_disk = {p.name for p in Path(t.path).rglob("data-*")}
    assert on_disk == live  # the failed INSERT's files are gone
    assert not [p for p in Path(t.path).rglob("*.json") if ".spark-writes" in str(p)]
