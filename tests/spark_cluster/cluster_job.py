"""Runs inside its own process: a Spark standalone cluster session writes and reads Paimon tables.

Prints one JSON line with what the test checks (rows, the processes the Python work ran in)."""

from __future__ import annotations

import json
import os
import sys
import time

from paimon_sql.spark import session


def main() -> None:
    master, warehouse = sys.argv[1], sys.argv[2]
    spark = session(warehouse=warehouse, master=master, app_name="paimon-cluster-test", **{
        "spark.executor.memory": "1g", "spark.cores.max": "2", "spark.sql.shuffle.partitions": "4",
    })
    out: dict[str, object] = {"driver_pid": os.getpid()}
    spark.sql("CREATE NAMESPACE IF NOT EXISTS db")
    spark.sql("CREATE TABLE db.pk (id BIGINT, v STRING, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '4')")
    spark.sql("CREATE TABLE db.ap (id BIGINT, v STRING)")
    spark.range(0, 20000, numPartitions=4).selectExpr(
        "id", "concat('v', id) AS v", "CAST(id % 3 AS STRING) AS dt").writeTo("db.pk").append()
    spark.sql("INSERT INTO db.pk SELECT id, 'new' AS v, CAST(id % 3 AS STRING) AS dt FROM range(0, 20000, 2)")
    spark.range(0, 10000, numPartitions=4).selectExpr("id", "concat('a', id) AS v").writeTo("db.ap").append()
    out["pk_count"] = spark.sql("SELECT count(*) FROM db.pk").collect()[0][0]
    out["pk_new"] = spark.sql("SELECT count(*) FROM db.pk WHERE v = 'new'").collect()[0][0]
    out["pk_v1"] = spark.sql("SELECT count(*) FROM db.pk VERSION AS OF 1 WHERE v = 'new'").collect()[0][0]
    out["ap_sum"] = spark.sql("SELECT sum(id) FROM db.ap").collect()[0][0]  # Spark's parquet reader
    spark.conf.set("spark.paimon.read.native", "false")
    out["ap_sum_python"] = spark.sql("SELECT sum(id) FROM db.ap").collect()[0][0]  # the engine's reader
    spark.conf.unset("spark.paimon.read.native")
    out["paths"] = {t: "native" if "(native parquet" in spark.sql(f"EXPLAIN SELECT * FROM {t}").collect()[0][0]
                    else "python" for t in ("db.pk", "db.ap")}
    out["snapshots"] = [r[0] for r in spark.sql("SELECT snapshot_id FROM db.`pk$snapshots`").collect()]
    # compaction as a Spark job: one task per bucket in the executors, one commit on the driver
    sc = spark.sparkContext
    sc.setJobGroup("paimon-compact", "CALL sys.compact")
    out["compact_result"] = [tuple(r) for r in spark.sql("CALL sys.compact(table => 'db.pk')").collect()]
    tracker = sc.statusTracker()
    stages = [s for j in tracker.getJobIdsForGroup("paimon-compact") for s in tracker.getJobInfo(j).stageIds]
    out["compact_tasks"] = sum(tracker.getStageInfo(s).numTasks for s in stages)
    sc.setJobGroup("other", "queries")
    out["compact_kind"] = spark.sql(
        "SELECT commit_kind FROM db.`pk$snapshots` ORDER BY snapshot_id DESC LIMIT 1").collect()[0][0]
    out["pk_files_after"] = spark.sql("SELECT count(*) FROM db.`pk$files`").collect()[0][0]
    out["pk_count_after"] = spark.sql("SELECT count(*) FROM db.pk").collect()[0][0]
    out["pk_new_after"] = spark.sql("SELECT count(*) FROM db.pk WHERE v = 'new'").collect()[0][0]
    # cross-partition upsert: keys move partitions across the executors' tasks (one task per key)
    spark.sql("CREATE TABLE db.xp (id BIGINT, v STRING, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id')")
    spark.range(0, 6000, numPartitions=4).selectExpr(
        "id", "'old' AS v", "CAST(id % 3 AS STRING) AS dt").writeTo("db.xp").append()
    spark.sql("INSERT INTO db.xp SELECT id, 'moved' AS v, CAST((id + 1) % 3 AS STRING) AS dt FROM range(0, 6000, 2)")
    out["xp"] = [tuple(r) for r in spark.sql(
        "SELECT v, count(*), sum(IF(CAST(dt AS BIGINT) = (id + 1) % 3, 1, 0)) FROM db.xp GROUP BY v ORDER BY v"
    ).collect()]
    # row-level DML in the executors: a MERGE into the primary-key table (delta rows keyed by the
    # key), an UPDATE and a DELETE of the append table (copy-on-write of the touched files)
    spark.sql("MERGE INTO db.pk t USING (SELECT id, 'merged' AS v, CAST(id % 3 AS STRING) AS dt "
              "FROM range(19000, 21000)) s ON t.id = s.id AND t.dt = s.dt "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    spark.sql("UPDATE db.ap SET v = 'upd' WHERE id % 100 = 0")
    spark.sql("DELETE FROM db.ap WHERE id >= 9000")
    out["dml"] = [
        [tuple(r) for r in spark.sql("SELECT v, count(*) FROM db.pk WHERE v IN ('merged', 'new') "
                                     "GROUP BY v ORDER BY v").collect()],
        [tuple(r) for r in spark.sql("SELECT count(*), sum(IF(v = 'upd', 1, 0)), max(id) FROM db.ap").collect()],
        [r[0] for r in spark.sql("SELECT commit_kind FROM db.`ap$snapshots` ORDER BY snapshot_id").collect()],
    ]
    # a streaming read on the cluster (Trigger.AvailableNow into a parquet sink): the micro-batch's
    # splits are read in the executors' Python workers; a restart from the checkpoint reads only
    # the snapshot committed since
    stream_out, stream_cp = os.path.join(warehouse, "_stream_out"), os.path.join(warehouse, "_stream_cp")

    def stream_once() -> None:
        q = (spark.readStream.option("read.stream.maxFilesPerTrigger", "2").table("db.ap").writeStream
             .format("parquet").option("path", stream_out).option("checkpointLocation", stream_cp)
             .trigger(availableNow=True).start())
        q.awaitTermination(600)

    started = time.perf_counter()
    stream_once()
    first = spark.read.parquet(stream_out).selectExpr("count(*)", "sum(id)").collect()[0]
    spark.sql("INSERT INTO db.ap VALUES (100000, 'streamed')")
    stream_once()
    second = spark.read.parquet(stream_out).selectExpr("count(*)", "sum(id)", "sum(IF(v = 'streamed', 1, 0))") \
        .collect()[0]
    out["stream"] = [list(first), list(second)]
    out["stream_seconds"] = round(time.perf_counter() - started, 1)  # for the log, not checked
    # where did the Python work run? one row per task, from the Python workers
    pids = spark.range(0, 8, numPartitions=8).rdd.map(lambda _: os.getpid()).collect()
    out["worker_pids"] = sorted(set(pids))
    import paimon_sql

    out["engine_files"] = sorted(set(spark.range(0, 4, numPartitions=4).rdd.map(
        lambda _: __import__("paimon_sql").__file__).collect()) | {paimon_sql.__file__})
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()  # type: ignore[union-attr]
    out["executors"] = executors - 1  # minus the driver
    spark.stop()
    print("RESULT " + json.dumps(out))


if __name__ == "__main__":
    main()
