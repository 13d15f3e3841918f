"""Benchmark: cross-partition upsert (not a test).

    .venv/bin/python bench/cross_partition.py                 # 1M existing keys, 200k upserts
    .venv/bin/python bench/cross_partition.py --rows 100000   # quick

Two tables of the same rows (id BIGINT, v STRING, pt INT over 10 partitions, dynamic bucket):
``xpart`` with primary key (id) (cross-partition upsert: a global key index) and ``plain`` with
primary key (id, pt) (plain dynamic bucket: a HASH index per partition). Timed: the base write,
the global index bootstrap from the base (alone), and an upsert of ``--upserts`` rows (half of them
existing keys, a fifth of those moving to another partition; for ``plain`` the same rows, whose
moved keys are simply new keys of their partition), best of ``--runs`` runs on a copy of the table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

from paimon_sql import Catalog  # noqa: E402
from paimon_sql.write.cross_partition import CrossPartitionAssigner  # noqa: E402

PARTS = 10


def base_rows(n: int) -> pa.Table:
    ids = np.arange(n, dtype=np.int64)
    return pa.table({"id": ids, "v": pa.array(np.char.add("v", ids.astype(str))),
                     "pt": pa.array((ids % PARTS).astype(np.int32))})


def upsert_rows(n: int, existing: int, seed: int = 7) -> pa.Table:
    rng = np.random.default_rng(seed)
    old = rng.choice(existing, n // 2, replace=False).astype(np.int64)
    new = np.arange(existing, existing + n - n // 2, dtype=np.int64)
    ids = np.concatenate([old, new])
    pt = (ids % PARTS).astype(np.int32)
    move = rng.random(len(old)) < 0.2
    pt[: len(old)][move] = (pt[: len(old)][move] + 1) % PARTS
    return pa.table({"id": ids, "v": pa.array(np.char.add("u", ids.astype(str))), "pt": pt})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--upserts", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="xpart-bench-"))
    out: dict[str, float | int] = {"rows": args.rows, "upserts": args.upserts}
    try:
        cat = Catalog(str(root / "w"))
        cat.create_database("db")
        schema = pa.schema([("id", pa.int64()), ("v", pa.string()), ("pt", pa.int32())])
        base = base_rows(args.rows)
        ups = upsert_rows(args.upserts, args.rows)
        for name, pks in (("xpart", ["id"]), ("plain", ["id", "pt"])):
            t = cat.create_table(f"db.{name}", schema, primary_keys=pks, partition_keys=["pt"],
                                 options={"bucket": "-1", "write-only": "true"})
            t0 = time.perf_counter()
            t.write(base)
            out[f"{name}_base_write_s"] = round(time.perf_counter() - t0, 3)
        xt = cat.get_table("db.xpart")
        boots = []
        for _ in range(args.runs):
            a = CrossPartitionAssigner(xt.store, xt.latest_snapshot())
            t0 = time.perf_counter()
            index = a.ensure_index()
            boots.append(time.perf_counter() - t0)
            assert index.num_rows == args.rows
        out["xpart_bootstrap_s"] = round(min(boots), 3)
        for name in ("xpart", "plain"):
            best = float("inf")
            for r in range(args.runs):
                copy = root / "w" / "db.db" / f"{name}_{r}"
                shutil.copytree(root / "w" / "db.db" / name, copy)
                t = cat.get_table(f"db.{name}_{r}")
                t0 = time.perf_counter()
                t.write(ups)
                best = min(best, time.perf_counter() - t0)
                n = t.read(columns=["id"]).num_rows
                want = args.rows + args.upserts - args.upserts // 2
                if name == "plain":
                    want += int((ups.column("pt").to_numpy()[: args.upserts // 2]
                                 != (ups.column("id").to_numpy()[: args.upserts // 2] % PARTS)).sum())
                assert n == want, (name, n, want)
            out[f"{name}_upsert_s"] = round(best, 3)
            out[f"{name}_upsert_rows_per_s"] = round(args.upserts / best)
        out["upsert_ratio_xpart_vs_plain"] = round(float(out["xpart_upsert_s"]) / float(out["plain_upsert_s"]), 2)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
