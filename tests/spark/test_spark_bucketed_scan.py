"""Scans of fixed-bucket tables report Paimon's bucket layout to Spark (``NativeParquetScan``'s
``KeyGroupedPartitioning`` over ``bucket(n, key)``, one input partition per bucket, as Paimon's own
Spark scan does): aggregations and joins on the bucket key need no shuffle of the table (a
storage-partitioned join; the other side is shuffled by ``paimon_bucket``). The answers must stay
exactly those of a plan with shuffles, also for negative keys (whose hash depends on the key's
type), tables of other bucket counts and key types, partitioned tables and MERGE INTO."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.spark

KEYS = [*range(-40, 41), 2**40, -(2**40), 7 * 2**33]


def _plan(spark: Any, query: str) -> str:
    text: str = spark.sql("EXPLAIN " + query).collect()[0][0]
    return text


def _above_scan(plan: str, table: str) -> str:
    """The operators between the scan of ``table`` and the join or aggregation over it in an
    EXPLAIN (e.g. "Exchange", "Sort Exchange", "Project")."""
    lines = plan.splitlines()
    for i, line in enumerate(lines):
        if "BatchScan" in line and f"`{table}`" in line:
            ops = []
            for above in reversed(lines[:i]):
                op = above.strip(" :+-").split(" ")[0]
                if "Join" in op or "Aggregate" in op:
                    break
                ops.append(op)
            return " ".join(reversed(ops))
    raise AssertionError(f"no scan of {table} in:\n{plan}")


def _scan_shuffled(plan: str, table: str) -> bool:
    """Whether an Exchange sits between the scan of ``table`` and its join in an EXPLAIN."""
    return "Exchange" in _above_scan(plan, table)


@pytest.fixture(autouse=True)
def no_broadcast(spark: Any) -> Iterator[None]:
    """Joins of these small tables as shuffled joins (a broadcast needs no layout)."""
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    try:
        yield
    finally:
        spark.conf.unset("spark.sql.autoBroadcastJoinThreshold")


@pytest.fixture()
def no_spj(spark: Any) -> Iterator[None]:
    spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "false")
    try:
        yield
    finally:
        spark.conf.unset("spark.sql.sources.v2.bucketing.enabled")


def _create(spark: Any, db: str, name: str, key_type: str, bucket: int, extra: str = "") -> str:
    t = f"paimon.{db}.{name}"
    spark.sql(f"CREATE TABLE {t} (id {key_type}, v STRING{extra}) "
              f"TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '{bucket}')")
    return t


def test_aggregation_and_self_join_need_no_shuffle(spark: Any, sql: Any, db: str) -> None:
    t = _create(spark, db, "t", "BIGINT", 3)
    spark.createDataFrame([(k, f"v{k}") for k in KEYS], "id BIGINT, v STRING").writeTo(t).append()
    group = f"SELECT id, count(*) AS c FROM {t} GROUP BY id"
    plan = _plan(spark, group)
    assert "Exchange" not in plan, plan
    assert sorted(sql(group)) == sorted((k, 1) for k in KEYS)
    join = f"SELECT a.id, b.v FROM {t} a JOIN {t} b ON a.id = b.id"
    assert not _scan_shuffled(_plan(spark, join), "t")
    assert sorted(sql(join)) == sorted((k, f"v{k}") for k in KEYS)


def test_joins_across_bucket_counts_and_key_types(spark: Any, sql: Any, db: str) -> None:
    """Tables of 3 and 4 buckets, and an INT key beside a BIGINT one (same values, other hashes for
    negative keys): Spark must shuffle where the layouts differ, and every answer is the plain join's."""
    rng = random.Random(7)
    small = [k for k in KEYS if -(2**31) <= k < 2**31]
    a = _create(spark, db, "a", "BIGINT", 3)
    b = _create(spark, db, "b", "BIGINT", 4)
    c = _create(spark, db, "c", "INT", 3)
    d = _create(spark, db, "d", "BIGINT", 3)
    rows_a = [(k, "a") for k in KEYS]
    rows_b = [(k, "b") for k in rng.sample(KEYS, 40)]
    rows_c = [(k, "c") for k in rng.sample(small, 50)]
    rows_d = [(k, "d") for k in rng.sample(KEYS, 60)]
    spark.createDataFrame(rows_a, "id BIGINT, v STRING").writeTo(a).append()
    spark.createDataFrame(rows_b, "id BIGINT, v STRING").writeTo(b).append()
    spark.createDataFrame(rows_c, "id INT, v STRING").writeTo(c).append()
    spark.createDataFrame(rows_d, "id BIGINT, v STRING").writeTo(d).append()

    def joined(left: list[tuple[int, str]], right: list[tuple[int, str]]) -> list[tuple[int, str, str]]:
        keys = {k for k, _ in right}
        return sorted((k, v, right[0][1]) for k, v in left if k in keys)

    ad = f"SELECT a.id, a.v, d.v FROM {a} a JOIN {d} d ON a.id = d.id"
    plan = _plan(spark, ad)
    assert not _scan_shuffled(plan, "a") and not _scan_shuffled(plan, "d"), plan  # the same layout
    assert sorted(sql(ad)) == joined(rows_a, rows_d)
    assert sorted(sql(f"SELECT a.id, a.v, b.v FROM {a} a JOIN {b} b ON a.id = b.id")) == joined(rows_a, rows_b)
    ac = f"SELECT a.id, a.v, c.v FROM {a} a JOIN {c} c ON a.id = c.id"
    assert sorted(sql(ac)) == joined(rows_a, rows_c)
    # a source that is not a Paimon table: shuffled by the table's bucket function
    spark.createDataFrame(rows_b, "id BIGINT, v STRING").createOrReplaceTempView("bucketed_scan_src")
    av = f"SELECT a.id, a.v, s.v FROM {a} a JOIN bucketed_scan_src s ON a.id = s.id"
    plan = _plan(spark, av)
    assert not _scan_shuffled(plan, "a") and "paimon_bucket" in plan, plan
    assert sorted(sql(av)) == joined(rows_a, rows_b)


def test_partitioned_table(spark: Any, sql: Any, db: str) -> None:
    """The buckets of every partition are read as one partition per bucket number: a key's rows of
    all partitions meet its other side."""
    t = f"paimon.{db}.p"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, dt STRING, v STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id, dt', 'bucket' = '3')")
    rows = [(k, dt, f"{dt}{k}") for k in KEYS for dt in ("x", "y") if (k + len(dt)) % 3]
    spark.createDataFrame(rows, "id BIGINT, dt STRING, v STRING").writeTo(t).append()
    q = f"SELECT id, count(*) FROM {t} GROUP BY id"
    assert "Exchange" not in _plan(spark, q)
    assert sorted(sql(q)) == sorted(Counter(k for k, _, _ in rows).items())


def test_merge_into_reads_the_target_unshuffled(spark: Any, sql: Any, db: str) -> None:
    t = _create(spark, db, "m", "BIGINT", 4)
    spark.createDataFrame([(k, "old") for k in KEYS], "id BIGINT, v STRING").writeTo(t).append()
    src = [(k, "new") for k in KEYS[::3]] + [(10**12 + i, "ins") for i in range(-5, 5)]
    spark.createDataFrame(src, "id BIGINT, v STRING").createOrReplaceTempView("bucketed_scan_merge_src")
    merge = (f"MERGE INTO {t} t USING bucketed_scan_merge_src s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    plan = _plan(spark, merge)
    # one file per bucket, sorted by the key: neither shuffled nor sorted
    assert _above_scan(plan, "m") == "Project", plan
    spark.sql(merge)
    want = dict.fromkeys(KEYS, "old") | dict(src)
    assert sorted(sql(f"SELECT * FROM {t}")) == sorted(want.items())


def test_merge_into_sparse_and_empty_targets(spark: Any, sql: Any, db: str) -> None:
    """Buckets without a file (or no file at all): the source's keys of every bucket are inserted."""
    src = [(k, "s") for k in KEYS]
    spark.createDataFrame(src, "id BIGINT, v STRING").createOrReplaceTempView("bucketed_scan_sparse_src")
    for name, old in (("sparse", [1, 2]), ("empty", [])):
        t = _create(spark, db, name, "BIGINT", 8)
        if old:
            spark.createDataFrame([(k, "t") for k in old], "id BIGINT, v STRING").writeTo(t).append()
        spark.sql(f"MERGE INTO {t} t USING bucketed_scan_sparse_src s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET v = 'u' WHEN NOT MATCHED THEN INSERT *")
        want = {k: ("u" if k in old else "s") for k in KEYS}
        assert sorted(sql(f"SELECT * FROM {t}")) == sorted(want.items())


def test_partitioned_buckets_are_sorted_by_spark(spark: Any, sql: Any, db: str) -> None:
    """A bucket number's files of two table partitions are read by one task, in no key order across
    them: the scan reports its layout but no ordering (Spark sorts that side for a sort-merge join)."""
    t = f"paimon.{db}.r"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, dt STRING, v STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id, dt', 'bucket' = '2', 'bucket-key' = 'id')")
    spark.sql(f"INSERT INTO {t} SELECT id, IF(id % 2 = 0, 'x', 'y'), 'a' FROM range(-50, 50)")
    spark.range(-60, 60).selectExpr("id", "'s' AS v").createOrReplaceTempView("bucketed_scan_r")
    join = f"SELECT t.id, t.v, s.v FROM {t} t JOIN bucketed_scan_r s ON t.id = s.id"
    plan = _plan(spark, join)
    assert "native parquet, 4 files" in plan and _above_scan(plan, "r") == "Sort", plan
    assert sorted(sql(join)) == sorted((k, "a", "s") for k in range(-50, 50))


@pytest.mark.parametrize("ddl", [
    "(id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '-1')",  # dynamic bucket
    "(id TIMESTAMP, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')",  # a timestamp key
    "(id BIGINT, k BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id, k', 'bucket' = '2')",  # two key columns
    "(id BIGINT, v STRING)",  # an append table without buckets
])
def test_layouts_not_reported(spark: Any, sql: Any, db: str, ddl: str) -> None:
    t = f"paimon.{db}.n"
    spark.sql(f"CREATE TABLE {t} {ddl}")
    spark.sql(f"INSERT INTO {t} SELECT * FROM {t} LIMIT 0")  # no-op: the shape only
    cols = [f.name for f in spark.table(t).schema.fields]
    values = ", ".join("TIMESTAMP '2024-01-01 00:00:00'" if f.dataType.simpleString() == "timestamp"
                       else ("'x'" if f.name == "v" else "1") for f in spark.table(t).schema.fields)
    spark.sql(f"INSERT INTO {t} VALUES ({values})")
    q = f"SELECT {cols[0]}, count(*) FROM {t} GROUP BY {cols[0]}"
    assert "Exchange" in _plan(spark, q)
    assert len(sql(q)) == 1


def test_bucketing_off(spark: Any, sql: Any, db: str, no_spj: None) -> None:
    t = _create(spark, db, "o", "BIGINT", 3)
    spark.createDataFrame([(k, "v") for k in KEYS], "id BIGINT, v STRING").writeTo(t).append()
    q = f"SELECT id, count(*) FROM {t} GROUP BY id"
    assert "Exchange" in _plan(spark, q)
    assert len(sql(q)) == len(KEYS)
