"""The concurrent-writers model test (tests/write/test_concurrent_writers.py) against a warehouse in
an S3-compatible store: several processes commit to one table through conditional PUTs; every
snapshot is the replay of the successful calls in commit order (0 rows lost, 0 duplicated)."""

from __future__ import annotations

import json
import multiprocessing as mp
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from paimon_sql.catalog.factory import load_catalog
from paimon_sql.errors import CommitConflictError
from paimon_sql.table.table import Table
from tests.helpers.s3_server import S3Warehouse
from tests.write.test_concurrent_writers import SCHEMA, _check_every_snapshot, _dedup_model, _dedup_rows


def _worker(uri: str, options: dict[str, str], wid: int, calls: int, keys: list[int], rows_per_call: int,
            out: str, barrier: Any) -> None:
    rng = random.Random(1000 + wid)
    t = load_catalog(uri, options).get_table("db.t")
    assert isinstance(t, Table)
    done: list[dict[str, Any]] = []
    failures: list[str] = []
    barrier.wait()
    for c in range(calls):
        ks = [rng.choice(keys) for _ in range(rows_per_call)]
        rows = {"k": ks, "v": [f"w{wid}c{c}i{i}" for i in range(len(ks))], "n": [rng.randint(1, 9) for _ in ks]}
        try:
            sid = t.write(pa.table(rows, schema=SCHEMA))
        except CommitConflictError as e:
            failures.append(str(e))
            continue
        done.append({"sid": sid, "rows": rows})
    Path(out).write_text(json.dumps({"done": done, "failures": failures}))


def _run(tmp_path: Path, wh: S3Warehouse, n: int, calls: int, keys: Callable[[int], list[int]],
         rows_per_call: int) -> tuple[list[dict[str, Any]], list[str]]:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(n)
    procs = []
    for w in range(n):
        out = tmp_path / f"writer-{w}.json"
        p = ctx.Process(target=_worker, args=(wh.uri, wh.options, w, calls, keys(w), rows_per_call, str(out), barrier))
        p.start()
        procs.append((p, out))
    done: list[dict[str, Any]] = []
    failures: list[str] = []
    for p, out in procs:
        p.join(timeout=300)
        assert p.exitcode == 0, f"writer process failed with exit code {p.exitcode}"
        result = json.loads(out.read_text())
        done += result["done"]
        failures += result["failures"]
    done.sort(key=lambda d: d["sid"])
    return done, failures


def test_concurrent_upserts_on_s3_replay_in_commit_order(tmp_path: Path, s3_warehouse: S3Warehouse) -> None:
    cat = load_catalog(s3_warehouse.uri, s3_warehouse.options)
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    done, failures = _run(tmp_path, s3_warehouse, 4, 5, lambda w: list(range(30)), 8)
    assert failures == [], failures[:3]
    t = cat.get_table("db.t")
    assert isinstance(t, Table)
    assert _check_every_snapshot(t, done, _dedup_model, _dedup_rows, every=4) == 20
    # the writers did race for snapshot ids: the store refused some conditional PUTs
    lost = s3_warehouse.server.lost_puts(s3_warehouse.bucket, r"warehouse/db\.db/t/snapshot/snapshot-\d+")
    print(f"lost snapshot races: {lost}")


def test_concurrent_appenders_on_s3_lose_and_duplicate_nothing(tmp_path: Path, s3_warehouse: S3Warehouse) -> None:
    cat = load_catalog(s3_warehouse.uri, s3_warehouse.options)
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA)
    done, failures = _run(tmp_path, s3_warehouse, 4, 4, lambda w: list(range(1000)), 10)
    assert failures == [], failures[:3]
    t = cat.get_table("db.t")
    assert isinstance(t, Table)

    def multiset(calls: list[dict[str, Any]]) -> Counter[tuple[int, str]]:
        return Counter((k, v) for c in calls for k, v in zip(c["rows"]["k"], c["rows"]["v"]))

    def rows(table: pa.Table) -> Counter[tuple[int, str]]:
        return Counter(zip(table.column("k").to_pylist(), table.column("v").to_pylist()))

    assert _check_every_snapshot(t, done, multiset, rows) == 16
    assert t.read().num_rows == 160
    lost = s3_warehouse.server.lost_puts(s3_warehouse.bucket, r"warehouse/db\.db/t/snapshot/snapshot-\d+")
    assert lost > 0, "no two appenders raced for one snapshot id"
