"""Aggregation tables between paimon_sql and pypaimon 2.1.0.

pypaimon 2.1.0 reads the aggregation merge engine for +I/+U records only (its AggregateMergeFunction
raises NotImplementedError on -U/-D and refuses aggregation.remove-record-on-delete), so these
tables hold inserts: several writes of overlapping keys, within one write and across writes."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pyarrow as pa

from paimon_sql import Catalog
from tests.helpers.interop_util import PypaimonIO, assert_same_rows

SCHEMA = pa.schema([
    ("dt", pa.string()), ("k", pa.int64()), ("total", pa.int64()), ("amount", pa.float64()),
    ("hi", pa.int32()), ("lo", pa.string()), ("latest", pa.string()), ("first", pa.string()),
    ("tags", pa.string()), ("any_flag", pa.bool_()), ("factor", pa.int64()),
])
OPTIONS = {
    "bucket": "2",
    "merge-engine": "aggregation",
    "fields.total.aggregate-function": "sum",
    "fields.amount.aggregate-function": "sum",
    "fields.hi.aggregate-function": "max",
    "fields.lo.aggregate-function": "min",
    "fields.first.aggregate-function": "first_non_null_value",
    "fields.tags.aggregate-function": "listagg",
    "fields.any_flag.aggregate-function": "bool_or",
    "fields.factor.aggregate-function": "product",
}  # 'latest' takes the default, last_non_null_value


def batch(rng: random.Random, n: int) -> pa.Table:
    rows: list[dict[str, Any]] = []
    for _ in range(n):
        rows.append({
            "dt": rng.choice(["2024-01-01", "2024-01-02"]), "k": rng.randrange(12),
            "total": rng.choice([None, rng.randrange(-100, 100)]),
            "amount": rng.choice([None, rng.randrange(0, 1000) / 8]),
            "hi": rng.choice([None, rng.randrange(1000)]), "lo": rng.choice([None, "b", "a", "c"]),
            "latest": rng.choice([None, "x", "y"]), "first": rng.choice([None, "f", "g"]),
            "tags": rng.choice([None, "t1", "t2"]), "any_flag": rng.choice([None, True, False]),
            "factor": rng.choice([None, 1, 2, -1]),
        })
    return pa.Table.from_pylist(rows, SCHEMA)


def test_pypaimon_reads_our_aggregation_table(warehouse: Path, pypaimon: PypaimonIO) -> None:
    catalog = Catalog(str(warehouse))
    catalog.create_database("db", ignore_if_exists=True)
    t = catalog.create_table("db.agg", SCHEMA, primary_keys=["dt", "k"], partition_keys=["dt"], options=OPTIONS)
    rng = random.Random(3)
    for n in (40, 25, 60, 10):
        t.write(batch(rng, n))
    theirs = pypaimon.read_all("db.agg")
    assert sorted(theirs) == t.snapshot_ids()
    for sid, rows in theirs.items():
        ours = t.read(snapshot_id=sid)
        assert ours.num_rows == len({(r["dt"], r["k"]) for r in ours.to_pylist()})
        assert_same_rows(rows, ours, f"pypaimon reading snapshot {sid} of our aggregation table")


def test_we_read_pypaimon_aggregation_writes(warehouse: Path, pypaimon: PypaimonIO) -> None:
    spec = {"primary_keys": ["dt", "k"], "partition_keys": ["dt"], "options": OPTIONS}
    rng = random.Random(5)
    for n in (30, 30, 15):
        pypaimon.write("db.pyagg", batch(rng, n), spec=spec)
    table = Catalog(str(warehouse)).get_table("db.pyagg")
    theirs = pypaimon.read_all("db.pyagg")
    assert sorted(theirs) == table.snapshot_ids()
    for sid, rows in theirs.items():
        ours = table.read(snapshot_id=sid)
        assert ours.num_rows == len({(r["dt"], r["k"]) for r in ours.to_pylist()})
        assert_same_rows(ours, rows, f"reading snapshot {sid} that pypaimon wrote")
