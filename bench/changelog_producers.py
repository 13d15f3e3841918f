"""Benchmark: write cost of the changelog producers (not a test; numbers go to
docs/benchmarks.md).

    .venv/bin/python bench/changelog_producers.py              # W1: 2M rows, then 500k upserts
    .venv/bin/python bench/changelog_producers.py --rows 200000   # quick

On W1's data (bench/w1_data.py; primary-key table, bucket 4): the base write and the upsert
timed for changelog-producer none, input, lookup (also with lookup.cache-max-memory-size = 16 mb)
and full-compaction (with full-compaction.delta-commits = 1, so each write fully compacts and
writes its changelog, as Paimon's batch writers do), each in a fresh process (its peak RSS
reported), and the ratios against none (wall time, and CPU time of all threads, which other
processes' load disturbs less). Every table is read back and its changelog row count checked
(lookup: one +I per base row, then +I / -U+U per upserted key).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import pyarrow as pa  # noqa: E402

from paimon_sql import Catalog  # noqa: E402

PRODUCERS: dict[str, dict[str, str]] = {
    "none": {},
    "input": {"changelog-producer": "input"},
    "lookup": {"changelog-producer": "lookup"},
    "full-compaction": {"changelog-producer": "full-compaction", "full-compaction.delta-commits": "1"},
    # lookup with a small memory bound: looked-up files stream in 4 mb batches
    "lookup-16mb": {"changelog-producer": "lookup", "lookup.cache-max-memory-size": "16 mb"},
}


def one(producer: str, rows: int) -> dict[str, object]:
    from w1_data import base_rows, upsert_rows

    base, upsert = base_rows(rows), upsert_rows(rows)
    with tempfile.TemporaryDirectory() as tmp:
        cat = Catalog(tmp)
        cat.create_database("db")
        t = cat.create_table("db.t", base.schema, primary_keys=["id"], options={"bucket": "4", **PRODUCERS[producer]})
        start, cpu = time.perf_counter(), time.process_time()
        t.write(base)
        write_s, write_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        cat.get_table("db.t").write(upsert)
        upsert_s, upsert_cpu = time.perf_counter() - start, time.process_time() - cpu
        t = cat.get_table("db.t")
        n = t.read().num_rows
        snaps = t.store.snapshots
        changelog = sum(snaps.snapshot(i).changelog_record_count or 0 for i in t.snapshot_ids())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"producer": producer, "write_s": round(write_s, 3), "upsert_s": round(upsert_s, 3),
            "write_cpu_s": round(write_cpu, 3), "upsert_cpu_s": round(upsert_cpu, 3),
            "rows_read": n, "changelog_rows": changelog, "peak_rss_mib": round(peak, 1)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--one", choices=sorted(PRODUCERS))
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.rows)))
        return
    results = {}
    for p in PRODUCERS:
        out = subprocess.run([sys.executable, __file__, "--rows", str(args.rows), "--one", p],
                             check=True, capture_output=True, text=True).stdout
        results[p] = json.loads(out.strip().splitlines()[-1])
    none = results["none"]
    upserted = args.rows // 4
    for p, r in results.items():
        total, base_total = float(r["write_s"]) + float(r["upsert_s"]), float(none["write_s"]) + float(none["upsert_s"])
        r["ratio_total_vs_none"] = round(total / base_total, 2)
        r["ratio_upsert_vs_none"] = round(float(r["upsert_s"]) / float(none["upsert_s"]), 2)
        # CPU seconds (all threads): less sensitive than wall time to other processes' load
        cpu, base_cpu = float(r["write_cpu_s"]) + float(r["upsert_cpu_s"]), float(none["write_cpu_s"]) + float(none["upsert_cpu_s"])
        r["cpu_ratio_total_vs_none"] = round(cpu / base_cpu, 2)
        r["cpu_ratio_upsert_vs_none"] = round(float(r["upsert_cpu_s"]) / float(none["upsert_cpu_s"]), 2)
        assert r["rows_read"] == args.rows + args.rows // 8
        if p == "input":  # the written records
            assert r["changelog_rows"] == args.rows + upserted, r
        elif p != "none":  # +I per base row, then +I per new key and -U/+U per updated key
            assert r["changelog_rows"] == args.rows + upserted // 2 + 2 * (upserted // 2), r
    print(json.dumps({"rows": args.rows, "python": platform.python_version(), "pyarrow": pa.__version__,
                      "results": results}, indent=1))


if __name__ == "__main__":
    main()
