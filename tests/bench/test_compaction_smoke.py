"""bench/compaction.py's full-compaction measure on a tiny table (in-process, no subprocess): it
compacts the two runs into one file and reports both raw pyarrow baselines (the benchmark itself
stays out of CI)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_full_compaction_benchmark_smoke(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import compaction
    finally:
        sys.path.remove(str(ROOT / "bench"))
    r = compaction.full_compaction(tmp_path, 2_000)
    assert (r["files_before"], r["files_after"]) == (2, 1)
    assert r["paimon_sql_s"] > 0 and r["pyarrow_s"] > 0 and r["pyarrow_read_write_s"] > 0  # type: ignore[operator]
    assert r["ratio_to_read_write"] > 0  # type: ignore[operator]
