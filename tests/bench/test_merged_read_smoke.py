"""The read benchmark (bench/merged_read.py) on tiny tables: it runs, and each table reads the rows
its workload leaves (the benchmark itself stays out of CI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_merged_read_benchmark_smoke() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "merged_read.py"), "--smoke", "--json"],
                         capture_output=True, text=True, timeout=600, check=True)
    results = {r["table"]: r for r in json.loads(out.stdout)}
    assert set(results) == {"pk_upserts", "append", "pk_many_commits", "pk_many_commits_dv",
                            "pk_upserts_partial_update", "pk_upserts_aggregation", "pk_upserts_first_row",
                            "pk_upserts_string_key", "pk_upserts_string_key_partial_update",
                            "pk_upserts_string_bigint_key", "pk_upserts_two_string_key"}
    for name in ("pk_upserts", "append", "pk_upserts_partial_update", "pk_upserts_aggregation",
                 "pk_upserts_first_row", "pk_upserts_string_key", "pk_upserts_string_key_partial_update",
                 "pk_upserts_string_bigint_key", "pk_upserts_two_string_key"):
        assert results[name]["rows"] == 2_000, name  # upserts replace rows, they add none
    assert results["pk_many_commits"]["rows"] == results["pk_many_commits_dv"]["rows"] == 1_000
    assert results["pk_upserts"]["raw_rows"] == 2_500  # the floor reads both runs unmerged
    assert all(r["paimon_sql_s"] > 0 and r["raw_pyarrow_s"] > 0 for r in results.values())
    assert all(r["paimon_sql_cpu_s"] > 0 and r["raw_cpu_s"] > 0 for r in results.values())


def test_streaming_benchmark_smoke() -> None:
    """bench/streaming.py (engine part) on tiny tables: the stream and the batch read each read every
    row (the script checks counts and sums), and the numbers are there."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "streaming.py"), "--smoke", "--json"],
                         capture_output=True, text=True, timeout=600, check=True)
    res = json.loads(out.stdout)
    for name in ("pk", "append"):
        assert res[f"{name}: stream read s"] > 0 and res[f"{name}: batch read s"] > 0
    assert 0 < res["engine latency median s"] <= res["engine latency max s"]
