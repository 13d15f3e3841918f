"""Benchmark: MERGE INTO through the ``paimon`` Spark catalog (issue 20's speed goal).

    .venv/bin/python bench/merge_into.py                                  # 2M-row targets, 500k source rows
    .venv/bin/python bench/merge_into.py --rows 200000 --source-rows 50000 --repeat 1

A source of ``--source-rows`` rows, half of whose keys exist in the target (the other half are new),
is merged (``WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *``) into a ``--rows``-row
target:

- a primary-key table (bucket 4): delta writes keyed by the primary key (no file is rewritten);
- an append table with ``deletion-vectors.enabled``: deletion vectors for the matched rows plus the
  new rows;
- an append table without deletion vectors: copy-on-write of the touched files;

against an ``INSERT INTO`` of the same source rows into the same kind of primary-key table (an
upsert with no join: the goal is the primary-key MERGE within 2x of it) and against what a user
without a table format pays: rewriting a Spark parquet table in full (``target FULL OUTER JOIN
source``, written with ``df.write.parquet``).

Every phase restores its target first (untimed); each runs once to warm up, then ``--repeat``
rounds take turns (median and best seconds). The merged tables are checked against the expected
row count and sum. Not a test; prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.spark_ds import _compare  # noqa: E402 (after the path set-up)

# W1's columns; the target holds ids 0 .. n-1, the source ids n - m/2 .. n + m/2 - 1 (half matching)
TARGET = ("SELECT id, concat('k', lpad(cast(id as string), 9, '0')) k, rand(1) v, "
          "1700000000000 + id * 1000 ts FROM range(0, {n}, 1, 2)")
SOURCE = ("SELECT id, concat('s', lpad(cast(id as string), 9, '0')) k, rand(2) v, "
          "1800000000000 + id * 1000 ts FROM range({lo}, {hi}, 1, 2)")
COLS = "(id BIGINT, k STRING, v DOUBLE, ts BIGINT)"
MERGE = ("MERGE INTO db.{t} t USING src s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--source-rows", type=int, default=500_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--only", default="pk,dv,cow,parquet",
                        help="which targets to merge into (the INSERT baseline always runs)")
    parser.add_argument("--dir", default=None, help="work folder (default: a temporary one)")
    args = parser.parse_args()

    from paimon_sql.spark import session

    work = args.dir or tempfile.mkdtemp(prefix="merge_into_bench_")
    os.makedirs(work, exist_ok=True)
    wh = os.path.join(work, "wh")
    shutil.rmtree(wh, ignore_errors=True)
    spark = session(warehouse=wh, master=args.master, **{
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.driver.memory": "3g",
        "spark.sql.catalogImplementation": "in-memory",
    })
    spark.sparkContext.setLogLevel("ERROR")
    sql = spark.sql
    sql("CREATE NAMESPACE IF NOT EXISTS db")
    n, m, rep = args.rows, args.source_rows, args.repeat
    lo, hi = n - m // 2, n - m // 2 + m
    only = set(args.only.split(","))
    res: dict[str, Any] = {"target rows": n, "source rows": m, "matching": m // 2, "master": args.master,
                           "repeat": rep}

    # the source, materialised once so that every phase reads the same rows at the same cost
    src_dir = os.path.join(work, "source")
    sql(SOURCE.format(lo=lo, hi=hi)).write.mode("overwrite").parquet(src_dir)
    spark.read.parquet(src_dir).createOrReplaceTempView("src")
    expected_rows = hi
    expected_sum = sum(range(hi))

    props = {
        "pk": "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '4')",
        "dv": "TBLPROPERTIES ('deletion-vectors.enabled' = 'true')",
        "cow": "",
    }
    # targets are written once and copied back before each timed merge (a merge changes them)
    pristine = os.path.join(work, "pristine")
    os.makedirs(pristine, exist_ok=True)
    for name in ("pk", "dv", "cow"):
        if name not in only and name != "pk":
            continue
        sql(f"CREATE TABLE db.{name} {COLS} {props[name]}")
        sql(f"INSERT INTO db.{name} {TARGET.format(n=n)}")
        shutil.copytree(os.path.join(wh, "db.db", name), os.path.join(pristine, name))

    def restore(name: str) -> Callable[[], None]:
        def setup() -> None:
            path = os.path.join(wh, "db.db", name)
            shutil.rmtree(path)
            shutil.copytree(os.path.join(pristine, name), path)
            sql(f"REFRESH TABLE db.{name}")
        return setup

    pq_target = os.path.join(work, "pq_target")
    pq_out = os.path.join(work, "pq_out")
    sql(TARGET.format(n=n)).write.mode("overwrite").parquet(pq_target)

    def parquet_rewrite() -> None:
        t = spark.read.parquet(pq_target).alias("t")
        s = spark.table("src").alias("s")
        from pyspark.sql import functions as f
        joined = t.join(s, f.col("t.id") == f.col("s.id"), "full_outer")
        out = joined.select(*[f.coalesce(f.col(f"s.{c}"), f.col(f"t.{c}")).alias(c) for c in ("id", "k", "v", "ts")])
        out.write.mode("overwrite").parquet(pq_out)

    phases: dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]] = {
        "insert pk (upsert of the source rows)": (lambda: sql("INSERT INTO db.pk SELECT * FROM src"), restore("pk")),
    }
    def without_spj() -> None:  # the plan before the target's scan reported its bucket layout
        spark.conf.set("spark.sql.sources.v2.bucketing.enabled", "false")
        try:
            sql(MERGE.format(t="pk"))
        finally:
            spark.conf.unset("spark.sql.sources.v2.bucketing.enabled")

    if "pk" in only:
        phases["merge pk"] = (lambda: sql(MERGE.format(t="pk")), restore("pk"))
        phases["merge pk, no storage-partitioned join"] = (without_spj, restore("pk"))
    if "dv" in only:
        phases["merge append, deletion vectors"] = (lambda: sql(MERGE.format(t="dv")), restore("dv"))
    if "cow" in only:
        phases["merge append, copy-on-write"] = (lambda: sql(MERGE.format(t="cow")), restore("cow"))
    if "parquet" in only:
        phases["parquet full rewrite (full outer join)"] = (parquet_rewrite, None)
    res.update(_compare(rep, phases))

    # the last round left each target merged: check it
    for name in ("pk", "dv", "cow"):
        if name in only:
            rows, total = sql(f"SELECT count(*), sum(id) FROM db.{name}").collect()[0]
            assert (rows, total) == (expected_rows, expected_sum), (name, rows, total)
            changed = sql(f"SELECT count(*) FROM db.{name} WHERE k LIKE 's%'").collect()[0][0]
            assert changed == m, (name, changed)

    def ratio(a: str, b: str) -> float | None:
        if a in res and b in res:
            return round(res[a]["median"] / res[b]["median"], 2)
        return None

    base = "insert pk (upsert of the source rows)"
    full = "parquet full rewrite (full outer join)"
    res["ratios"] = {
        "merge pk / insert pk": ratio("merge pk", base),
        "merge pk without spj / insert pk": ratio("merge pk, no storage-partitioned join", base),
        "merge append dv / insert pk": ratio("merge append, deletion vectors", base),
        "merge append cow / insert pk": ratio("merge append, copy-on-write", base),
        "merge pk / parquet full rewrite": ratio("merge pk", full),
        "merge append dv / parquet full rewrite": ratio("merge append, deletion vectors", full),
        "merge append cow / parquet full rewrite": ratio("merge append, copy-on-write", full),
    }
    res["load average at end"] = os.getloadavg()[0]
    print(json.dumps(res, indent=1))
    spark.stop()
    if args.dir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
