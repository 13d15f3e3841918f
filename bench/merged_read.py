"""Benchmark: reads through the Python API against raw pyarrow reading the same live data files
(issue 22's "merged reads" and "plain reads"; not a test, numbers go to docs/benchmarks.md).

    .venv/bin/python bench/merged_read.py            # the issue's four tables + the merge engines
    .venv/bin/python bench/merged_read.py --smoke    # tiny tables, one run each (CI: tests/bench)
    .venv/bin/python bench/merged_read.py --root /tmp/mr --tables pk_upserts_aggregation --repeat 5
        # tables kept in /tmp/mr (written by the first run, read as they are by the next ones: old and
        # new code read the same files in turns), only the tables named

Tables (columns id bigint, v bigint, name string, amount double):

1. ``pk_upserts``: primary key, bucket 4, ``--rows`` rows then ``--rows // 4`` random upserts (two
   sorted runs per bucket, overlapping everywhere: every bucket is merged).
2. ``append``: an append table (bucket -1) of ``--rows`` rows.
3. ``pk_many_commits``: primary key, bucket 2, ``--rows // 2`` rows then ``--commits`` upsert commits
   of ``--batch`` random keys each (the writers compact as they go: several sorted runs per bucket).
4. ``pk_many_commits_dv``: the same with ``deletion-vectors.enabled``.
5. With ``--engines``: table 1's shape on partial-update, aggregation (sum) and first-row.
6. With ``--engines``: table 1's shape keyed by the string column ``name`` ("name-<id>": variable
   length, not in numeric order), deduplicate and partial-update.
7. With ``--engines``: table 1's shape with composite keys: ``(name, id)`` where ``name`` is a user
   ("user-<id // 16>": 16 items a user; ``pk_upserts_string_bigint_key``) and ``(name, item)`` with
   one more string column ``item`` ("item-<id % 16>"; ``pk_upserts_two_string_key``).

The floor is raw pyarrow: ``pq.read_table`` of every live data file of the snapshot, concatenated,
no merge, no deletion vectors. Each read is the best of ``--repeat`` (raw and paimon_sql reads
interleaved); ratio = paimon_sql / raw on wall time, ``cpu_ratio`` on the process's CPU time
(``time.process_time``: all threads, steadier than wall time on a shared machine).
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
# the composite-key tables: ``name`` is a user of 16 items (``id``, or ``item`` in the second schema)
ITEM_SCHEMA = pa.schema([*SCHEMA, ("item", pa.string())])
USER_ITEMS = 16


def rows_of(keys: np.ndarray, version: int, shape: str = "plain") -> pa.Table:
    """The rows of ``keys`` (ids); ``shape``: "plain" (name "name-<id>"), "user" (name
    "user-<id // 16>") or "user_item" (the same and an ``item`` column "item-<id % 16>")."""
    n = len(keys)
    if shape == "plain":
        name = np.char.add("name-", keys.astype(str))
    else:
        name = np.char.add("user-", (keys // USER_ITEMS).astype(str))
    data = {
        "id": pa.array(keys, pa.int64()),
        "v": pa.array(np.full(n, version, dtype=np.int64)),
        "name": pa.array(name),
        "amount": pa.array(np.random.default_rng(version).random(n)),
    }
    if shape == "user_item":
        data["item"] = pa.array(np.char.add("item-", (keys % USER_ITEMS).astype(str)))
        return pa.table(data, schema=ITEM_SCHEMA)
    return pa.table(data, schema=SCHEMA)


def timed(fn: Callable[[], pa.Table]) -> tuple[float, float, int]:
    """Wall and CPU seconds of one call, and the rows it returned."""
    wall, cpu = time.perf_counter(), time.process_time()
    n = fn().num_rows
    return time.perf_counter() - wall, time.process_time() - cpu, n


def live_paths(t: object) -> list[str]:
    store = t.store  # type: ignore[attr-defined]
    return [store.entry_path(e) for e in store.manifests.live_entries(store.snapshots.latest())]


def raw_read(paths: list[str]) -> pa.Table:
    tables = [pq.read_table(p) for p in paths]
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


def measure(name: str, t: object, repeat: int) -> dict[str, object]:
    paths = live_paths(t)
    raw, ours = [], []
    for _ in range(repeat):  # interleaved: both sides see the same load
        raw.append(timed(lambda: raw_read(paths)))
        ours.append(timed(lambda: t.read()))  # type: ignore[attr-defined]
    raw_s, raw_cpu = min(r[0] for r in raw), min(r[1] for r in raw)
    ours_s, ours_cpu = min(r[0] for r in ours), min(r[1] for r in ours)
    return {"table": name, "files": len(paths), "raw_rows": raw[-1][2], "rows": ours[-1][2],
            "raw_pyarrow_s": round(raw_s, 4), "paimon_sql_s": round(ours_s, 4), "ratio": round(ours_s / raw_s, 2),
            "raw_cpu_s": round(raw_cpu, 4), "paimon_sql_cpu_s": round(ours_cpu, 4),
            "cpu_ratio": round(ours_cpu / raw_cpu, 2) if raw_cpu > 0 else None}


def pk_upserts(cat: Catalog, name: str, rows: int, options: dict[str, str], key: tuple[str, ...] = ("id",),
               shape: str = "plain") -> object:
    schema = ITEM_SCHEMA if shape == "user_item" else SCHEMA
    t = cat.create_table(f"db.{name}", schema, primary_keys=list(key), options={"bucket": "4", **options})
    t.write(rows_of(np.arange(rows, dtype=np.int64), 0, shape))
    keys = np.sort(np.random.default_rng(1).choice(rows, size=max(1, rows // 4), replace=False))
    cat.get_table(f"db.{name}").write(rows_of(keys, 1, shape))
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


ENGINES: dict[str, dict[str, str]] = {
    "partial_update": {"merge-engine": "partial-update"},
    "aggregation": {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
                    "fields.amount.aggregate-function": "max"},
    "first_row": {"merge-engine": "first-row"},
}


def tables(rows: int, commits: int, batch: int, engines: bool) -> dict[str, Callable[[Catalog], object]]:
    """Each table's name and how it is written (the table's name in the catalog is the same)."""
    out: dict[str, Callable[[Catalog], object]] = {
        "pk_upserts": lambda cat: pk_upserts(cat, "pk_upserts", rows, {}),
        "append": lambda cat: append(cat, rows),
        "pk_many_commits": lambda cat: many_commits(cat, "pk_many_commits", rows // 2, commits, batch, {}),
        "pk_many_commits_dv": lambda cat: many_commits(
            cat, "pk_many_commits_dv", rows // 2, commits, batch, {"deletion-vectors.enabled": "true"}),
    }
    if engines:
        for engine, opts in ENGINES.items():
            out["pk_upserts_" + engine] = lambda cat, n="pk_upserts_" + engine, o=opts: pk_upserts(cat, n, rows, o)
        out["pk_upserts_string_key"] = lambda cat: pk_upserts(cat, "pk_upserts_string_key", rows, {}, ("name",))
        out["pk_upserts_string_key_partial_update"] = lambda cat: pk_upserts(
            cat, "pk_upserts_string_key_partial_update", rows, ENGINES["partial_update"], ("name",))
        out["pk_upserts_string_bigint_key"] = lambda cat: pk_upserts(
            cat, "pk_upserts_string_bigint_key", rows, {}, ("name", "id"), "user")
        out["pk_upserts_two_string_key"] = lambda cat: pk_upserts(
            cat, "pk_upserts_two_string_key", rows, {}, ("name", "item"), "user_item")
    return out


def run(root: Path, rows: int, commits: int, batch: int, repeat: int, engines: bool,
        only: list[str] | None = None) -> list[dict[str, object]]:
    """Writes the tables not yet in ``root`` (a table written by an earlier run is read as it is)
    and measures their reads."""
    cat = Catalog(str(root))
    cat.create_database("db", ignore_if_exists=True)
    out = []
    for name, write in tables(rows, commits, batch, engines).items():
        if only is not None and name not in only:
            continue
        t = cat.get_table(f"db.{name}") if cat.table_exists(f"db.{name}") else write(cat)
        out.append(measure(name, t, repeat))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engines", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--smoke", action="store_true", help="tiny tables, one read each")
    ap.add_argument("--root", help="keep the tables in this folder (reused by later runs) instead of a temporary one")
    ap.add_argument("--tables", help="comma-separated names of the tables to measure (default: all)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.smoke:
        args.rows, args.commits, args.batch, args.repeat = 2_000, 3, 100, 1
    only = args.tables.split(",") if args.tables else None
    if args.root:
        Path(args.root).mkdir(parents=True, exist_ok=True)
        results = run(Path(args.root), args.rows, args.commits, args.batch, args.repeat, args.engines, only)
    else:
        with tempfile.TemporaryDirectory(prefix="merged-read-") as tmp:
            results = run(Path(tmp), args.rows, args.commits, args.batch, args.repeat, args.engines, only)
    if args.json:
        print(json.dumps(results))
        return
    print(f"# {platform.python_version()}, pyarrow {pa.__version__}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}")
    print("| table | files | rows | raw pyarrow s | paimon_sql s | ratio | raw CPU s | paimon_sql CPU s | CPU ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['table']} | {r['files']} | {r['rows']} | {r['raw_pyarrow_s']} | {r['paimon_sql_s']} | "
              f"{r['ratio']}x | {r['raw_cpu_s']} | {r['paimon_sql_cpu_s']} | {r['cpu_ratio']}x |")


if __name__ == "__main__":
    main()
