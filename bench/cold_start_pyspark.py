"""Benchmark: cold start of a PySpark session built with ``paimon_sql.spark.session()`` (issue 22).

    .venv/bin/python bench/cold_start_pyspark.py --repeat 3 --pause 5

Each round runs, in a fresh Python process per case, ``session()`` (local[2]), an optional pause
(the user reading the notebook's output, ``--pause`` seconds), then the statements of
``bench/cold_start.py`` (CREATE TABLE, INSERT, SELECT, INSERT, SELECT, ``t$snapshots``), each timed
around ``spark.sql(...).collect()``. Cases: a parquet table of Spark's session catalog (warm-up off:
the plain Spark baseline), a paimon primary-key table with the background start of the Python
workers (``spark.paimon_sql.warmup.enabled``, the default) and without it. Prints one JSON object
(median and best seconds per statement). Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cold_start import STEPS, script  # noqa: E402

CASES = {  # name: (table kind, warm-up)
    "parquet": ("parquet", "false"),
    "pk warm": ("pk", "true"),
    "pk cold": ("pk", "false"),
}


def child(kind: str, warmup: str, pause: float, folder: str) -> dict[str, float]:
    from paimon_sql.spark import session

    t0 = time.perf_counter()
    spark = session(os.path.join(folder, "wh"), master="local[2]", **{
        "spark.paimon_sql.warmup.enabled": warmup,
        "spark.sql.warehouse.dir": os.path.join(folder, "spark-wh"),
        "spark.ui.enabled": "false",
    })
    out: dict[str, float] = {"session": time.perf_counter() - t0}
    time.sleep(pause)
    # how the background start stood when the first statement came ("running", "done in N ms", ...)
    warmup = getattr(spark.sparkContext._jvm.org.paimon_sql.spark.Warmup, "await")(0)
    print(f"warm-up at the first statement: {warmup}", file=sys.stderr, flush=True)
    for step, stmt in zip(STEPS, [s for s in script(kind).split(";\n") if s.strip()], strict=False):
        t = time.perf_counter()
        spark.sql(stmt).collect()
        out[step] = round(time.perf_counter() - t, 3)
    spark.stop()
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--pause", type=float, default=5.0)
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        kind, warmup, folder = a.child
        print(json.dumps(child(kind, warmup, a.pause, folder)))
        return
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in CASES}
    for _ in range(a.repeat):
        for name, (kind, warmup) in CASES.items():  # in turns
            with tempfile.TemporaryDirectory(prefix="cold-py-") as folder:
                r = subprocess.run([sys.executable, __file__, "--pause", str(a.pause), "--child", kind, warmup,
                                    folder], capture_output=True, text=True, timeout=900)
                if r.returncode != 0:
                    raise RuntimeError(f"{name} failed:\n{r.stderr[-3000:]}")
                runs[name].append(json.loads(r.stdout.strip().splitlines()[-1]))
                print(name, *[x for x in r.stderr.splitlines() if "warm-up at" in x], file=sys.stderr)
    report = {"repeat": a.repeat, "pause": a.pause, "cases": {
        name: {k: {"median": round(statistics.median(r[k] for r in rs), 3), "best": min(r[k] for r in rs)}
               for k in rs[0]}
        for name, rs in runs.items()}}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
