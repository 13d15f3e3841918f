"""Writing through ``df.write.format("paimon_sql")``: one snapshot per Spark write, appends and
upserts, overwrite modes, schema checks, and failed jobs that commit nothing and leave no files."""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql.catalog.catalog import Catalog


def _writer(df: Any, wh: str, table: str, mode: str = "append", **options: Any) -> Any:
    w = df.write.format("paimon_sql").option("warehouse", wh).option("table", table).mode(mode)
    for k, v in options.items():
        w = w.option(k, str(v))
    return w


def _write(df: Any, wh: str, table: str, mode: str = "append", **options: Any) -> None:
    _writer(df, wh, table, mode, **options).save()


def _rows(cat: Catalog, table: str, *order: str) -> list[tuple[Any, ...]]:
    t = cat.get_table(table).read()
    if order:
        t = t.sort_by([(c, "ascending") for c in order])
    return [tuple(r.values()) for r in t.to_pylist()]


def _files(root: str) -> list[str]:
    out = []
    for d, _, names in os.walk(root):
        out += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(out)


def _files_but_tombstones(root: str) -> list[str]:
    """Every file but the bookkeeping of finished writes under ``.spark-writes`` (folders with a
    ``_FINISHED`` tombstone; a task attempt killed after the abort may have left its marker)."""
    files = _files(root)
    staged = [f for f in files if f.startswith(".spark-writes/")]
    finished = {f.rsplit("/", 1)[0] for f in staged if f.endswith("/_FINISHED")}
    assert all(f.rsplit("/", 1)[0] in finished for f in staged), staged
    return [f for f in files if f not in staged]


def _age_tombstones_and_collect(root: str, table: str, warehouse: str) -> None:
    """Makes the tombstones old and starts a write: finished writes' folders are collected."""
    for f in _files(root):
        if f.endswith("/_FINISHED"):
            os.utime(os.path.join(root, f), (1, 1))
    _writer_in_process(warehouse, table, "id bigint, k string")


def test_append_many_tasks_one_snapshot(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    cat.create_table("db.app", pa.schema([("id", pa.int64()), ("k", pa.string()), ("dt", pa.string())]),
                     partition_keys=["dt"])
    df = spark.range(0, 1000, numPartitions=4).selectExpr(
        "id", "concat('k', id % 3) k", "if(id % 2 = 0, 'even', 'odd') dt")
    _write(df, warehouse, "db.app")
    t = cat.get_table("db.app")
    assert t.snapshot_ids() == [1]
    assert t.latest_snapshot().commit_kind == "APPEND"
    assert _rows(cat, "db.app", "id") == [(i, f"k{i % 3}", "even" if i % 2 == 0 else "odd") for i in range(1000)]
    # a second append, columns in another order and case; reading back through Spark
    _write(spark.range(1000, 1010).selectExpr("'x' AS DT", "'k' AS K", "id AS Id"), warehouse, "db.app")
    assert t.snapshot_ids() == [1, 2]
    back = spark.read.format("paimon_sql").option("warehouse", warehouse).option("table", "db.app").load()
    assert back.count() == 1010
    assert back.filter("dt = 'x'").count() == 10
    # no staging leftovers
    assert not [f for f in _files(t.path) if ".spark-writes" in f]
    # an empty write commits nothing
    _write(spark.range(0).selectExpr("id", "'k' k", "'x' dt"), warehouse, "db.app")
    assert t.snapshot_ids() == [1, 2]


def test_primary_key_upserts(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    cat.create_table("db.pk", pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int32())]),
                     primary_keys=["id"], options={"bucket": "3"})
    # each key written by one task (as the catalog shim's distribution requirement arranges)
    df = spark.range(0, 300, numPartitions=3).selectExpr("id", "'first' v", "cast(id as int) n")
    _write(df.repartition(3, "id"), warehouse, "db.pk")
    upd = spark.range(100, 400, numPartitions=2).selectExpr("id", "'second' v", "cast(-id as int) n")
    _write(upd.repartition(2, "id"), warehouse, "db.pk")
    t = cat.get_table("db.pk")
    assert t.snapshot_ids() == [1, 2]
    want = [(i, "first", i) for i in range(100)] + [(i, "second", -i) for i in range(100, 400)]
    assert _rows(cat, "db.pk", "id") == want
    back = spark.read.format("paimon_sql").option("warehouse", warehouse).option("table", "db.pk").load()
    assert sorted(tuple(r) for r in back.collect()) == want
    # nulls in the primary key are refused and nothing is committed
    with pytest.raises(Exception, match="primary key column 'id' contains nulls"):
        _write(spark.sql("select cast(null as bigint) id, 'x' v, 1 n"), warehouse, "db.pk")
    assert t.snapshot_ids() == [1, 2]


def test_dynamic_bucket_primary_key_table(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    cat.create_table("db.dyn", pa.schema([("id", pa.int64()), ("v", pa.int64())]), primary_keys=["id"],
                     options={"dynamic-bucket.target-row-num": "100"})
    _write(spark.range(0, 500, numPartitions=2).selectExpr("id", "id v").repartition(2, "id"),
           warehouse, "db.dyn")
    _write(spark.range(250, 750, numPartitions=2).selectExpr("id", "-id v").repartition(2, "id"),
           warehouse, "db.dyn")
    assert _rows(cat, "db.dyn", "id") == [(i, i) for i in range(250)] + [(i, -i) for i in range(250, 750)]


def test_overwrite_modes(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    cat.create_table("db.ow", pa.schema([("id", pa.int64()), ("dt", pa.string())]), partition_keys=["dt"])
    t = cat.get_table("db.ow")

    def data(ids: range, *days: str) -> Any:
        return spark.createDataFrame([(i, d) for d in days for i in ids], "id long, dt string")

    _write(data(range(3), "a", "b", "c"), warehouse, "db.ow")
    # static partition overwrite (what INSERT OVERWRITE ... PARTITION (dt='b') passes)
    _write(data(range(10, 12), "b"), warehouse, "db.ow", **{"paimon.overwrite": "static",
                                                          "paimon.overwrite.partition": '{"dt": "b"}'})
    assert _rows(cat, "db.ow", "dt", "id") == [(0, "a"), (1, "a"), (2, "a"), (10, "b"), (11, "b"),
                                               (0, "c"), (1, "c"), (2, "c")]
    assert t.latest_snapshot().commit_kind == "OVERWRITE"
    # rows outside the static partition are refused, nothing changes
    with pytest.raises(Exception, match="rows outside that partition"):
        _write(data(range(1), "a"), warehouse, "db.ow", **{"paimon.overwrite": "static",
                                                          "paimon.overwrite.partition": '{"dt": "b"}'})
    assert len(t.snapshot_ids()) == 2
    # dynamic: only the partitions the data has rows in
    _write(data(range(20, 21), "a", "d"), warehouse, "db.ow", **{"paimon.overwrite": "dynamic"})
    assert _rows(cat, "db.ow", "dt", "id") == [(20, "a"), (10, "b"), (11, "b"), (0, "c"), (1, "c"), (2, "c"),
                                               (20, "d")]
    # full: Spark's mode("overwrite")
    _write(data(range(1), "z"), warehouse, "db.ow", mode="overwrite")
    assert _rows(cat, "db.ow") == [(0, "z")]
    # full with no rows truncates
    _write(data(range(0), "z"), warehouse, "db.ow", mode="overwrite")
    assert _rows(cat, "db.ow") == []
    assert len(t.snapshot_ids()) == 5
    with pytest.raises(Exception, match="'paimon.overwrite' must be one of"):
        _write(data(range(1), "a"), warehouse, "db.ow", **{"paimon.overwrite": "sometimes"})
    with pytest.raises(Exception, match=r"\['nope'\] are not partition columns"):
        _write(data(range(1), "a"), warehouse, "db.ow", **{"paimon.overwrite": "static",
                                                          "paimon.overwrite.partition": '{"nope": "1"}'})


def test_schema_mismatch_and_bad_targets(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    t = cat.create_table("db.sm", pa.schema([("id", pa.int64()), ("k", pa.string())]))
    t.write(pa.table({"id": [1], "k": ["a"]}))
    with pytest.raises(Exception, match=r"type mismatch in \['k: int \(table has string\)'\]"):
        _write(spark.range(3).selectExpr("id", "1 k"), warehouse, "db.sm")
    with pytest.raises(Exception, match=r"missing columns \['k'\]"):
        _write(spark.range(3), warehouse, "db.sm")
    with pytest.raises(Exception, match=r"unknown columns \['x'\]"):
        _write(spark.range(3).selectExpr("id", "'a' k", "1 x"), warehouse, "db.sm")
    with pytest.raises(Exception, match=r"Cannot write into system table db.sm\$files"):
        _write(spark.range(3).selectExpr("id", "'a' k"), warehouse, "db.sm$files")
    with pytest.raises(Exception, match="Table db.nope does not exist"):
        _write(spark.range(3).selectExpr("id", "'a' k"), warehouse, "db.nope")
    assert t.snapshot_ids() == [1]


def test_failed_job_commits_nothing_and_leaves_no_files(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    # a small write buffer: the tasks flush data files long before they fail
    t = cat.create_table("db.fail", pa.schema([("id", pa.int64()), ("k", pa.string())]),
                         options={"write-buffer-size": "256kb"})
    t.write(pa.table({"id": [-1], "k": ["before"]}))
    before = _files(t.path)
    df = spark.range(0, 400_000, numPartitions=2).selectExpr(
        "id", "if(id = 390000, raise_error('injected failure'), cast(id as string)) k")
    with pytest.raises(Exception, match="injected failure"):
        _write(df, warehouse, "db.fail")
    assert t.snapshot_ids() == [1]
    assert _files_but_tombstones(t.path) == before, "raise_error"
    # a failing Python UDF upstream: the same
    from pyspark.sql.functions import udf

    @udf("string")
    def boom(i: int) -> str:
        if i == 150_000:
            raise ValueError("udf failure")
        return str(i)

    df = spark.range(0, 200_000, numPartitions=2).select("id", boom("id").alias("k"))
    with pytest.raises(Exception, match="udf failure"):
        _write(df, warehouse, "db.fail")
    assert t.snapshot_ids() == [1]
    assert _files_but_tombstones(t.path) == before, "udf"
    assert _rows(cat, "db.fail") == [(-1, "before")]


def test_primary_key_table_failure(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    t = cat.create_table("db.pkf", pa.schema([("id", pa.int64()), ("k", pa.string())]), primary_keys=["id"],
                         options={"write-buffer-size": "256kb"})
    before = _files(t.path)
    df = spark.range(0, 300_000, numPartitions=2).selectExpr(
        "id", "if(id = 290000, raise_error('pk failure'), 'v') k")
    with pytest.raises(Exception, match="pk failure"):
        _write(df, warehouse, "db.pkf")
    assert t.snapshot_ids() == []
    assert _files_but_tombstones(t.path) == before
    _age_tombstones_and_collect(t.path, "db.pkf", warehouse)
    assert _files(t.path) == before


def test_temporal_truncation_and_types(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    cat.create_table("db.tt", pa.schema([
        ("id", pa.int32()), ("ts3", pa.timestamp("ms")), ("lts", pa.timestamp("us", tz="UTC")),
        ("d", pa.date32()), ("dec", pa.decimal128(10, 2)), ("arr", pa.list_(pa.int64())),
        ("m", pa.map_(pa.string(), pa.int32())), ("st", pa.struct([("a", pa.int32()), ("b", pa.string())])),
    ]))
    df = spark.sql("""
        select 1 id, timestamp_ntz'2024-01-02 03:04:05.123456' ts3, timestamp'2024-01-02 03:04:05.5' lts,
               date'2024-02-29' d, cast(12.34 as decimal(10,2)) dec, array(1L, null) arr,
               map('a', 1) m, named_struct('a', 1, 'b', 'x') st
    """)
    _write(df, warehouse, "db.tt")
    rows = cat.get_table("db.tt").read().to_pylist()
    assert rows == [{
        "id": 1, "ts3": dt.datetime(2024, 1, 2, 3, 4, 5, 123000),
        "lts": dt.datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=dt.timezone.utc),
        "d": dt.date(2024, 2, 29), "dec": __import__("decimal").Decimal("12.34"), "arr": [1, None],
        "m": [("a", 1)], "st": {"a": 1, "b": "x"},
    }]


def test_writer_round_trip_through_spark_read(spark: Any, warehouse: str) -> None:
    cat = Catalog(warehouse)
    cat.create_table("db.rt", pa.schema([("id", pa.int64()), ("s", pa.string()), ("x", pa.float64())]))
    df = spark.range(0, 50_000, numPartitions=3).selectExpr("id", "cast(id % 97 as string) s", "cast(id as double) / 3 x")
    _write(df, warehouse, "db.rt")
    back = spark.read.format("paimon_sql").option("warehouse", warehouse).option("table", "db.rt").load()
    assert back.exceptAll(df).count() == 0 and df.exceptAll(back).count() == 0


def _writer_in_process(warehouse: str, table: str, schema: str) -> Any:
    from pyspark.sql.types import StructType

    from paimon_sql.spark.datasource import PaimonDataSource

    ds = PaimonDataSource({"warehouse": warehouse, "table": table})
    return ds.writer(StructType.fromDDL(schema), False)


def _batches(ids: range) -> list[pa.RecordBatch]:
    return pa.table({"id": list(ids)}).to_batches(max_chunksize=10)


def test_lost_and_late_task_attempts_are_cleaned(warehouse: str) -> None:
    """The task side and the driver side of a write, in process (no Spark scheduling races)."""
    import pickle

    from paimon_sql.errors import PaimonError

    cat = Catalog(warehouse)
    t = cat.create_table("db.att", pa.schema([("id", pa.int64())]))
    assert _files(t.path) == ["schema/schema-0"]

    # commit: one attempt's message arrives, a duplicate attempt's never does
    w = _writer_in_process(warehouse, "db.att", "id bigint")
    task = pickle.loads(pickle.dumps(w))
    kept = task.write(iter(_batches(range(0, 30))))
    lost = task.write(iter(_batches(range(100, 130))))
    assert kept.marker and lost.marker and kept.rows == 30
    w.commit([pickle.loads(pickle.dumps(kept))])
    assert sorted(cat.get_table("db.att").read().column("id").to_pylist()) == list(range(30))
    assert all(not os.path.exists(p) for p in lost.changes.written_paths)
    committed = _files_but_tombstones(t.path)
    assert len(_files(t.path)) == len(committed) + 1  # the lost attempt leaves a tombstone
    # a write without lost attempts leaves nothing behind
    w = _writer_in_process(warehouse, "db.att", "id bigint")
    w.commit([pickle.loads(pickle.dumps(w)).write(iter(_batches(range(30, 40))))])
    assert [f for f in _files(t.path) if ".spark-writes" in f] == [
        f for f in _files(t.path) if f.endswith("_FINISHED")]
    committed = _files_but_tombstones(t.path)

    # abort: a finished task whose message was lost and that was killed in the middle of a flush
    # (a file named for its attempt that its marker does not list), then a task still running
    # after the abort
    w = _writer_in_process(warehouse, "db.att", "id bigint")
    task = pickle.loads(pickle.dumps(w))
    finished = task.write(iter(_batches(range(200, 230))))
    attempt = os.path.basename(finished.marker)[: -len(".json")]
    half_written = os.path.join(t.path, "bucket-0", f"data-{attempt}-7.parquet")
    with open(half_written, "wb") as fh:
        fh.write(b"PAR1")
    w.abort([None, None])
    assert all(not os.path.exists(p) for p in finished.changes.written_paths)
    assert not os.path.exists(half_written)
    with pytest.raises(PaimonError, match="already been aborted or committed"):
        task.write(iter(_batches(range(300, 330))))
    assert _files_but_tombstones(t.path) == committed
    assert cat.get_table("db.att").snapshot_ids() == [1, 2]

    # the tombstones go away with a later write once they are old enough
    for f in _files(t.path):
        if f.endswith("_FINISHED"):
            os.utime(os.path.join(t.path, f), (1, 1))
    _writer_in_process(warehouse, "db.att", "id bigint")
    assert _files(t.path) == committed


def test_abort_after_a_landed_commit_keeps_the_rows(warehouse: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's commit landed but its process died before it could say so or clean up (the
    bridge killed between the snapshot and the staging clean-up); Spark then aborts the write with
    the same messages. The abort must keep the committed files (they are the table's) and still
    remove the files of the attempts that were not committed."""
    import pickle

    cat = Catalog(warehouse)
    t = cat.create_table("db.landed", pa.schema([("id", pa.int64())]), primary_keys=["id"], options={"bucket": "2"})
    w = _writer_in_process(warehouse, "db.landed", "id bigint")
    task = pickle.loads(pickle.dumps(w))
    kept = task.write(iter(_batches(range(0, 40))))
    lost = task.write(iter(_batches(range(100, 140))))  # a duplicate attempt whose message never came
    messages = [pickle.loads(pickle.dumps(kept))]
    with monkeypatch.context() as m:  # the process dies after the snapshot, before its clean-up
        m.setattr(type(w), "_clean_staging", lambda self, ok: None)
        w.commit(messages)
    assert cat.get_table("db.landed").snapshot_ids() == [1]
    w.abort(messages)
    table = cat.get_table("db.landed")
    assert sorted(table.read().column("id").to_pylist()) == list(range(40))  # every committed file is there
    assert all(os.path.exists(p) for p in kept.changes.written_paths)
    assert all(not os.path.exists(p) for p in lost.changes.written_paths)
    assert not [f for f in _files(t.path) if ".spark-writes" in f and not f.endswith("_FINISHED")]
