"""Benchmark: reads through the Python API against raw pyarrow reading the same live data files
(issue 22's "merged reads" and "plain reads"; not a test, numbers go to docs/benchmarks.md).

    .venv/bin/python bench/merged_read.py            # the issue's four tables + the merge engines
    .venv/bin/python bench/merged_read.py --smoke    # tiny tables, one run each (CI: tests/bench)

Tables (columns id bigint, v bigint, name string, amount double):

1. ``pk_upserts``: primary key, bucket 4, ``--rows`` rows then ``--rows // 4`` random upserts (two
   sorted runs per bucket, overlapping everywhere: every bucket is merged).
2. ``append``: an append table (bucket -1) of ``--rows`` rows.
3. ``pk_many_commits``: primary key, bucket 2, ``--rows // 2`` rows then ``--commits`` upsert commits
   of ``--batch`` random keys each (the writers compact as they go: several sorted runs per bucket).
4. ``pk_many_commits_dv``: the same with ``deletion-vectors.enabled``.
5. With ``--engines``: table 1's shape on partial-update, aggregation (sum) and first-row.

The floor is raw pyarrow: ``pq.read_table`` of every live data file of the snapshot, concatenated,
no merge, no deletion vectors. Each read is the best of ``--repeat``; ratio = paimon_sql / raw.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from paimon_sql import Catalog  # noqa: E402

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("name", pa.string()), ("amount", pa.float64())])


def rows_of(keys: np.ndarray, version: int) -> pa.Table:
    n = len(keys)
    return pa.table({
        "id": pa.array(keys, pa.int64()),
        "v": pa.array(np.full(n, version, dtype=np.int64)),
        "name": pa.array(np.char.add("name-", keys.astype(str))),
        "amount": pa.array(np.random.default_rng(version).random(n)),
    }, schema=SCHEMA)


def best_of(fn: Callable[[], pa.Table], repeat: int) -> tuple[float, int]:
    best, n = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        n = fn().num_rows
        best = min(best, time.perf_counter() - start)
    return best, n


def live_paths(t: object) -> list[str]:
    store = t.store  # type: ignore[attr-defined]
    return [store.entry_path(e) for e in store.manifests.live_entries(store.snapshots.latest())]


def raw_read(paths: list[str]) -> pa.Table:
    tables = [pq.read_table(p) for p in paths]
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def measure(name: str, t: object, repeat: int) -> dict[str, object]:
    paths = live_paths(t)
    raw_s, raw_rows = best_of(lambda: raw_read(paths), repeat)
    ours_s, ours_rows = best_of(lambda: t.read(), repeat)  # type: ignore[attr-defined]
    return {"table": name, "files": len(paths), "raw_rows": raw_rows, "rows": ours_rows,
            "raw_pyarrow_s": round(raw_s, 4), "paimon_sql_s": round(ours_s, 4), "ratio": round(ours_s / raw_s, 2)}


def pk_upserts(cat: Catalog, name: str, rows: int, options: dict[str, str]) -> object:
    t = cat.create_table(f"db.{name}", SCHEMA, primary_keys=["id"], options={"bucket": "4", **options})
    t.write(rows_of(np.arange(rows, dtype=np.int64), 0))
    keys = np.sort(np.random.default_rng(1).choice(rows, size=max(1, rows // 4), replace=False))
    cat.get_table(f"db.{name}").write(rows_of(keys, 1))
    return cat.get_table(f"db.{name}")


def append(cat: Catalog, rows: int) -> object:
    t = cat.create_table("db.append", SCHEMA, options={"bucket": "-1"})
    t.write(rows_of(np.arange(rows, dtype=np.int64), 0))
    return cat.get_table("db.append")


def many_commits(cat: Catalog, name: str, rows: int, commits: int, batch: int, options: dict[str, str]) -> object:
    t = cat.create_table(f"db.{name}", SCHEMA, primary_keys=["id"], options={"bucket": "2", **options})
    t.write(rows_of(np.arange(rows, dtype=np.int64), 0))
    rng = np.random.default_rng(7)
    for i in range(1, commits + 1):
        keys = np.sort(rng.choice(rows, size=min(batch, rows), replace=False))
        cat.get_table(f"db.{name}").write(rows_of(keys, i))
    return cat.get_table(f"db.{name}")


def run(root: Path, rows: int, commits: int, batch: int, repeat: int, engines: bool) -> list[dict[str, object]]:
    cat = Catalog(str(root))
    cat.create_database("db", ignore_if_exists=True)
    out = [
        measure("pk_upserts", pk_upserts(cat, "pk_upserts", rows, {}), repeat),
        measure("append", append(cat, rows), repeat),
        measure("pk_many_commits", many_commits(cat, "pk_many", rows // 2, commits, batch, {}), repeat),
        measure("pk_many_commits_dv", many_commits(
            cat, "pk_many_dv", rows // 2, commits, batch, {"deletion-vectors.enabled": "true"}), repeat),
    ]
    if engines:
        for engine, opts in (
            ("partial-update", {"merge-engine": "partial-update"}),
            ("aggregation", {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
                             "fields.amount.aggregate-function": "max"}),
            ("first-row", {"merge-engine": "first-row"}),
        ):
            name = "pk_upserts_" + engine.replace("-", "_")
            out.append(measure(name, pk_upserts(cat, name, rows, opts), repeat))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engines", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--smoke", action="store_true", help="tiny tables, one read each")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.rows, args.commits, args.batch, args.repeat = 2_000, 3, 100, 1
    with tempfile.TemporaryDirectory(prefix="merged-read-") as tmp:
        results = run(Path(tmp), args.rows, args.commits, args.batch, args.repeat, args.engines)
    if args.json:
        print(json.dumps(results))
        return
    print(f"# {platform.python_version()}, pyarrow {pa.__version__}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    print("| table | files | rows | raw pyarrow s | paimon_sql s | ratio |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['table']} | {r['files']} | {r['rows']} | {r['raw_pyarrow_s']} | {r['paimon_sql_s']} | "
              f"{r['ratio']}x |")


if __name__ == "__main__":
    main()
