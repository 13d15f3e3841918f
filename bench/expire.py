"""Benchmark: snapshot expiry (not a test; numbers go to docs/benchmarks.md).

    .venv/bin/python bench/expire.py                      # 1,000 snapshots x 20 files
    .venv/bin/python bench/expire.py --snapshots 200      # quick run

1. A partitioned append table (20 partitions) gets ``--snapshots`` commits of one row per partition
   (20 data files per commit); every 10th commit overwrites the whole table, so deltas delete files.
   Built with ``write-only`` (no automatic expiry).
2. Expire all but 10 snapshots in one call (``retain_max = 10``, no limit) in a fresh subprocess:
   wall time, metadata files read, files deleted, peak RSS of the process (``ru_maxrss``) and the RSS
   just before the call (imports and table loaded).
3. ``remove_orphan_files`` over the whole table before that expiry (1,000 snapshots, 20,000 data
   files, plus ``--orphans`` orphan data files and manifests two days old), in a fresh subprocess,
   with every file a candidate (``older_than`` = now): wall time, metadata files read, orphans
   deleted, peak RSS.
4. The cost of automatic expiry added to a small commit (one row): median commit time of a
   ``write-only`` table vs the same table expiring after every commit, (a) with the defaults (nothing
   old enough to expire: the check only) and (b) with ``snapshot.num-retained.max = 10`` (every
   commit expires one snapshot and its files).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

import pyarrow as pa  # noqa: E402

from paimon_sql import Catalog, Table  # noqa: E402

PARTITIONS = 20

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[2])
from paimon_sql import Catalog
from paimon_sql.ops import expire as ex
from paimon_sql.ops import file_refs

reads = {"n": 0}
orig = file_refs.FileRefs.__init__
def counting_init(self, store):
    orig(self, store)
    reads["refs"] = self
file_refs.FileRefs.__init__ = counting_init
t = Catalog(sys.argv[1]).get_table("db.t")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
r = t.expire_snapshots(retain_max=10, retain_min=1, max_deletes=1_000_000)
secs = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": secs, "rss_before_kb": before, "peak_rss_kb": peak,
                  "files_read": reads["refs"].files_read, "snapshots": r.deleted_snapshots,
                  "data_files": r.deleted_data_files, "manifests": r.deleted_manifests,
                  "bytes": r.deleted_bytes, "left": t.snapshot_ids()}))
"""

ORPHAN_CHILD = r"""
import datetime, json, resource, sys, time
sys.path.insert(0, sys.argv[2])
from paimon_sql import Catalog
from paimon_sql.ops import file_refs

holder = {}
orig = file_refs.FileRefs.__init__
def counting_init(self, store):
    orig(self, store)
    holder["refs"] = self
file_refs.FileRefs.__init__ = counting_init
t = Catalog(sys.argv[1]).get_table("db.t")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
r = t.remove_orphan_files(older_than=datetime.datetime.now())
secs = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": secs, "rss_before_kb": before, "peak_rss_kb": peak,
                  "files_read": holder["refs"].files_read, "deleted": r.deleted_files, "bytes": r.deleted_bytes}))
"""


def add_orphans(wh: Path, n: int) -> None:
    """``n`` orphan data files (spread over the partitions) and ``n // 10`` orphan manifests, two days old."""
    old = time.time() - 2 * 86400
    table_dir = wh / "db.db" / "t"
    sample = next(table_dir.rglob("data-*.parquet")).read_bytes()
    paths = [table_dir / f"p=p{i % PARTITIONS:02d}" / "bucket-0" / f"data-orphan-{i}.parquet" for i in range(n)]
    paths += [table_dir / "manifest" / f"manifest-orphan-{i}" for i in range(n // 10)]
    for p in paths:
        p.write_bytes(sample)
        os.utime(p, (old, old))


def _batch(i: int) -> pa.Table:
    return pa.table({"id": [i * PARTITIONS + p for p in range(PARTITIONS)], "p": [f"p{p:02d}" for p in range(PARTITIONS)]})


def build(wh: Path, snapshots: int) -> None:
    cat = Catalog(str(wh))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("p", pa.string())]), partition_keys=["p"],
                         options={"write-only": "true"})
    assert isinstance(t, Table)
    start = time.perf_counter()
    for i in range(snapshots):
        t.write(_batch(i), overwrite=(i % 10 == 9))
        if (i + 1) % 100 == 0:
            print(f"  built {i + 1} snapshots ({time.perf_counter() - start:.0f} s)", flush=True)


def data_files(wh: Path) -> int:
    return sum(1 for _ in wh.rglob("data-*"))


def commit_cost(wh: Path, options: dict[str, str], commits: int) -> float:
    cat = Catalog(str(wh))
    cat.create_database("db", ignore_if_exists=True)
    name = "db.c" + str(abs(hash(json.dumps(options, sort_keys=True))) % 10_000)
    t = cat.create_table(name, pa.schema([("id", pa.int64()), ("p", pa.string())]), partition_keys=["p"],
                         options=options)
    assert isinstance(t, Table)
    for i in range(30):  # history to expire from
        t.write(_batch(i))
    times = []
    for i in range(commits):
        one = pa.table({"id": [i], "p": ["p00"]})
        start = time.perf_counter()
        t.write(one)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--snapshots", type=int, default=1000)
    ap.add_argument("--commits", type=int, default=40)
    ap.add_argument("--orphans", type=int, default=1000)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_expire_"))
    try:
        wh = tmp / "wh"
        print(f"building {args.snapshots} snapshots x {PARTITIONS} files ...", flush=True)
        build(wh, args.snapshots)
        files_before = data_files(wh)
        ow = tmp / "orphans"
        shutil.copytree(wh, ow)
        add_orphans(ow, args.orphans)
        ochild = tmp / "orphan_child.py"
        ochild.write_text(ORPHAN_CHILD)
        out = subprocess.run([sys.executable, str(ochild), str(ow), str(REPO)], capture_output=True, text=True,
                             check=True)
        print(f"remove_orphan_files over {files_before} data files + {args.orphans} orphans:",
              out.stdout.strip().splitlines()[-1], flush=True)
        shutil.rmtree(ow)
        child = tmp / "child.py"
        child.write_text(CHILD)
        out = subprocess.run([sys.executable, str(child), str(wh), str(REPO)], capture_output=True, text=True,
                             check=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
        res["data_files_before"] = files_before
        res["data_files_after"] = data_files(wh)
        res.pop("left")
        print("expire all but 10:", json.dumps(res))

        cw = tmp / "cw"
        base = {"snapshot.num-retained.max": "10", "snapshot.num-retained.min": "1"}
        wo = commit_cost(cw, {"write-only": "true"}, args.commits)
        dflt = commit_cost(cw, {}, args.commits)
        wo10 = commit_cost(cw, {**base, "write-only": "true"}, args.commits)
        max10 = commit_cost(cw, base, args.commits)
        print(f"small commit, median of {args.commits}: write-only {wo * 1000:.1f} ms; "
              f"defaults (check only) {dflt * 1000:.1f} ms (+{(dflt - wo) * 1000:.1f} ms); "
              f"retain max 10, write-only {wo10 * 1000:.1f} ms vs expiring one snapshot per commit "
              f"{max10 * 1000:.1f} ms (+{(max10 - wo10) * 1000:.1f} ms)")
        print(f"machine: {platform.platform()}, {os.cpu_count()} cpus, python {platform.python_version()}, "
              f"peak RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
