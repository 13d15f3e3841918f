"""Structured Streaming into Paimon tables (``paimon_sql.spark.stream_writer``): Paimon's
``PaimonSinkTest`` cases (MemoryStream is Scala-only: a file source on a folder of JSON files
added between batches stands in for it), exactly-once commits (one snapshot per micro-batch with
the batch id as commitIdentifier under the query's commit user, restarts from the checkpoint, a
replayed batch commits nothing) and a driver SIGKILLed mid-query then restarted."""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

pytestmark = [pytest.mark.spark]


class JsonFolder:
    """A folder the file source streams: each ``add`` is one new file (so one micro-batch)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.n = 0

    def add(self, *rows: dict[str, Any]) -> None:
        tmp = self.path / f".tmp-{uuid.uuid4().hex}"  # hidden: the file source skips it
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        tmp.rename(self.path / f"part-{self.n:05d}.json")
        self.n += 1


@pytest.fixture()
def folder(tmp_path: Path) -> JsonFolder:
    return JsonFolder(tmp_path / "input")


@pytest.fixture()
def checkpoint(tmp_path: Path) -> str:
    return str(tmp_path / "checkpoint")



def _location(spark: Any, db: str, table: str = "T") -> str:
    wh: str = spark.conf.get("spark.sql.catalog.paimon.warehouse")
    return os.path.join(wh, f"{db}.db", table)


def _snapshots(sql: Any, db: str, table: str = "T") -> list[tuple[Any, ...]]:
    return sql(f"SELECT snapshot_id, commit_user, commit_identifier, commit_kind FROM paimon.{db}.`{table}$snapshots` "
               "ORDER BY snapshot_id")


def _rows(sql: Any, text: str) -> list[tuple[Any, ...]]:
    return sql(text)


# -- PaimonSinkTest ---------------------------------------------------------------------------------


def test_sink_append_mode_primary_key(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                                      queries: list[Any]) -> None:
    """Paimon Sink: append mode (format('paimon').start(location) into a primary-key table)."""
    sql(f"CREATE TABLE paimon.{db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    folder.add({"a": 1, "b": "a"})
    q = (spark.readStream.schema("a INT, b STRING").json(str(folder.path)).writeStream
         .option("checkpointLocation", checkpoint).format("paimon").start(_location(spark, db)))
    queries.append(q)
    query = f"SELECT * FROM paimon.{db}.T ORDER BY a"
    q.processAllAvailable()
    assert sql(query) == [(1, "a")]
    folder.add({"a": 2, "b": "b"})
    q.processAllAvailable()
    assert sql(query) == [(1, "a"), (2, "b")]
    folder.add({"a": 2, "b": "b2"})
    q.processAllAvailable()
    assert sql(query) == [(1, "a"), (2, "b2")]
    # one APPEND snapshot per micro-batch, the batch id as commitIdentifier, the query's id as user
    assert _snapshots(sql, db) == [(1, str(q.id), 0, "APPEND"), (2, str(q.id), 1, "APPEND"),
                                   (3, str(q.id), 2, "APPEND")]


def test_sink_for_each_batch(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                             queries: list[Any]) -> None:
    """Paimon Sink: forEachBatch (each batch written with the batch writer)."""
    sql(f"CREATE TABLE paimon.{db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    location = _location(spark, db)
    q = (spark.readStream.schema("a INT, b STRING").json(str(folder.path)).writeStream
         .option("checkpointLocation", checkpoint)
         .foreachBatch(lambda batch, _id: batch.write.format("paimon").mode("append").save(location))
         .start())
    queries.append(q)
    query = f"SELECT * FROM paimon.{db}.T ORDER BY a"
    for rows, want in [({"a": 1, "b": "a"}, [(1, "a")]), ({"a": 2, "b": "b"}, [(1, "a"), (2, "b")]),
                       ({"a": 2, "b": "b2"}, [(1, "a"), (2, "b2")])]:
        folder.add(rows)
        q.processAllAvailable()
        assert sql(query) == want


def test_sink_complete_mode(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                            queries: list[Any]) -> None:
    """Paimon Sink: complete mode (an aggregation overwrites the append table every batch)."""
    sql(f"CREATE TABLE paimon.{db}.T (city STRING, population BIGINT)")
    q = (spark.readStream.schema("uid INT, city STRING").json(str(folder.path))
         .groupBy("city").count().toDF("city", "population")
         .writeStream.outputMode("complete").option("checkpointLocation", checkpoint)
         .format("paimon").start(_location(spark, db)))
    queries.append(q)
    query = f"SELECT * FROM paimon.{db}.T ORDER BY city"
    folder.add({"uid": 1, "city": "HZ"}, {"uid": 2, "city": "BJ"}, {"uid": 3, "city": "BJ"})
    q.processAllAvailable()
    assert sql(query) == [("BJ", 2), ("HZ", 1)]
    folder.add({"uid": 4, "city": "SH"}, {"uid": 5, "city": "BJ"}, {"uid": 6, "city": "HZ"})
    q.processAllAvailable()
    assert sql(query) == [("BJ", 3), ("HZ", 2), ("SH", 1)]
    folder.add({"uid": 7, "city": "HZ"}, {"uid": 8, "city": "SH"})
    q.processAllAvailable()
    assert sql(query) == [("BJ", 3), ("HZ", 3), ("SH", 2)]
    assert _snapshots(sql, db) == [(i + 1, str(q.id), i, "OVERWRITE") for i in range(3)]


def test_sink_update_mode_is_refused(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                                     queries: list[Any]) -> None:
    """Paimon Sink: update mode (Paimon supports only complete and append output modes)."""
    sql(f"CREATE TABLE paimon.{db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    folder.add({"a": 1, "b": "a"})
    with pytest.raises(Exception, match="does not support Update mode"):  # noqa: B017,PT011 - Spark's own error
        q = (spark.readStream.schema("a INT, b STRING").json(str(folder.path)).writeStream
             .outputMode("update").option("checkpointLocation", checkpoint)
             .format("paimon").start(_location(spark, db)))
        queries.append(q)
        q.processAllAvailable()
    assert _snapshots(sql, db) == []


def test_sink_aggregation_and_watermark(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                                        queries: list[Any]) -> None:
    """Paimon Sink: aggregation and watermark (windows emitted in append mode once the watermark
    passes them)."""
    from pyspark.sql import functions as F  # noqa: N812

    sql(f"CREATE TABLE paimon.{db}.T (start TIMESTAMP, stockId INT, avg_price DOUBLE)")
    data = (spark.readStream.schema("time BIGINT, stockId INT, price DOUBLE").json(str(folder.path))
            .selectExpr("timestamp_seconds(time) AS timestamp", "stockId", "price")
            .withWatermark("timestamp", "10 seconds")
            .groupBy(F.window(F.col("timestamp"), "5 seconds"), F.col("stockId"))
            .agg(F.mean("price").alias("avg_price"))
            .select("window.start", "stockId", "avg_price"))
    q = data.writeStream.option("checkpointLocation", checkpoint).format("paimon").start(_location(spark, db))
    queries.append(q)
    for rows in [[(101, 1, 1.0), (102, 1, 2.0), (104, 2, 20.0)], [(105, 2, 40.0), (107, 2, 60.0), (115, 3, 300.0)],
                 [(200, 99, 99.9)]]:
        folder.add(*({"time": t, "stockId": s, "price": p} for t, s, p in rows))
        q.processAllAvailable()
    got = sql(f"SELECT CAST(start AS BIGINT) AS start, stockId, avg_price FROM paimon.{db}.T ORDER BY start, stockId")
    assert got == [(100, 1, 1.5), (100, 2, 20.0), (105, 2, 50.0), (115, 3, 300.0)]


def test_sink_schema_evolution(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                               queries: list[Any]) -> None:
    """Paimon Sink: enable schema evolution (write.merge-schema with type-widening and explicit-cast):
    a DATE column replaces the STRING one (old rows read cast), a new column is added (old rows
    read it as null). Paimon's test also widens the INT primary key to BIGINT: Paimon's merge skips
    its own "Cannot update primary key" check there, and a key's bucket (the hash of its binary
    row) changes with its type for negative keys, so paimon_sql refuses it (nothing committed)."""
    sql(f"CREATE TABLE paimon.{db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='3')")
    sql(f"INSERT INTO paimon.{db}.T VALUES (1, '2023-08-09'), (2, '2023-08-09')")
    folder.add({"a": 1, "b": "2023-08-10", "c": 123}, {"a": 3, "b": "2023-08-10", "c": 456})

    def start(schema: str, where: str) -> Any:
        return (spark.readStream.schema(schema).json(str(folder.path)).writeStream
                .option("checkpointLocation", where).option("write.merge-schema", "true")
                .option("write.merge-schema.type-widening", "true").option("write.merge-schema.explicit-cast", "true")
                .format("paimon").start(_location(spark, db)))

    with pytest.raises(Exception, match="Cannot update primary key"):  # noqa: PT011 - Spark wraps the error
        q = start("a BIGINT, b DATE, c INT", checkpoint + "-key")
        queries.append(q)
        q.processAllAvailable()
    assert len(_snapshots(sql, db)) == 1
    assert sql(f"SELECT count(*) FROM paimon.{db}.`T$schemas`") == [(1,)]
    q = start("a INT, b DATE, c INT", checkpoint)
    queries.append(q)
    q.processAllAvailable()
    d10, d09 = datetime.date(2023, 8, 10), datetime.date(2023, 8, 9)
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY a") == [(1, d10, 123), (2, d09, None), (3, d10, 456)]
    assert [(f.name, f.dataType.simpleString()) for f in spark.table(f"paimon.{db}.T").schema.fields] == [
        ("a", "int"), ("b", "date"), ("c", "int")]


def test_sink_schema_evolution_catalog_path(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                                            queries: list[Any]) -> None:
    """write.merge-schema (the session setting) on writeStream.toTable: new columns and ROW fields added, columns the
    stream lacks written as null, a narrower type cast to the table's without type-widening; an
    invalid flag is refused by name and nothing is committed."""
    sql(f"CREATE TABLE paimon.{db}.T (id BIGINT, v STRING, s STRUCT<x: INT>)")
    sql(f"INSERT INTO paimon.{db}.T VALUES (1, 'a', named_struct('x', 1))")
    folder.add({"id": 2, "s": {"y": "n", "x": 2}, "n": 7})
    bad = (spark.readStream.schema("id INT, s STRUCT<y: STRING, x: INT>, n INT").json(str(folder.path)).writeStream
           .option("checkpointLocation", checkpoint + "-bad").option("write.merge-schema", "yes"))
    with pytest.raises(Exception, match=r"Option .write.merge-schema. of table \S*T must be true or false"):  # noqa: PT011 - Spark wraps it
        q = bad.toTable(f"paimon.{db}.T")
        queries.append(q)
        q.processAllAvailable()
    assert len(_snapshots(sql, db)) == 1
    spark.conf.set("spark.paimon.write.merge-schema", "true")  # the session setting, as Paimon's
    try:
        q = (spark.readStream.schema("id INT, s STRUCT<y: STRING, x: INT>, n INT").json(str(folder.path)).writeStream
             .option("checkpointLocation", checkpoint).toTable(f"paimon.{db}.T"))
        queries.append(q)
        q.processAllAvailable()
    finally:
        spark.conf.unset("spark.paimon.write.merge-schema")
    assert [(f.name, f.dataType.simpleString()) for f in spark.table(f"paimon.{db}.T").schema.fields] == [
        ("id", "bigint"), ("v", "string"), ("s", "struct<x:int,y:string>"), ("n", "int")]
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY id") == [(1, "a", (1, None), None), (2, None, (2, "n"), 7)]


# -- the catalog path, restarts, the commit user ---------------------------------------------------


def test_to_table_append_table_restarts_from_checkpoint(
    spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str, queries: list[Any],
) -> None:
    """writeStream.toTable into an append table; a query restarted from its checkpoint continues
    with the next batch id under the same commit user (Spark keeps the query id there)."""
    sql(f"CREATE TABLE paimon.{db}.T (id BIGINT, v STRING)")

    def start() -> Any:
        q = (spark.readStream.schema("id BIGINT, v STRING").json(str(folder.path)).writeStream
             .option("checkpointLocation", checkpoint).toTable(f"paimon.{db}.T"))
        queries.append(q)
        return q

    q1 = start()
    folder.add({"id": 1, "v": "a"}, {"id": 2, "v": "b"})
    q1.processAllAvailable()
    folder.add({"id": 1, "v": "a"})  # an append table keeps duplicates the input has
    q1.processAllAvailable()
    q1.stop()
    folder.add({"id": 3, "v": "c"})
    q2 = start()
    q2.processAllAvailable()
    assert str(q2.id) == str(q1.id) and q2.runId != q1.runId
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY id, v") == [(1, "a"), (1, "a"), (2, "b"), (3, "c")]
    assert _snapshots(sql, db) == [(1, str(q1.id), 0, "APPEND"), (2, str(q1.id), 1, "APPEND"),
                                   (3, str(q1.id), 2, "APPEND")]


def test_commit_user_prefix_and_compaction(spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str,
                                           queries: list[Any]) -> None:
    """``commit.user-prefix`` names the query's user ``<prefix>_<query id>`` (Paimon's form); a batch
    whose write compacts commits APPEND then COMPACT, both with the batch id; upserts merge."""
    sql(f"CREATE TABLE paimon.{db}.T (k INT, v INT) TBLPROPERTIES ('primary-key'='k', 'bucket'='1', "
        "'num-sorted-run.compaction-trigger'='2')")
    q = (spark.readStream.schema("k INT, v INT").json(str(folder.path)).writeStream
         .option("checkpointLocation", checkpoint).option("commit.user-prefix", "app")
         .toTable(f"paimon.{db}.T"))
    queries.append(q)
    for i in range(4):
        folder.add({"k": 1, "v": i}, {"k": 2 + i, "v": i})
        q.processAllAvailable()
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY k") == [(1, 3), (2, 0), (3, 1), (4, 2), (5, 3)]
    snaps = _snapshots(sql, db)
    assert {s[1] for s in snaps} == {f"app_{q.id}"}
    appends = [s[2] for s in snaps if s[3] == "APPEND"]
    assert appends == [0, 1, 2, 3]
    compacts = [(s[0], s[2]) for s in snaps if s[3] == "COMPACT"]
    assert compacts, snaps
    by_id = {s[0]: s for s in snaps}
    for sid, ident in compacts:  # a write's COMPACT follows its own APPEND, same identifier
        assert by_id[sid - 1][3] == "APPEND" and by_id[sid - 1][2] == ident


def test_rowkind_field_turns_stream_rows_into_deletes(
    spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str, queries: list[Any],
) -> None:
    """The sink writes rows as inserts; a primary-key table's ``rowkind.field`` makes them upserts
    and deletes (as any write of Paimon)."""
    sql(f"CREATE TABLE paimon.{db}.T (k INT, v STRING, op STRING) TBLPROPERTIES ('primary-key'='k', "
        "'bucket'='1', 'rowkind.field'='op')")
    q = (spark.readStream.schema("k INT, v STRING, op STRING").json(str(folder.path)).writeStream
         .option("checkpointLocation", checkpoint).toTable(f"paimon.{db}.T"))
    queries.append(q)
    folder.add({"k": 1, "v": "a", "op": "+I"}, {"k": 2, "v": "b", "op": "+I"})
    q.processAllAvailable()
    folder.add({"k": 1, "v": "a", "op": "-D"}, {"k": 2, "v": "b2", "op": "+U"})
    q.processAllAvailable()
    assert sql(f"SELECT k, v FROM paimon.{db}.T ORDER BY k") == [(2, "b2")]
    assert [s[2:] for s in _snapshots(sql, db)] == [(0, "APPEND"), (1, "APPEND")]


def test_full_compaction_every_delta_commits_batches(
    spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str, queries: list[Any],
) -> None:
    """``full-compaction.delta-commits`` = 2: batches 1 and 3 fully compact the buckets they wrote
    (Paimon's sink: when (batch id + 1) % n == 0), the others only append."""
    sql(f"CREATE TABLE paimon.{db}.T (k INT, v INT) TBLPROPERTIES ('primary-key'='k', 'bucket'='1', "
        "'full-compaction.delta-commits'='2')")
    q = (spark.readStream.schema("k INT, v INT").json(str(folder.path)).writeStream
         .option("checkpointLocation", checkpoint).toTable(f"paimon.{db}.T"))
    queries.append(q)
    for i in range(4):
        folder.add({"k": 1, "v": i}, {"k": 2 + i, "v": i})
        q.processAllAvailable()
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY k") == [(1, 3), (2, 0), (3, 1), (4, 2), (5, 3)]
    assert [s[2:] for s in _snapshots(sql, db)] == [
        (0, "APPEND"), (1, "APPEND"), (1, "COMPACT"), (2, "APPEND"), (3, "APPEND"), (3, "COMPACT")]
    assert sql(f"SELECT level FROM paimon.{db}.`T$files`") == [(5,)]  # one file at the top level


def test_python_data_source_learns_query_id_from_checkpoint(
    spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str, queries: list[Any],
) -> None:
    """The Python data source used directly (format('paimon_sql')) reads the query id from the
    checkpoint's metadata."""
    sql(f"CREATE TABLE paimon.{db}.T (a INT, b STRING) TBLPROPERTIES ('primary-key'='a')")
    wh = spark.conf.get("spark.sql.catalog.paimon.warehouse")
    folder.add({"a": 1, "b": "x"})
    q = (spark.readStream.schema("a INT, b STRING").json(str(folder.path)).writeStream
         .option("checkpointLocation", checkpoint).format("paimon_sql")
         .option("warehouse", wh).option("table", f"{db}.T").start())
    queries.append(q)
    q.processAllAvailable()
    assert sql(f"SELECT * FROM paimon.{db}.T") == [(1, "x")]
    assert _snapshots(sql, db) == [(1, str(q.id), 0, "APPEND")]


def test_commit_user_needs_a_query_id() -> None:
    from paimon_sql.errors import ValidationError
    from paimon_sql.spark.stream_writer import stream_commit_user

    assert stream_commit_user({"paimon.stream.query-id": "q1"}, {}, "db.t") == "q1"
    assert stream_commit_user({"paimon.stream.query-id": "q1"}, {"commit.user-prefix": "p"}, "db.t") == "p_q1"
    assert stream_commit_user({"paimon.stream.query-id": "q1", "commit.user-prefix": "o"},
                              {"commit.user-prefix": "p"}, "db.t") == "o_q1"
    with pytest.raises(ValidationError, match="db.t.*checkpointLocation"):
        stream_commit_user({}, {}, "db.t")


# -- exactly once: a replayed batch commits nothing ------------------------------------------------


def _table_files(location: str) -> set[str]:
    """Data files in the table's bucket folders."""
    out = set()
    for root, _dirs, files in os.walk(location):
        if "bucket-" in os.path.basename(root):
            out.update(os.path.join(root, f) for f in files)
    return out


def test_replayed_batch_commits_nothing(spark: Any, sql: Any, db: str) -> None:
    """Through the writer API: batch 0 commits; the same batch id written again (Spark replays a
    batch whose commit it did not record) commits nothing and its files are deleted; batch 1
    commits. Another query (another user) commits its own batch 0."""
    from paimon_sql.spark.datasource import PaimonDataSource

    sql(f"CREATE TABLE paimon.{db}.T (id BIGINT, v STRING)")
    wh = spark.conf.get("spark.sql.catalog.paimon.warehouse")
    location = _location(spark, db)

    def run(query: str, batch_id: int, ids: list[int]) -> Any:
        ds = PaimonDataSource({"warehouse": wh, "table": f"{db}.T", "paimon.stream.query-id": query})
        writer = ds.streamWriter(ds.schema(), False)
        data = pa.record_batch({"id": pa.array(ids, pa.int64()), "v": pa.array([f"b{batch_id}"] * len(ids))})
        msg = writer.write(iter([data]))
        writer.commit([msg], batch_id)
        return msg

    run("q-1", 0, [1, 2])
    before = _table_files(location)
    replay = run("q-1", 0, [1, 2])
    assert replay.changes.written_paths  # it wrote files, then the commit found batch 0 committed
    assert not any(os.path.exists(p) for p in replay.changes.written_paths)
    assert _table_files(location) == before
    assert not os.path.exists(os.path.join(location, ".spark-writes"))
    run("q-1", 1, [3])
    run("q-2", 0, [4])
    run("q-1", 1, [3])  # replayed again, after another user's commit
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY id") == [(1, "b0"), (2, "b0"), (3, "b1"), (4, "b0")]
    assert _snapshots(sql, db) == [(1, "q-1", 0, "APPEND"), (2, "q-1", 1, "APPEND"), (3, "q-2", 0, "APPEND")]


def test_replayed_batch_after_restart_without_commit_log(
    spark: Any, sql: Any, db: str, folder: JsonFolder, checkpoint: str, queries: list[Any],
) -> None:
    """The state a driver leaves when it dies after the Paimon commit and before Spark writes its
    commit log (the batch's offsets logged, its commit not): the restarted query runs the batch
    again, which commits nothing; the next batch commits."""
    sql(f"CREATE TABLE paimon.{db}.T (id BIGINT, v STRING)")
    location = _location(spark, db)

    def start() -> Any:
        q = (spark.readStream.schema("id BIGINT, v STRING").json(str(folder.path)).writeStream
             .option("checkpointLocation", checkpoint).toTable(f"paimon.{db}.T"))
        queries.append(q)
        return q

    q1 = start()
    folder.add({"id": 1, "v": "a"})
    q1.processAllAvailable()
    folder.add({"id": 2, "v": "b"})
    q1.processAllAvailable()
    q1.stop()
    _forget_commit(checkpoint, 1)
    files = _table_files(location)
    q2 = start()
    q2.processAllAvailable()
    assert os.path.exists(os.path.join(checkpoint, "commits", "1"))  # Spark ran batch 1 again
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY id") == [(1, "a"), (2, "b")]
    assert _table_files(location) == files
    folder.add({"id": 3, "v": "c"})
    q2.processAllAvailable()
    assert sql(f"SELECT * FROM paimon.{db}.T ORDER BY id") == [(1, "a"), (2, "b"), (3, "c")]
    assert [s[2] for s in _snapshots(sql, db)] == [0, 1, 2]


def _forget_commit(checkpoint: str, batch_id: int) -> None:
    """Removes batch ``batch_id`` from the checkpoint's commit log (as if the driver had died
    before writing it)."""
    commits = os.path.join(checkpoint, "commits")
    os.remove(os.path.join(commits, str(batch_id)))
    crc = os.path.join(commits, f".{batch_id}.crc")
    if os.path.exists(crc):
        os.remove(crc)


# -- a driver SIGKILLed mid-query --------------------------------------------------------------------

DRIVER = textwrap.dedent("""
    import os, sys, time
    from paimon_sql.spark import session

    warehouse, source, checkpoint, mode = sys.argv[1:5]
    spark = session(warehouse=warehouse, master="local[2]", **{
        "spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2", "spark.driver.memory": "1g"})
    spark.sparkContext.setLogLevel("FATAL")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS paimon.db")
    spark.sql("CREATE TABLE IF NOT EXISTS paimon.db.t (id BIGINT, v STRING)")
    stream = (spark.readStream.schema("id BIGINT, v STRING").option("maxFilesPerTrigger", "1")
              .json(source).writeStream.option("checkpointLocation", checkpoint))
    if mode == "once":
        q = stream.trigger(availableNow=True).toTable("paimon.db.t")
        q.awaitTermination()
        print("DONE", flush=True)
        time.sleep(600)  # the test kills this driver
    else:
        q = stream.trigger(processingTime="100 milliseconds").toTable("paimon.db.t")
        print("STARTED", flush=True)
        q.awaitTermination()
""")


def _driver(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(tmp_path / "wh"), str(tmp_path / "input"), str(tmp_path / "ck"), mode],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        start_new_session=True,  # its own process group: the JVM dies with it
    )


def _wait_line(proc: subprocess.Popen[str], word: str, timeout_s: float = 300) -> None:
    deadline = time.monotonic() + timeout_s
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"the driver exited ({proc.poll()}) before printing {word}")
        if line.startswith(word):
            return
    raise AssertionError(f"the driver did not print {word} in {timeout_s} s")


def _kill(proc: subprocess.Popen[str]) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def _engine_rows(tmp_path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[str, int]]]:
    from paimon_sql import load_catalog

    t = load_catalog(str(tmp_path / "wh")).get_table("db.t")
    rows = sorted(tuple(r.values()) for r in t.read().to_pylist())
    sm = t.store.snapshots
    snaps = [(s.commit_user, s.commit_identifier) for s in map(sm.snapshot, sm.snapshot_ids())]
    return rows, snaps


@pytest.mark.slow
def test_driver_killed_mid_query_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """A running query's driver SIGKILLed at once when a batch's snapshot appears (often before
    Spark logged the batch's commit), then restarted from the checkpoint: every input row is in the
    append table exactly once, each batch id committed once. (One kill round: each costs a driver
    JVM's start.)"""
    src = JsonFolder(tmp_path / "input")
    n = 0
    snapshot_dir = tmp_path / "wh" / "db.db" / "t" / "snapshot"
    for _round in range(1):
        proc = _driver(tmp_path, "stream")
        try:
            _wait_line(proc, "STARTED")
            seen = len(list(snapshot_dir.glob("snapshot-*"))) if snapshot_dir.exists() else 0
            for _ in range(3):
                src.add({"id": n, "v": f"r{n}"})
                n += 1
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:  # kill as soon as the next snapshot is there
                if snapshot_dir.exists() and len(list(snapshot_dir.glob("snapshot-*"))) > seen:
                    break
                time.sleep(0.005)
        finally:
            _kill(proc)
    proc = _driver(tmp_path, "once")
    try:
        _wait_line(proc, "DONE")
    finally:
        _kill(proc)
    rows, snaps = _engine_rows(tmp_path)
    assert rows == [(i, f"r{i}") for i in range(n)]
    ids = [i for _u, i in snaps]
    assert ids == sorted(set(ids))
    assert len({u for u, _i in snaps}) == 1
