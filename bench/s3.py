"""Object stores: commit latency and W1 read throughput on a local S3-compatible server (moto's,
on 127.0.0.1) against the local file system, and the requests per commit and per planned scan
(what costs money on a real store), counted from the server's request log.

    .venv/bin/python bench/s3.py                 # 200,000 W1 rows, 20 small commits
    .venv/bin/python bench/s3.py --rows 2000000  # the W1 definition

moto is a Python server: its latency and throughput are far below a real store's, so the ratios
say how much of the engine's time is spent waiting for the store at moto's speed, and the request
counts (independent of the server) are the numbers that carry over. Not a test: numbers go to
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

import pyarrow as pa  # noqa: E402
from w1_data import SCHEMA, base_rows  # noqa: E402

from paimon_sql.catalog.factory import load_catalog  # noqa: E402
from paimon_sql.table.table import Table  # noqa: E402
from tests.helpers.s3_server import S3Server, running_s3_server  # noqa: E402


def _table(uri: str, options: dict[str, str], name: str) -> Table:
    cat = load_catalog(uri, options)
    cat.create_database("db", ignore_if_exists=True)
    t = cat.create_table(f"db.{name}", SCHEMA, primary_keys=["id"], options={"bucket": "4"})
    assert isinstance(t, Table)
    return t


def _commits(t: Table, n: int) -> list[float]:
    out = []
    for i in range(n):
        rows = base_rows(100, seed=i)
        t0 = time.perf_counter()
        t.write(rows)
        out.append(time.perf_counter() - t0)
    return out


def _w1_read(t: Table, rows: pa.Table) -> tuple[float, float]:
    t0 = time.perf_counter()
    t.write(rows)
    write_s = time.perf_counter() - t0
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        got = t.read()
        best = min(best, time.perf_counter() - t0)
        assert got.num_rows == rows.num_rows
    return write_s, best


def _requests(server: S3Server, fn: Any) -> Counter[str]:
    time.sleep(0.2)  # the log of earlier requests is flushed
    before = server.requests()
    fn()
    time.sleep(0.5)
    after = server.requests()
    return Counter({k: after[k] - before.get(k, 0) for k in after if after[k] - before.get(k, 0)})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--commits", type=int, default=20)
    args = ap.parse_args()
    rows = base_rows(args.rows)
    result: dict[str, Any] = {"rows": args.rows, "commits": args.commits}
    with tempfile.TemporaryDirectory() as tmp:
        with running_s3_server(Path(tmp)) as server:
            bucket = server.new_bucket()
            stores = {"local": (str(Path(tmp) / "wh"), {}), "s3": (f"s3://{bucket}/wh", server.options())}
            for kind, (uri, opts) in stores.items():
                small = _table(uri, opts, "small")
                lat = _commits(small, args.commits)
                w1 = _table(uri, opts, "w1")
                write_s, read_s = _w1_read(w1, rows)
                result[kind] = {
                    "commit_median_ms": round(statistics.median(lat) * 1000, 1),
                    "w1_write_s": round(write_s, 3),
                    "w1_read_s": round(read_s, 3),
                    "w1_read_rows_per_s": round(args.rows / read_s),
                }
                if kind == "s3":
                    fresh = _table(uri, opts, "fresh")
                    fresh.write(base_rows(100, seed=1))
                    result["s3"]["requests_per_2nd_commit"] = dict(
                        _requests(server, lambda t=fresh: t.write(base_rows(100, seed=2))))
                    # after --commits commits: snapshot expiry looks at the retained snapshots too
                    result["s3"]["requests_per_small_commit"] = dict(
                        _requests(server, lambda t=small: t.write(base_rows(100, seed=999))))
                    result["s3"]["requests_per_planned_scan"] = dict(_requests(server, lambda t=w1: t.plan()))
                    result["s3"]["requests_per_w1_read"] = dict(_requests(server, lambda t=w1: t.read()))
    loc, s3 = result["local"], result["s3"]
    result["ratios_s3_over_local"] = {
        "commit_latency": round(s3["commit_median_ms"] / loc["commit_median_ms"], 2),
        "w1_write": round(s3["w1_write_s"] / loc["w1_write_s"], 2),
        "w1_read_time": round(s3["w1_read_s"] / loc["w1_read_s"], 2),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
