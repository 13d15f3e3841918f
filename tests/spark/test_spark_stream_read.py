"""Structured Streaming reads of Paimon tables (spark.readStream), ported from Paimon's
PaimonSourceTest (statements and expected answers): scan modes, Trigger.AvailableNow, read
limits, error options, restarts from a checkpoint, consumers and read.changelog."""

from __future__ import annotations

import glob
import time
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in df.collect())


def _v(*ids: int) -> list[tuple[int, str]]:
    return [(i, f"v_{i}") for i in ids]


class Prepared:
    """Paimon's prepareTableAndGetLocation: (a INT, b STRING), 2 buckets; snapshot n inserts
    10n, 10n+1, 10n+2."""

    def __init__(self, spark: Any, warehouse: str, db: str, snapshots: int, pk: bool = True, name: str = "t"):
        self.spark = spark
        self.name = f"paimon.{db}.{name}"
        self.location = f"{warehouse}/{db}.db/{name}"
        key = "'primary-key'='a'" if pk else "'bucket-key'='a'"
        spark.sql(f"CREATE TABLE {self.name} (a INT, b STRING) TBLPROPERTIES ({key}, 'bucket'='2', "
                  "'file.format'='parquet')")
        self.all: list[tuple[int, str]] = []
        self.latest: list[tuple[int, str]] = []
        for n in range(1, snapshots + 1):
            self.insert(10 * n, 10 * n + 1, 10 * n + 2)

    def insert(self, *ids: int) -> list[tuple[int, str]]:
        values = ", ".join(f"({i}, 'v_{i}')" for i in ids)
        self.spark.sql(f"INSERT INTO {self.name} VALUES {values}")
        self.latest = _v(*ids)
        self.all = sorted(self.all + self.latest)
        return self.latest



def _start(queries: list[Any], df: Any, name: str, checkpoint: str, trigger: dict[str, Any] | None = None) -> Any:
    w = df.writeStream.format("memory").option("checkpointLocation", checkpoint).queryName(name).outputMode("append")
    if trigger:
        w = w.trigger(**trigger)
    q = w.start()
    queries.append(q)
    if not trigger:
        # one query's Python planner at a time: a busy machine may not start two within Spark's
        # connect-back timeout
        q.processAllAvailable()
    return q


def _offset(q: Any) -> tuple[int, int, bool]:
    import json

    o = json.loads(q.lastProgress["sources"][0]["endOffset"])
    return o["snapshotId"], o["index"], o["scanSnapshot"]


def _batches_with_rows(q: Any) -> int:
    return sum(1 for p in q.recentProgress if p["numInputRows"])


def test_default_scan_mode_by_path_and_table(spark: Any, db: str, spark_warehouse: str, tmp_path: Any,
                                              queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    by_path = _start(queries, spark.readStream.format("paimon").load(t.location), "s_path", str(tmp_path / "c1"))
    by_table = _start(queries, spark.readStream.table(t.name), "s_table", str(tmp_path / "c2"))
    for q in (by_path, by_table):
        q.processAllAvailable()
    # latest-full: the whole table, then what each commit adds
    assert _rows(spark.table("s_path")) == t.all == _rows(spark.table("s_table"))
    t.insert(40, 41, 42)
    t.insert(50, 51, 52)
    for q in (by_path, by_table):
        q.processAllAvailable()
    assert _rows(spark.table("s_path")) == t.all == _rows(spark.table("s_table"))


def test_scan_snapshot_id(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    latest = t.latest
    q1 = _start(queries, spark.readStream.format("paimon").option("scan.snapshot-id", 3).load(t.location),
                "s_snap3", str(tmp_path / "c1"))
    q2 = _start(queries, spark.readStream.format("paimon").option("scan.snapshot-id", 4).load(t.location),
                "s_snap4", str(tmp_path / "c2"))
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert _rows(spark.table("s_snap3")) == latest
    assert _rows(spark.table("s_snap4")) == []
    new = t.insert(40, 41, 42)
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert _rows(spark.table("s_snap3")) == sorted(latest + new)
    assert _rows(spark.table("s_snap4")) == new


def test_scan_timestamp_millis(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any]) -> None:
    ts1 = int(time.time() * 1000)
    t = Prepared(spark, spark_warehouse, db, 3)
    ts2 = int(time.time() * 1000)
    q1 = _start(queries, spark.readStream.format("paimon").option("scan.timestamp-millis", ts1).load(t.location),
                "s_ts1", str(tmp_path / "c1"))
    q2 = _start(queries, spark.readStream.format("paimon").option("scan.mode", "from-timestamp")
                .option("scan.timestamp-millis", ts2).load(t.location), "s_ts2", str(tmp_path / "c2"))
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert _rows(spark.table("s_ts1")) == t.all
    assert _rows(spark.table("s_ts2")) == []
    new = t.insert(40, 41, 42)
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert _rows(spark.table("s_ts1")) == t.all
    assert _rows(spark.table("s_ts2")) == new


@pytest.mark.parametrize(("full_mode", "delta_mode", "extra"), [
    ("latest-full", "latest", {}),
    ("from-snapshot-full", "from-snapshot", {"scan.snapshot-id": "3"}),
])
def test_full_and_delta_modes(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any],
                              full_mode: str, delta_mode: str, extra: dict[str, str]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    latest = t.latest
    q1 = _start(queries, spark.readStream.format("paimon").option("scan.mode", full_mode).options(**extra)
                .load(t.location), "s_full", str(tmp_path / "c1"))
    q2 = _start(queries, spark.readStream.format("paimon").option("scan.mode", delta_mode).options(**extra)
                .load(t.location), "s_delta", str(tmp_path / "c2"))
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert _rows(spark.table("s_full")) == t.all
    assert _rows(spark.table("s_delta")) == latest
    new = t.insert(40, 41, 42)
    q1.processAllAvailable()
    q2.processAllAvailable()
    assert _rows(spark.table("s_full")) == t.all
    assert _rows(spark.table("s_delta")) == sorted(latest + new)


def test_trigger_available_now(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    latest = t.latest
    q = _start(queries, spark.readStream.format("paimon").option("scan.mode", "latest").load(t.location),
               "s_now", str(tmp_path / "c"), {"availableNow": True})
    q.awaitTermination(120)
    assert _rows(spark.table("s_now")) == latest
    t.insert(40, 41, 42)
    assert not q.isActive
    assert _rows(spark.table("s_now")) == latest


def test_available_now_with_max_files_per_trigger(spark: Any, db: str, spark_warehouse: str, tmp_path: Any,
                                                   queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    q = _start(queries, spark.readStream.format("paimon").option("scan.mode", "latest")
               .option("read.stream.maxFilesPerTrigger", "1").load(t.location), "s_files", str(tmp_path / "c"),
               {"availableNow": True})
    q.awaitTermination(120)
    # two buckets: two splits, one per batch
    assert _batches_with_rows(q) == 2
    assert _offset(q) == (3, 1, False)
    assert _rows(spark.table("s_files")) == t.latest


def test_max_bytes_per_trigger(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3, pk=False)
    q = _start(queries, spark.readStream.format("paimon").option("scan.mode", "from-snapshot")
               .option("scan.snapshot-id", 1).option("read.stream.maxBytesPerTrigger", "1").load(t.location),
               "s_bytes", str(tmp_path / "c"))
    q.processAllAvailable()
    # every split is more than one byte: one split per batch
    from paimon_sql import Catalog
    from paimon_sql.scan.streaming import StreamScan

    scan = StreamScan(Catalog(spark_warehouse).get_table(f"{db}.t").store)
    splits = [len(scan.change_splits(scan.store.snapshots.snapshot(i)) or []) for i in (1, 2, 3)]
    assert _batches_with_rows(q) == sum(splits)
    assert _offset(q) == (3, splits[2] - 1, False)
    assert _rows(spark.table("s_bytes")) == t.all
    t.insert(40, 41, 42)
    q.processAllAvailable()
    assert _rows(spark.table("s_bytes")) == t.all


def test_max_rows_per_trigger(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    q = _start(queries, spark.readStream.format("paimon").option("read.stream.maxRowsPerTrigger", "10")
               .load(t.location), "s_rows", str(tmp_path / "c"))
    q.processAllAvailable()
    assert _batches_with_rows(q) == 1  # 9 rows: one batch
    assert _offset(q) == (3, 1, True)
    assert _rows(spark.table("s_rows")) == t.all


def test_min_rows_and_max_trigger_delay(spark: Any, db: str, spark_warehouse: str, tmp_path: Any,
                                        queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    with pytest.raises(Exception, match="Can't provide only one of"):
        _start(queries, spark.readStream.format("paimon").option("read.stream.minRowsPerTrigger", "10")
               .load(t.location), "s_bad", str(tmp_path / "c0"))
    q = _start(queries, spark.readStream.format("paimon").option("read.stream.minRowsPerTrigger", "5")
               .option("read.stream.maxTriggerDelayMs", "4000").load(t.location), "s_min", str(tmp_path / "c"))
    q.processAllAvailable()
    assert _batches_with_rows(q) == 1
    first = t.all
    assert _rows(spark.table("s_min")) == first
    t.insert(40, 41, 42)
    q.processAllAvailable()
    # 3 new rows < 5 and the delay is not reached: no batch
    assert _batches_with_rows(q) == 1 and _rows(spark.table("s_min")) == first
    time.sleep(4.5)
    q.processAllAvailable()
    assert _batches_with_rows(q) == 2
    assert _offset(q) == (4, 1, False) or _offset(q)[0] == 4
    assert _rows(spark.table("s_min")) == t.all


def test_error_options(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 3)
    with pytest.raises(Exception, match="at most one"):
        q = _start(queries, spark.readStream.format("paimon").option("scan.snapshot-id", 3)
                   .option("scan.timestamp-millis", int(time.time() * 1000)).load(t.location), "s_err1",
                   str(tmp_path / "c1"))
        q.processAllAvailable()
    with pytest.raises(Exception, match="Cannot read incremental in streaming mode"):
        _start(queries, spark.readStream.format("paimon").option("scan.mode", "incremental")
               .option("incremental-between", "3,5").load(t.location), "s_err2", str(tmp_path / "c2"))


def test_restart_from_checkpoint_reads_nothing_twice(spark: Any, db: str, spark_warehouse: str, tmp_path: Any,
                                                    queries: list[Any]) -> None:
    # Paimon's "Paimon Source and Sink" (into a parquet sink) and bug #8205: a restarted query
    # resumes from its checkpoint, scan.snapshot-id / latest-full are not applied again
    t = Prepared(spark, spark_warehouse, db, 3)
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")

    def start() -> Any:
        q = (spark.readStream.format("paimon").load(t.location).writeStream.format("parquet")
             .option("checkpointLocation", cp).option("path", out).start())
        queries.append(q)
        return q

    q1 = start()
    q1.processAllAvailable()
    t.insert(40, 41, 42)
    q1.processAllAvailable()
    q1.stop()
    assert _rows(spark.read.parquet(out)) == t.all
    q2 = start()
    q2.processAllAvailable()
    assert _rows(spark.read.parquet(out)) == t.all  # nothing read twice
    t.insert(50, 51, 52)
    q2.processAllAvailable()
    assert _rows(spark.read.parquet(out)) == t.all
    assert len(glob.glob(f"{out}/*.parquet")) >= 3


def test_consumer_id_progress_and_expiry(spark: Any, db: str, spark_warehouse: str, tmp_path: Any,
                                         queries: list[Any]) -> None:
    from paimon_sql import Catalog
    from paimon_sql.meta.consumer_manager import ConsumerManager

    t = Prepared(spark, spark_warehouse, db, 3)
    q = _start(queries, spark.readStream.format("paimon").option("consumer-id", "my_consumer")
               .option("scan.mode", "latest").load(t.location), "s_consumer", str(tmp_path / "c"))
    q.processAllAvailable()
    table = Catalog(spark_warehouse).get_table(f"{db}.t")
    consumers = ConsumerManager.of(table.store)
    # Spark tells the source a batch is done (commit) when it plans the next one: the batch that
    # read snapshot 3 completes, then the consumer's next snapshot is 4 (not before)
    t.insert(40)
    q.processAllAvailable()
    deadline = time.time() + 30
    while consumers.consumer("my_consumer") is None and time.time() < deadline:
        time.sleep(0.2)
    assert consumers.consumer("my_consumer").next_snapshot == 4  # type: ignore[union-attr]
    q.stop()
    for n in range(5, 8):
        t.insert(10 * n)
    spark.sql(f"CALL paimon.sys.expire_snapshots(table => '{db}.t', retain_max => 1, retain_min => 1)")
    # the consumer keeps snapshots 4.. from expiry; a new query of it (no checkpoint) starts there
    assert table.store.snapshots.earliest_id() == 4
    q2 = _start(queries, spark.readStream.format("paimon").option("consumer-id", "my_consumer")
                .load(t.location), "s_consumer2", str(tmp_path / "c2"))
    q2.processAllAvailable()
    assert _rows(spark.table("s_consumer2")) == _v(40, 50, 60, 70)


def test_read_changelog_row_kinds(spark: Any, db: str, spark_warehouse: str, tmp_path: Any,
                                  queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 1)
    q = _start(queries, spark.readStream.format("paimon").option("read.changelog", "true").load(t.location),
               "s_kinds", str(tmp_path / "c"))
    q.processAllAvailable()
    assert _rows(spark.table("s_kinds")) == [("+I", i, f"v_{i}") for i in (10, 11, 12)]
    spark.sql(f"DELETE FROM {t.name} WHERE a = 11")
    q.processAllAvailable()
    assert ("-D", 11, "v_11") in _rows(spark.table("s_kinds"))
    assert spark.table("s_kinds").columns == ["rowkind", "a", "b"]
    # without read.changelog the delete's record is a row as Paimon's Spark source emits it
    plain = _start(queries, spark.readStream.format("paimon").option("scan.mode", "latest").load(t.location),
                   "s_plain", str(tmp_path / "c2"))
    plain.processAllAvailable()
    assert spark.table("s_plain").columns == ["a", "b"]


def test_refused_streams(spark: Any, db: str, spark_warehouse: str, tmp_path: Any, queries: list[Any]) -> None:
    t = Prepared(spark, spark_warehouse, db, 1)
    # read.changelog is read by path (Paimon's SparkSource), not through the catalog
    with pytest.raises(Exception, match="read.changelog"):
        _start(queries, spark.readStream.option("read.changelog", "true").table(t.name), "s_ref1",
               str(tmp_path / "c1"))
    with pytest.raises(Exception, match="Streaming reads of system table"):
        _start(queries, spark.readStream.table(f"paimon.{db}.`t$snapshots`"), "s_ref2", str(tmp_path / "c2"))


def test_batch_read_inside_foreach_batch(spark: Any, db: str, spark_warehouse: str, tmp_path: Any) -> None:
    # a batch scan of a table planned inside a stream's batch stays a batch scan
    t = Prepared(spark, spark_warehouse, db, 2)
    seen: list[int] = []

    def batch(df: Any, batch_id: int) -> None:
        seen.append(df.count())
        seen.append(spark.table(t.name).where("a > 10").count())

    q = (spark.readStream.table(t.name).writeStream.foreachBatch(batch)
         .option("checkpointLocation", str(tmp_path / "c")).start())
    try:
        q.processAllAvailable()
    finally:
        q.stop()
    assert seen == [6, 5]
