"""Reads and writes of catalog tables through a real SparkSession: INSERT (INTO, OVERWRITE: full,
static and dynamic partitions), DataFrame writeTo, pruning and pushdown, time travel, system tables."""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def _table(wh: str, name: str) -> Any:
    return Catalog(wh).get_table(name)


def _plan(spark: Any, query: str) -> str:
    text: str = spark.sql("EXPLAIN " + query).collect()[0][0]
    return text


@pytest.fixture()
def parts(spark: Any, db: str) -> str:
    """An append table partitioned by dt with rows in dt=a and dt=b (snapshot 1)."""
    spark.sql(f"CREATE TABLE {db}.p (id BIGINT, v STRING, dt STRING) PARTITIONED BY (dt)")
    spark.sql(f"INSERT INTO {db}.p VALUES (1, 'x', 'a'), (2, 'y', 'a'), (3, 'z', 'b')")
    return f"{db}.p"


def test_insert_into_is_one_snapshot_per_statement(spark: Any, sql: Any, parts: str, spark_warehouse: str) -> None:
    spark.sql(f"INSERT INTO {parts} SELECT id, CAST(id AS STRING), IF(id % 2 = 0, 'a', 'c') FROM range(10, 20)")
    t = _table(spark_warehouse, parts)
    assert t.snapshot_ids() == [1, 2]
    assert t.latest_snapshot().commit_kind == "APPEND"
    assert sql(f"SELECT count(*), sum(id) FROM {parts}") == [(13, 6 + sum(range(10, 20)))]
    assert sql(f"SELECT dt, count(*) FROM {parts} GROUP BY dt ORDER BY dt") == [("a", 7), ("b", 1), ("c", 5)]


def test_insert_overwrite_whole_table(spark: Any, sql: Any, parts: str, spark_warehouse: str) -> None:
    spark.sql(f"INSERT OVERWRITE {parts} VALUES (9, 'n', 'z')")
    assert sql(f"SELECT * FROM {parts}") == [(9, "n", "z")]
    assert _table(spark_warehouse, parts).latest_snapshot().commit_kind == "OVERWRITE"


def test_insert_overwrite_static_partition(spark: Any, sql: Any, parts: str) -> None:
    spark.sql(f"INSERT OVERWRITE {parts} PARTITION (dt='a') VALUES (7, 'q')")
    assert sql(f"SELECT * FROM {parts} ORDER BY id") == [(3, "z", "b"), (7, "q", "a")]
    spark.sql(f"INSERT OVERWRITE {parts} PARTITION (dt='new') SELECT 8, 'w'")
    assert sql(f"SELECT dt, id FROM {parts} ORDER BY id") == [("b", 3), ("a", 7), ("new", 8)]


def test_insert_overwrite_dynamic_partitions(spark: Any, sql: Any, parts: str) -> None:
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        spark.sql(f"INSERT OVERWRITE {parts} VALUES (5, 'd', 'b'), (6, 'e', 'c')")
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert sql(f"SELECT dt, id FROM {parts} ORDER BY id") == [("a", 1), ("a", 2), ("b", 5), ("c", 6)]


def test_dataframe_write_to_append_and_overwrite_partitions(spark: Any, sql: Any, parts: str, spark_warehouse: str) -> None:
    df = spark.createDataFrame([(4, "w", "b"), (5, "v", "c")], "id BIGINT, v STRING, dt STRING")
    df.writeTo(parts).append()
    assert sql(f"SELECT count(*) FROM {parts}") == [(5,)]
    spark.createDataFrame([(6, "u", "b")], "id BIGINT, v STRING, dt STRING").writeTo(parts).overwritePartitions()
    assert sql(f"SELECT dt, id FROM {parts} ORDER BY id") == [("a", 1), ("a", 2), ("c", 5), ("b", 6)]
    assert [s.commit_kind for s in (_table(spark_warehouse, parts).snapshot(i) for i in (2, 3))] == ["APPEND", "OVERWRITE"]


def test_primary_key_table_upserts_and_writes_are_clustered_by_key(spark: Any, sql: Any, db: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.pk (id BIGINT, v STRING, n INT) TBLPROPERTIES ('primary-key'='id', 'bucket'='2')"
    )
    spark.sql(f"INSERT INTO {db}.pk SELECT id, 'old', 1 FROM range(100)")
    spark.sql(f"INSERT INTO {db}.pk SELECT id, 'new', 2 FROM range(50, 150)")
    assert sql(f"SELECT v, count(*), sum(n) FROM {db}.pk GROUP BY v ORDER BY v") == [("new", 100, 200), ("old", 50, 50)]
    plan = _plan(spark, f"INSERT INTO {db}.pk SELECT id, 'x', 3 FROM range(10)")
    # clustered by Paimon's bucket of the key: one task writes each bucket (one file per bucket)
    assert "hashpartitioning(applyfunctionexpression(paimon_bucket_slot, 2, id#" in plan


def test_aggregation_merge_engine(spark: Any, sql: Any, db: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.agg (k STRING, total BIGINT, mx INT) TBLPROPERTIES ('primary-key'='k', "
        "'merge-engine'='aggregation', 'fields.total.aggregate-function'='sum', 'fields.mx.aggregate-function'='max')"
    )
    spark.sql(f"INSERT INTO {db}.agg VALUES ('a', 1, 5), ('b', 2, 1)")
    spark.sql(f"INSERT INTO {db}.agg VALUES ('a', 10, 3), ('b', 20, 9)")
    assert sql(f"SELECT * FROM {db}.agg ORDER BY k") == [("a", 11, 5), ("b", 22, 9)]


def test_column_pruning_and_count(spark: Any, sql: Any, parts: str) -> None:
    plan = _plan(spark, f"SELECT v FROM {parts}")
    assert "BatchScan" in plan and "[v#" in plan and "id#" not in plan
    assert sql(f"SELECT count(*) FROM {parts}") == [(3,)]
    assert sql(f"SELECT count(*) FROM {parts} WHERE dt = 'a'") == [(2,)]


def test_filter_pushdown_shows_partition_filters(spark: Any, sql: Any, parts: str) -> None:
    plan = _plan(spark, f"SELECT id FROM {parts} WHERE dt = 'a' AND id > 1")
    partition_filters = plan.split("PartitionFilters: [")[1].split("]")[0]
    pushed_filters = plan.split("PushedFilters: [")[1].split("]")[0]
    assert "EqualTo(dt,a)" in partition_filters and "id" not in partition_filters, plan
    assert "GreaterThan(id,1)" in pushed_filters, plan
    assert sql(f"SELECT id FROM {parts} WHERE dt = 'a' AND id > 1") == [(2,)]
    assert sql(f"SELECT id FROM {parts} WHERE dt = 'b' OR id = 1 ORDER BY id") == [(1,), (3,)]


def test_time_travel(spark: Any, sql: Any, parts: str, spark_warehouse: str) -> None:
    t = _table(spark_warehouse, parts)
    t1 = t.latest_snapshot().time_millis
    spark.sql(f"INSERT INTO {parts} VALUES (4, 'w', 'b')")
    spark.sql(f"CALL sys.create_tag(table => '{parts}', tag => 'first', snapshot => 1)")
    spark.sql(f"INSERT OVERWRITE {parts} VALUES (0, 'o', 'o')")
    assert sql(f"SELECT count(*) FROM {parts}") == [(1,)]
    assert sql(f"SELECT count(*) FROM {parts} VERSION AS OF 1") == [(3,)]
    assert sql(f"SELECT count(*) FROM {parts} VERSION AS OF 2") == [(4,)]
    assert sql(f"SELECT count(*) FROM {parts} VERSION AS OF 'first'") == [(3,)]
    ts = dt.datetime.fromtimestamp(t1 / 1000, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    assert sql(f"SELECT count(*) FROM {parts} TIMESTAMP AS OF '{ts}'") == [(3,)]
    assert sql(f"SELECT id FROM {parts} FOR SYSTEM_VERSION AS OF 2 WHERE dt = 'b' ORDER BY id") == [(3,), (4,)]
    assert sql(f"SELECT sum(record_count) FROM {parts}$files VERSION AS OF 1") == [(3,)]
    assert sql(f"SELECT sum(record_count) FROM {parts}$files") == [(1,)]
    reader = spark.read.option("scan.snapshot-id", "2")
    assert reader.table(parts).count() == 4
    assert spark.read.option("scan.tag-name", "first").table(parts).count() == 3


def test_time_travel_errors(spark: Any, parts: str) -> None:
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match="Snapshot 99 of table .* does not exist"):
        spark.sql(f"SELECT * FROM {parts} VERSION AS OF 99").collect()
    with pytest.raises(AnalysisException, match="has no tag 'nope'"):
        spark.sql(f"SELECT * FROM {parts} VERSION AS OF 'nope'").collect()
    with pytest.raises(AnalysisException, match="no snapshot at or before"):
        spark.sql(f"SELECT * FROM {parts} TIMESTAMP AS OF '2000-01-01 00:00:00'").collect()


def test_system_tables_quoted_and_unquoted(spark: Any, sql: Any, parts: str) -> None:
    db, t = parts.split(".")
    snaps = sql(f"SELECT snapshot_id, commit_kind FROM {db}.`{t}$snapshots`")
    assert snaps == [(1, "APPEND")]
    assert sql(f"SELECT snapshot_id FROM {db}.{t}$snapshots") == [(1,)]
    files = spark.sql(f"SELECT * FROM {parts}$files")
    assert "file_path" in files.columns and "record_count" in files.columns
    assert sum(r.record_count for r in files.collect()) == 3
    assert sql(f"SELECT count(*) FROM paimon.{db}.{t}$files WHERE partition LIKE '%b%'") == [(1,)]
    assert spark.table(f"{parts}$snapshots").count() == 1


def test_system_table_errors_leave_the_table_unchanged(spark: Any, parts: str, spark_warehouse: str) -> None:
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException, match="nope"):
        spark.sql(f"SELECT * FROM {parts}$nope").collect()
    with pytest.raises(AnalysisException) as e:
        spark.sql(f"SELECT * FROM {parts}_missing$files").collect()
    assert e.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    with pytest.raises(AnalysisException, match="does not support append"):
        spark.sql(f"INSERT INTO {parts}$options VALUES ('k', 'v')")
    assert _table(spark_warehouse, parts).snapshot_ids() == [1]


def test_failed_write_commits_nothing_and_leaves_no_files(spark: Any, sql: Any, parts: str, spark_warehouse: str) -> None:
    t = _table(spark_warehouse, parts)

    def data_files() -> set[str]:
        out = set()
        for root, _, names in os.walk(t.path):
            out |= {os.path.join(root, n) for n in names if n.startswith("data-")}
        return out

    before = data_files()
    with pytest.raises(Exception, match="boom"):
        spark.sql(
            f"INSERT INTO {parts} SELECT IF(id = 999, CAST(raise_error('boom') AS BIGINT), id), 'f', 'a' "
            "FROM range(0, 1000, 1, 2)"
        )
    assert t.snapshot_ids() == [1]
    assert data_files() == before
    assert sql(f"SELECT count(*) FROM {parts}") == [(3,)]


def test_not_null_primary_key(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.nn (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id')")
    with pytest.raises(Exception, match="NOT_NULL|null"):
        spark.sql(f"INSERT INTO {db}.nn VALUES (NULL, 'x')")
    assert sql(f"SELECT count(*) FROM {db}.nn") == [(0,)]


def test_dataframe_overwrite_by_partition_filter(spark: Any, sql: Any, parts: str) -> None:
    from pyspark.sql.functions import col

    spark.createDataFrame([(8, "o", "a")], "id BIGINT, v STRING, dt STRING").writeTo(parts).overwrite(col("dt") == "a")
    assert sql(f"SELECT dt, id FROM {parts} ORDER BY id") == [("b", 3), ("a", 8)]
    with pytest.raises(Exception, match="overwrite|OVERWRITE"):
        spark.createDataFrame([(9, "o", "a")], "id BIGINT, v STRING, dt STRING").writeTo(parts).overwrite(col("id") > 1)
    assert sql(f"SELECT count(*) FROM {parts}") == [(2,)]


def test_java_written_table_and_its_branch(spark: Any, sql: Any, spark_warehouse: str) -> None:
    import shutil

    name = "append_table_with_rt_branch"
    src = os.path.join("/work/shared/fixtures/java-corpus/parquet", f"{name}.db")
    if not os.path.isdir(src):
        src = os.path.join(os.path.dirname(__file__), "..", "fixtures", "java-corpus", "parquet", f"{name}.db")
    if not os.path.isdir(src):
        pytest.skip("the Java-written corpus is not available")
    dst = os.path.join(spark_warehouse, f"{name}.db")
    if not os.path.exists(dst):
        shutil.copytree(src, dst)
    cat = Catalog(spark_warehouse)
    main = cat.get_table(f"{name}.{name}").read()
    branch = cat.get_table(f"{name}.{name}$branch_rt").read()
    assert (name, name, False) in sql(f"SHOW TABLES IN {name}")
    assert sql(f"SELECT count(*) FROM {name}.{name}") == [(main.num_rows,)]
    assert sql(f"SELECT count(*) FROM {name}.`{name}$branch_rt`") == [(branch.num_rows,)]
    assert sql(f"SELECT count(*) FROM {name}.{name}$branch_rt$snapshots") == [
        (len(cat.get_table(f"{name}.{name}$branch_rt").snapshot_ids()),)
    ]
    with pytest.raises(Exception, match="nope"):
        spark.sql(f"SELECT * FROM {name}.`{name}$branch_nope`").collect()


def test_reads_work_when_python_filter_pushdown_was_turned_off(spark: Any, sql: Any, parts: str) -> None:
    # the session extension turns it on once; a user who turns it off keeps it off (the scans then
    # give Spark a Python reader that takes no filters: Spark filters the rows itself)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
    try:
        assert sql(f"SELECT id FROM {parts} WHERE dt = 'b'") == [(3,)]
        assert sql(f"SELECT id FROM {parts} WHERE id = 3") == [(3,)]
        assert spark.conf.get("spark.sql.python.filterPushdown.enabled") == "false"
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")


def test_static_overwrite_of_the_null_partition(spark: Any, sql: Any, parts: str) -> None:
    spark.sql(f"INSERT INTO {parts} VALUES (40, 'n1', NULL), (41, 'n2', NULL)")
    before = sorted(r for r in sql(f"SELECT * FROM {parts}") if r[2] is not None)
    spark.sql(f"INSERT OVERWRITE {parts} PARTITION (dt=NULL) SELECT 42, 'n3'")
    rows = sql(f"SELECT * FROM {parts}")
    assert sorted(r for r in rows if r[2] is None) == [(42, "n3", None)]
    assert sorted(r for r in rows if r[2] is not None) == before  # other partitions untouched
