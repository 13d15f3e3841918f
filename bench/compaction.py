"""Benchmark: the LSM under upserts, and full compaction (not a test; numbers go to docs/benchmarks.md).

    .venv/bin/python bench/compaction.py                   # 1M rows, 100 commits of 10k, 2M compaction
    .venv/bin/python bench/compaction.py --rows 200000 --commits 20 --compact-rows 400000   # quick

1. Degradation (issue 10): a primary-key table (bucket 2, default options) loaded with ``--rows``
   rows in one commit, then ``--commits`` upserts of ``--batch`` random existing keys. The full
   read is timed after the first upsert and after the last (median of 3), with the number of live
   data files; once with writers compacting (the default) and once with ``write-only`` = true (no
   compaction: what paimon_sql did before).
3. Deletion vectors: ``--compact-rows // 4`` random keys upserted into ``--compact-rows`` rows
   (bucket 2) with ``deletion-vectors.enabled`` (writers compact level 0 up and write vectors) and
   without (merge-on-read); the read of each and of the same rows fully compacted, and the upsert
   times.
4. Merge engines: W1's shape (write ``--compact-rows``, upsert a quarter, read) on deduplicate,
   aggregation (sum, max, last_non_null_value) and partial-update (two sequence groups).
2. Full compaction of a ``--compact-rows`` primary-key table (bucket 1) holding two overlapping
   runs (all keys, then half the keys again) against raw pyarrow doing the same work on the same
   files: read both, concat, stable sort by key and sequence, keep the newest per key, write one
   parquet file with the same compression; and against raw pyarrow reading both files and writing
   as many rows (no merge: the floor, issue 22's "within 1.5x").
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from paimon_sql import Catalog  # noqa: E402


def _rows(keys: np.ndarray, version: int) -> pa.Table:
    n = len(keys)
    return pa.table({
        "id": pa.array(keys, pa.int64()),
        "v": pa.array(np.full(n, version, dtype=np.int64)),
        "name": pa.array([f"name-{version}"] * n) if n < 50_000 else pa.array(
            np.char.add("name-", np.full(n, str(version)))),
        "amount": pa.array(np.random.default_rng(version).random(n)),
    })


def _median_read(t: object) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        n = t.read().num_rows  # type: ignore[attr-defined]
        times.append(time.perf_counter() - start)
        assert n > 0
    return statistics.median(times)


def _files(t: object) -> int:
    return sum(1 for _ in t.store.manifests.live_entries(t.store.snapshots.latest()))  # type: ignore[attr-defined]


def degradation(root: Path, rows: int, commits: int, batch: int, write_only: bool) -> dict[str, object]:
    cat = Catalog(str(root / ("wo" if write_only else "lsm")))
    cat.create_database("db", ignore_if_exists=True)
    opts = {"bucket": "2"}
    if write_only:
        opts["write-only"] = "true"
    schema = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("name", pa.string()), ("amount", pa.float64())])
    t = cat.create_table("db.t", schema, primary_keys=["id"], options=opts)
    t.write(_rows(np.arange(rows, dtype=np.int64), 0))
    rng = np.random.default_rng(7)
    write_times = []
    read_first = files_first = None
    for i in range(1, commits + 1):
        keys = rng.choice(rows, size=batch, replace=False)
        start = time.perf_counter()
        t = cat.get_table("db.t")
        t.write(_rows(np.sort(keys), i))
        write_times.append(time.perf_counter() - start)
        if i == 1:
            read_first, files_first = _median_read(t), _files(t)
    t = cat.get_table("db.t")
    read_last, files_last = _median_read(t), _files(t)
    snaps = t.store.snapshots.snapshot_ids()
    return {
        "write_only": write_only,
        "read_after_first_s": round(read_first or 0.0, 4),
        "read_after_last_s": round(read_last, 4),
        "ratio": round(read_last / (read_first or 1e-9), 2),
        "files_after_first": files_first,
        "files_after_last": files_last,
        "median_upsert_s": round(statistics.median(write_times), 4),
        "total_upserts_s": round(sum(write_times), 2),
        "snapshots": len(snaps),
    }


def full_compaction(root: Path, rows: int) -> dict[str, object]:
    cat = Catalog(str(root / "full"))
    cat.create_database("db", ignore_if_exists=True)
    schema = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("name", pa.string()), ("amount", pa.float64())])
    t = cat.create_table("db.t", schema, primary_keys=["id"],
                         options={"bucket": "1", "write-only": "true", "write-buffer-size": "4 gb"})
    t.write(_rows(np.arange(rows, dtype=np.int64), 0))
    t = cat.get_table("db.t")
    t.write(_rows(np.arange(0, rows, 2, dtype=np.int64), 1))
    t = cat.get_table("db.t")
    entries = list(t.store.manifests.live_entries(t.store.snapshots.latest()))
    paths = [t.store.entry_path(e) for e in sorted(entries, key=lambda e: e.file.min_sequence_number)]
    compression = t.store.options.file_compression

    start = time.perf_counter()
    r = t.compact(full=True)
    ours = time.perf_counter() - start
    assert r.snapshot_id is not None

    out = root / "raw.parquet"
    start = time.perf_counter()
    tables = [pq.read_table(p) for p in paths]
    both = pa.concat_tables(tables)
    idx = pc.sort_indices(both, sort_keys=[("_KEY_id", "ascending"), ("_SEQUENCE_NUMBER", "ascending")])
    srt = both.take(idx)
    keys = srt.column("_KEY_id").to_numpy()
    last = np.append(keys[1:] != keys[:-1], True)
    pq.write_table(srt.filter(pa.array(last)), out, compression=compression)
    raw = time.perf_counter() - start

    # the floor without a merge: read both files, write as many rows as the compaction writes
    # (the run holding every key, in the file layout) with the same compression
    start = time.perf_counter()
    tables = [pq.read_table(p) for p in paths]
    pq.write_table(tables[0], root / "raw_rw.parquet", compression=compression)
    raw_rw = time.perf_counter() - start
    return {"rows": rows, "paimon_sql_s": round(ours, 3), "pyarrow_s": round(raw, 3),
            "ratio": round(ours / raw, 2), "pyarrow_read_write_s": round(raw_rw, 3),
            "ratio_to_read_write": round(ours / raw_rw, 2),
            "files_before": r.files_before, "files_after": r.files_after}


def deletion_vectors(root: Path, rows: int, upserts: int) -> dict[str, object]:
    """Upsert ``upserts`` keys into ``rows`` with deletion vectors (merge-on-write) and without
    (merge-on-read); read both, and the same rows from one fully compacted file."""
    schema = pa.schema([("id", pa.int64()), ("v", pa.int64()), ("name", pa.string()), ("amount", pa.float64())])
    keys = np.sort(np.random.default_rng(3).choice(rows, size=upserts, replace=False))
    out: dict[str, object] = {"rows": rows, "upserts": upserts}
    for name, extra in (("dv", {"deletion-vectors.enabled": "true"}), ("mor", {})):
        cat = Catalog(str(root / f"dv-{name}"))
        cat.create_database("db", ignore_if_exists=True)
        cat.create_table("db.t", schema, primary_keys=["id"], options={"bucket": "2", **extra})
        cat.get_table("db.t").write(_rows(np.arange(rows, dtype=np.int64), 0))
        start = time.perf_counter()
        cat.get_table("db.t").write(_rows(keys, 1))
        out[f"{name}_upsert_s"] = round(time.perf_counter() - start, 3)
        out[f"{name}_read_s"] = round(_median_read(cat.get_table("db.t")), 4)
        if name == "mor":
            cat.get_table("db.t").compact(full=True)
            out["compacted_read_s"] = round(_median_read(cat.get_table("db.t")), 4)
    out["dv_read_vs_compacted"] = round(out["dv_read_s"] / out["compacted_read_s"], 2)  # type: ignore[operator]
    out["dv_write_vs_mor_write"] = round(out["dv_upsert_s"] / out["mor_upsert_s"], 2)  # type: ignore[operator]
    return out


def engines(root: Path, rows: int) -> dict[str, object]:
    """W1-shaped work (write ``rows``, upsert rows/4 — half existing ids, half new — read all) on
    the deduplicate, aggregation (sum, max, last_non_null_value) and partial-update (two sequence
    groups) engines, bucket 4; the times and their ratio to deduplicate."""
    schema = pa.schema([("id", pa.int64()), ("k", pa.string()), ("v", pa.float64()), ("ts", pa.int64()),
                        ("s1", pa.int64()), ("s2", pa.int64())])
    rng = np.random.default_rng(5)

    def batch(ids: np.ndarray, version: int) -> pa.Table:
        n = len(ids)
        return pa.table({"id": ids, "k": np.char.add("k", (ids % 1000).astype(str)), "v": rng.random(n),
                         "ts": np.full(n, version, dtype=np.int64), "s1": np.full(n, version, dtype=np.int64),
                         "s2": np.full(n, version, dtype=np.int64)}, schema=schema)

    first = batch(np.arange(rows, dtype=np.int64), 1)
    quarter = rows // 4
    upsert_ids = np.concatenate([rng.choice(rows, quarter // 2, replace=False), np.arange(rows, rows + quarter // 2)])
    second = batch(np.sort(upsert_ids).astype(np.int64), 2)
    variants = {
        "deduplicate": {},
        "aggregation": {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
                        "fields.ts.aggregate-function": "max", "fields.k.aggregate-function": "last_non_null_value"},
        "partial-update": {"merge-engine": "partial-update", "fields.s1.sequence-group": "k,v",
                           "fields.s2.sequence-group": "ts"},
    }
    out: dict[str, object] = {"rows": rows}
    for name, extra in variants.items():
        cat = Catalog(str(root / f"eng-{name}"))
        cat.create_database("db", ignore_if_exists=True)
        cat.create_table("db.t", schema, primary_keys=["id"], options={"bucket": "4", **extra})
        start = time.perf_counter()
        cat.get_table("db.t").write(first)
        w = time.perf_counter() - start
        start = time.perf_counter()
        cat.get_table("db.t").write(second)
        u = time.perf_counter() - start
        r = _median_read(cat.get_table("db.t"))
        out[name] = {"write_s": round(w, 3), "upsert_s": round(u, 3), "read_s": round(r, 3),
                     "total_s": round(w + u + r, 3)}
    base = out["deduplicate"]["total_s"]  # type: ignore[index]
    for name in ("aggregation", "partial-update"):
        out[f"{name}_vs_deduplicate"] = round(out[name]["total_s"] / base, 2)  # type: ignore[index]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--compact-rows", type=int, default=2_000_000)
    ap.add_argument("--skip-write-only", action="store_true")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-compaction-"))
    try:
        results: dict[str, object] = {"machine": platform.processor() or platform.machine()}
        results["degradation"] = degradation(root, args.rows, args.commits, args.batch, False)
        print(json.dumps(results["degradation"]), flush=True)
        if not args.skip_write_only:
            results["degradation_write_only"] = degradation(root, args.rows, args.commits, args.batch, True)
            print(json.dumps(results["degradation_write_only"]), flush=True)
        results["full_compaction"] = full_compaction(root, args.compact_rows)
        print(json.dumps(results["full_compaction"]), flush=True)
        results["deletion_vectors"] = deletion_vectors(root, args.compact_rows, args.compact_rows // 4)
        print(json.dumps(results["deletion_vectors"]), flush=True)
        results["engines"] = engines(root, args.compact_rows)
        print(json.dumps(results["engines"]), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
