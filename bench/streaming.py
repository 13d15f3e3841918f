"""Benchmark: streaming reads (paimon_sql.scan.streaming and Spark's ``readStream``).

    .venv/bin/python bench/streaming.py                    # 20 commits x 100,000 rows, engine + Spark
    .venv/bin/python bench/streaming.py --no-spark         # the engine part only
    .venv/bin/python bench/streaming.py --smoke --json     # tiny, engine only (the CI smoke test)

Data: W1's columns (id BIGINT, k STRING, v DOUBLE, ts BIGINT), a primary-key table (bucket 4) and
an append table (bucket -1), ``--commits`` snapshots of ``--rows`` new rows each (ids never repeat,
so every snapshot's changes are its rows and the latest snapshot holds them all).

- engine throughput: a stream from snapshot 1 (``scan.mode`` from-snapshot: each snapshot's
  changes, batch by batch through ``StreamScan.latest_offset`` / ``batch`` / ``read_stream_splits``)
  against a batch read (``Table.read``) of the latest snapshot, which holds the same rows;
- engine latency: after each of ``--latency-commits`` small commits (100 rows), the time from the
  commit's return to the stream having planned and read it (a driver polling with no wait: what a
  micro-batch costs on top of Spark's trigger);
- Spark (unless ``--no-spark``): a ``readStream`` query (``Trigger.AvailableNow``, ``noop`` sink) of
  the same snapshots against ``spark.read`` of the table (``noop``), and the latency from a commit
  (``Table.write`` in this process) to the ``foreachBatch`` call of the micro-batch that holds its
  rows, with the default trigger (a new micro-batch as soon as the previous one ends).

Every read is checked (row count, sum of ids). Prints one JSON object (``--json``) or a table;
times in seconds, median of ``--repeat`` runs after a warm-up run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _median(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    fn()  # warm-up
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times), 4), out


def _rows(start: int, n: int) -> Any:
    import numpy as np
    import pyarrow as pa
    from w1_data import BASE_TS, SCHEMA, _keys

    ids = np.arange(start, start + n, dtype=np.int64)
    return pa.table({"id": pa.array(ids), "k": _keys("k", ids), "v": pa.array(ids * 0.5),
                     "ts": pa.array(BASE_TS + ids)}, schema=SCHEMA)


def _stream_all(store: Any) -> tuple[int, int]:
    """Reads every snapshot's changes as a stream from snapshot 1: (rows, sum of ids)."""
    import pyarrow.compute as pc

    from paimon_sql.scan.streaming import StreamScan, read_stream_splits

    scan = StreamScan(store)
    start = scan.initial_offset()
    rows = total = 0
    while (end := scan.latest_offset(start)) is not None:
        tbl = read_stream_splits(scan.store, scan.batch(start, end))
        rows += tbl.num_rows
        total += pc.sum(tbl.column("id")).as_py() or 0
        start = end
    return rows, total


def engine(wh: str, commits: int, rows: int, latency_commits: int, repeat: int) -> dict[str, Any]:
    import pyarrow.compute as pc
    from w1_data import SCHEMA

    from paimon_sql import Catalog
    from paimon_sql.scan.streaming import StreamScan, read_stream_splits

    cat = Catalog(wh)
    cat.create_database("db", ignore_if_exists=True)
    out: dict[str, Any] = {}
    n = commits * rows
    want = (n, n * (n - 1) // 2)
    for name, kw in (("pk", {"primary_keys": ["id"], "options": {"bucket": "4"}}),
                     ("append", {"options": {"bucket": "-1"}})):
        t = cat.create_table(f"db.{name}", SCHEMA, **kw)
        for c in range(commits):
            t.write(_rows(c * rows, rows))
        t = cat.get_table(f"db.{name}")
        stream_store = t.copy({"scan.snapshot-id": "1"}).store
        s_stream, got = _median(lambda st=stream_store: _stream_all(st), repeat)
        assert got == want, (name, got, want)

        def batch(tt: Any = t) -> tuple[int, int]:
            tbl = tt.read(columns=["id", "k", "v", "ts"])
            return tbl.num_rows, pc.sum(tbl.column("id")).as_py()

        s_batch, got = _median(batch, repeat)
        assert got == want, (name, got, want)
        out[f"{name}: stream read s"] = s_stream
        out[f"{name}: batch read s"] = s_batch
        out[f"{name}: stream rows/s"] = round(n / s_stream)
        out[f"{name}: batch rows/s"] = round(n / s_batch)
        out[f"{name}: stream / batch"] = round(s_stream / s_batch, 2)

    # latency: commit -> planned and read by a stream positioned at the latest snapshot
    t = cat.get_table("db.pk")
    scan = StreamScan(t.copy({"scan.mode": "latest"}).store)
    init = scan.initial_offset()
    start = scan.latest_offset(init) or init  # the latest snapshot may be a COMPACT one (no changes)
    lat = []
    base = commits * rows
    for i in range(latency_commits):
        t.write(_rows(base + i * 100, 100))
        t0 = time.perf_counter()
        end = scan.latest_offset(start)
        assert end is not None
        tbl = read_stream_splits(scan.store, scan.batch(start, end))
        lat.append(time.perf_counter() - t0)
        assert tbl.num_rows == 100 and pc.min(tbl.column("id")).as_py() == base + i * 100
        start = end
    out["engine latency median s"] = round(statistics.median(lat), 4)
    out["engine latency max s"] = round(max(lat), 4)
    return out


def spark_part(wh: str, commits: int, rows: int, latency_commits: int, repeat: int, master: str) -> dict[str, Any]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from paimon_sql import Catalog
    from paimon_sql.spark import session

    spark = session(warehouse=wh, master=master, app_name="paimon-stream-bench",
                    **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "2",
                       "spark.driver.memory": "2g"})
    spark.sparkContext.setLogLevel("ERROR")
    out: dict[str, Any] = {"master": master}
    ckpt = tempfile.mkdtemp(prefix="stream_bench_cp_")
    for name in ("pk", "append"):
        # the engine's latency phase added rows to pk: the batch read says how many there are
        n = spark.sql(f"SELECT count(*) FROM paimon.db.{name}").collect()[0][0]
        assert n >= commits * rows

        def stream(nm: str = name, n: int = n) -> None:
            cp = tempfile.mkdtemp(dir=ckpt)
            q = (spark.readStream.option("scan.snapshot-id", "1").table(f"paimon.db.{nm}").writeStream
                 .format("noop").option("checkpointLocation", cp).trigger(availableNow=True).start())
            q.awaitTermination()
            got = sum(p["numInputRows"] for p in q.recentProgress)
            assert got == n, (nm, got, n)

        def batch(nm: str = name) -> None:
            spark.table(f"paimon.db.{nm}").write.format("noop").mode("overwrite").save()

        s_stream, _ = _median(stream, repeat)
        s_batch, _ = _median(batch, repeat)
        out[f"spark {name}: stream read s"] = s_stream
        out[f"spark {name}: batch read s"] = s_batch
        out[f"spark {name}: stream rows/s"] = round(n / s_stream)
        out[f"spark {name}: batch rows/s"] = round(n / s_batch)
        out[f"spark {name}: stream / batch"] = round(s_stream / s_batch, 2)

    # latency: a commit (in this process) -> the foreachBatch call whose batch holds its rows
    t = Catalog(wh).get_table("db.pk")
    base = commits * rows + latency_commits * 100 + 1_000_000
    committed: dict[int, float] = {}
    seen: dict[int, float] = {}
    lock = threading.Lock()

    def on_batch(df: Any, _batch_id: int) -> None:
        ids = [r[0] for r in df.selectExpr("min(id)").collect() if r[0] is not None]
        now = time.time()
        with lock:
            for first in ids:
                seen.setdefault(int(first), now)

    q = (spark.readStream.option("scan.mode", "latest").table("paimon.db.pk").writeStream
         .foreachBatch(on_batch).option("checkpointLocation", tempfile.mkdtemp(dir=ckpt)).start())
    try:
        # the query's start (its initial offset: the latest snapshot) must come before the commits
        deadline = time.time() + 300
        while not q.recentProgress and time.time() < deadline:
            time.sleep(0.1)
        for i in range(latency_commits):
            first = base + i * 1000
            t.write(_rows(first, 100))
            committed[first] = time.time()
            deadline = time.time() + 120
            while first not in seen and time.time() < deadline:
                time.sleep(0.01)
            assert first in seen, f"commit {i} not streamed within 120 s: {q.exception()} {q.lastProgress}"
    finally:
        q.stop()
    lat = [seen[k] - committed[k] for k in committed]
    out["spark latency median s"] = round(statistics.median(lat), 3)
    out["spark latency max s"] = round(max(lat), 3)
    spark.stop()
    shutil.rmtree(ckpt, ignore_errors=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--rows", type=int, default=100_000, help="rows per commit")
    parser.add_argument("--latency-commits", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--smoke", action="store_true", help="tiny tables, engine only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.commits, args.rows, args.latency_commits, args.repeat, args.no_spark = 3, 500, 2, 1, True
    work = tempfile.mkdtemp(prefix="stream_bench_")
    try:
        wh = os.path.join(work, "wh")
        res: dict[str, Any] = {"commits": args.commits, "rows per commit": args.rows,
                               "load average": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
        res.update(engine(wh, args.commits, args.rows, args.latency_commits, args.repeat))
        print(json.dumps(res), file=sys.stderr)  # the engine's numbers, should the Spark part fail
        if not args.no_spark:
            res.update(spark_part(wh, args.commits, args.rows, args.latency_commits, args.repeat, args.master))
        res["load average after"] = round(os.getloadavg()[0], 2)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:40s} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
