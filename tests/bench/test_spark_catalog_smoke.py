"""bench/spark_catalog.py on tiny tables (its own Spark session, in a subprocess): every phase runs,
the merged tables are read through the Python path and the others natively, and every ratio of
the report is measured (the benchmark itself stays out of CI)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_spark_catalog_benchmark_smoke(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "spark_catalog.py"), "--rows", "4000", "--insert-rows", "4000",
         "--repeat", "1", "--dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout)
    assert report["scan paths"] == {"db.app": "native parquet", "db.pk": "native parquet",
                                    "db.pk2": "python", "db.pk3": "python"}
    ratios = report["ratios"]
    assert "sum(id) pk merged / parquet" in ratios and "sum(id) pk merged row by row / parquet" in ratios
    assert all(isinstance(v, float) and v > 0 for v in ratios.values()), ratios
