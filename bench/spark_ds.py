"""Benchmark: the ``paimon_sql`` Spark Python data source vs Spark's own parquet source.

    .venv/bin/python bench/spark_ds.py                 # 2,000,000 rows, local[2]
    .venv/bin/python bench/spark_ds.py --rows 200000   # quick run

Data: W1's columns (id BIGINT, k STRING of 10 chars, v DOUBLE, ts BIGINT), generated in Spark and
cached, in 2 partitions. Phases (each run once to warm up, then the phases of a comparison take turns for ``--repeat``
rounds; median and best seconds reported):

- write: ``df.write.parquet`` vs ``df.write.format("paimon_sql")`` into an append table and into a
  primary-key table (bucket 4, rows clustered by id first as the catalog's write does);
- scan: every column of every row (``write.format("noop")``) and ``sum(id)``, through
  ``spark.read.format("paimon_sql")`` vs ``spark.read.parquet`` of the *same data files* (the append
  table's files are plain parquet files); ``sum(id) pruned`` passes the one-column schema the
  catalog shim's column pruning passes to the data source;
- tiny: the fixed cost of reading a 10-row table both ways.

Not a test; prints one JSON object and a table.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _compare(
    repeat: int, phases: dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]]
) -> dict[str, dict[str, float]]:
    """Runs every phase once to warm up (JIT, Python workers, imports), then ``repeat`` rounds in
    which the phases take turns; returns the median and best seconds of each."""
    times: dict[str, list[float]] = {name: [] for name in phases}
    for i in range(repeat + 1):
        for name, (fn, setup) in phases.items():
            if setup is not None:
                setup()
            t0 = time.perf_counter()
            fn()
            if i:
                times[name].append(time.perf_counter() - t0)
    return {name: {"median": round(statistics.median(ts), 3), "best": round(min(ts), 3)}
            for name, ts in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--dir", default=None, help="work folder (default: a temporary one)")
    args = parser.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from paimon_sql.catalog.catalog import Catalog
    from paimon_sql.spark.datasource import PaimonDataSource

    work = args.dir or tempfile.mkdtemp(prefix="spark_ds_bench_")
    os.makedirs(work, exist_ok=True)
    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.python.filterPushdown.enabled", "true")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    spark.dataSource.register(PaimonDataSource)

    n, rep = args.rows, args.repeat
    df = spark.range(0, n, numPartitions=2).selectExpr(
        "id", "concat('k', lpad(cast(id % 1000000000 as string), 9, '0')) k",
        "rand(1) v", "1700000000000 + id * 1000 ts",
    ).cache()
    df.count()

    wh = os.path.join(work, "wh")
    shutil.rmtree(wh, ignore_errors=True)
    cat = Catalog(wh)
    cat.create_database("db")
    schema = pa.schema([("id", pa.int64()), ("k", pa.string()), ("v", pa.float64()), ("ts", pa.int64())])

    def fresh(name: str, **kw: Any) -> Callable[[], None]:
        def setup() -> None:
            cat.drop_table(f"db.{name}", ignore_if_not_exists=True)
            cat.create_table(f"db.{name}", schema, **kw)
        return setup

    def ours(table: str) -> Any:
        return spark.read.format("paimon_sql").option("warehouse", wh).option("table", f"db.{table}")

    res: dict[str, Any] = {"rows": n, "master": args.master, "repeat": rep}
    pq_dir = os.path.join(work, "parquet")
    by_key = df.repartition(2, "id").cache()
    by_key.count()

    def write_ours(data: Any, table: str) -> None:
        data.write.format("paimon_sql").option("warehouse", wh).option("table", f"db.{table}") \
            .mode("append").save()

    def noop(d: Any) -> None:
        d.write.format("noop").mode("overwrite").save()

    def sum_id(d: Any) -> Any:
        return d.agg({"id": "sum"}).collect()[0][0]

    # the runs of each comparison alternate, so that load from other processes hits both alike
    res.update(_compare(rep, {
        "write parquet": (lambda: df.write.mode("overwrite").parquet(pq_dir), None),
        "write paimon_sql append": (lambda: write_ours(df, "app"), fresh("app")),
        "write paimon_sql pk (bucket 4)": (lambda: write_ours(by_key, "pk"),
                                           fresh("pk", primary_keys=["id"], options={"bucket": "4"})),
    }))
    by_key.unpersist()

    app = cat.get_table("db.app")
    files = [p for p in (os.path.join(d, f) for d, _, fs in os.walk(app.path) for f in fs)
             if p.endswith(".parquet")]
    res["append table files"] = len(files)
    res["pk table files"] = sum(1 for d, _, fs in os.walk(cat.get_table("db.pk").path) for f in fs
                                if f.endswith(".parquet"))
    want = n * (n - 1) // 2
    assert sum_id(ours("app").schema("id bigint").load()) == want
    assert sum_id(ours("pk").schema("id bigint").load()) == want
    res.update(_compare(rep, {
        "scan parquet (same files)": (lambda: noop(spark.read.parquet(*files)), None),
        "scan paimon_sql append": (lambda: noop(ours("app").load()), None),
        "scan paimon_sql pk": (lambda: noop(ours("pk").load()), None),
    }))
    res.update(_compare(rep, {
        "sum(id) parquet (same files)": (lambda: sum_id(spark.read.parquet(*files)), None),
        "sum(id) paimon_sql append": (lambda: sum_id(ours("app").load()), None),
        "sum(id) paimon_sql append, pruned": (lambda: sum_id(ours("app").schema("id bigint").load()), None),
        "sum(id) paimon_sql pk, pruned": (lambda: sum_id(ours("pk").schema("id bigint").load()), None),
    }))

    tiny = cat.create_table("db.tiny", schema)
    tiny.write(pa.table({"id": list(range(10)), "k": ["k"] * 10, "v": [0.5] * 10, "ts": list(range(10))}))
    tiny_pq = os.path.join(work, "tiny_parquet")
    spark.range(10).selectExpr("id", "'k' k", "0.5 v", "id ts").write.mode("overwrite").parquet(tiny_pq)
    res.update(_compare(max(rep, 5), {
        "tiny select parquet": (lambda: spark.read.parquet(tiny_pq).collect(), None),
        "tiny select paimon_sql": (lambda: ours("tiny").load().collect(), None),
    }))

    ratios = {
        "write append / parquet": res["write paimon_sql append"]["median"] / res["write parquet"]["median"],
        "write pk / parquet": res["write paimon_sql pk (bucket 4)"]["median"] / res["write parquet"]["median"],
        "scan append / parquet": res["scan paimon_sql append"]["median"] / res["scan parquet (same files)"]["median"],
        "scan pk / parquet": res["scan paimon_sql pk"]["median"] / res["scan parquet (same files)"]["median"],
        "sum(id) append / parquet": res["sum(id) paimon_sql append"]["median"]
        / res["sum(id) parquet (same files)"]["median"],
        "sum(id) append pruned / parquet": res["sum(id) paimon_sql append, pruned"]["median"]
        / res["sum(id) parquet (same files)"]["median"],
        "sum(id) pk pruned / parquet": res["sum(id) paimon_sql pk, pruned"]["median"]
        / res["sum(id) parquet (same files)"]["median"],
        "tiny select extra ms": 1000 * (res["tiny select paimon_sql"]["median"]
                                        - res["tiny select parquet"]["median"]),
    }
    res["ratios"] = {k: round(v, 2) for k, v in ratios.items()}
    res["load average at end"] = os.getloadavg()[0]
    print(json.dumps(res, indent=1))
    spark.stop()
    if args.dir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
