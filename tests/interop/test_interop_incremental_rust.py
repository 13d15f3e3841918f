"""pypaimon-rust (apache/paimon-rust's Python binding, a second implementation) reads the same
incremental ranges as paimon_sql, with the same rows and row kinds: delta mode over writes,
deletes and a compaction, and changelog mode over changelog files.

Its virtualenv (.venv-paimon-rust, scripts/paimon_rust_venv.sh) is made on first use; the tests
are skipped, with the reason, only when it cannot be made."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.lsm.merge import KIND
from paimon_sql.table.table import Table

ROOT = Path(__file__).resolve().parents[2]
KINDS = ["+I", "-U", "+U", "-D"]

_READ = r"""
import json, sys
from pypaimon_rust.datafusion import PaimonCatalog
wh, table, mode, ranges = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
t = PaimonCatalog({"warehouse": wh}).get_table(table)
out = []
for s, e in ranges:
    rb = t.new_read_builder().with_include_row_kind(True)
    plan = rb.new_incremental_scan(s, e, mode).plan()
    rows = [r for b in rb.new_read().read(plan.splits()) for r in b.to_pylist()]
    out.append(sorted([r["rowkind"], r["pt"], r["pk"], r["col1"]] for r in rows))
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def rust_python() -> Path:
    try:
        proc = subprocess.run(["bash", str(ROOT / "scripts" / "paimon_rust_venv.sh")], capture_output=True,
                              text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"cannot create the pypaimon-rust venv: {e}")
    if proc.returncode != 0:
        pytest.skip(f"cannot create the pypaimon-rust venv: {(proc.stderr or proc.stdout).strip()[-800:]}")
    return Path(proc.stdout.strip().splitlines()[-1])


def _rust(python: Path, wh: str, mode: str, ranges: list[tuple[int, int]]) -> list[Any]:
    proc = subprocess.run([str(python), "-c", _READ, wh, "db.t", mode, json.dumps(ranges)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return list(json.loads(proc.stdout))


def _ours(t: Table, mode: str, ranges: list[tuple[int, int]]) -> list[Any]:
    out = []
    for s, e in ranges:
        got = t.read(incremental_between=(s, e), incremental_mode=mode, keep_row_kind=True)
        out.append(sorted([KINDS[r[KIND]], r["pt"], r["pk"], r["col1"]] for r in got.to_pylist()))
    return out


def _data(rows: list[tuple[int, int, str]]) -> pa.Table:
    return pa.table({"pt": pa.array([r[0] for r in rows], pa.int32()), "pk": pa.array([r[1] for r in rows], pa.int32()),
                     "col1": [r[2] for r in rows]})


def _table(tmp_path: Path) -> tuple[str, Table]:
    wh = str(tmp_path / "wh")
    cat = Catalog(wh)
    cat.create_database("db")
    schema = pa.schema([("pt", pa.int32()), ("pk", pa.int32()), ("col1", pa.string())])
    t = cat.create_table("db.t", schema, primary_keys=["pk", "pt"], partition_keys=["pt"],
                         options={"bucket": "2", "write-only": "true"})
    return wh, t


def test_delta_ranges(rust_python: Path, tmp_path: Path) -> None:
    wh, t = _table(tmp_path)
    t.write(_data([(1, i, f"a{i}") for i in range(10)] + [(2, 1, "x")]))
    t.write(_data([(1, 3, "b3"), (2, 1, "y")]))
    t.delete("pk = 4")
    t.compact()  # a COMPACT snapshot inside the ranges: adds no change
    t.write(_data([(1, 4, "c4"), (2, 2, "z")]))
    ranges = [(s, e) for s in range(0, 5) for e in range(s + 1, 6)]
    ours = _ours(t, "delta", ranges)
    assert ours == _rust(rust_python, wh, "delta", ranges)
    assert ["-D", 1, 4, "a4"] in ours[ranges.index((2, 3))]


def test_changelog_ranges(rust_python: Path, tmp_path: Path) -> None:
    """Changelog files written through the commit plumbing (the records of each write, as the
    'input' producer writes them)."""
    wh, t = _table(tmp_path)
    for rows, kind in [([(1, 1, "a"), (1, 2, "b")], 0), ([(1, 1, "a")], 1), ([(1, 1, "c")], 2), ([(1, 2, "b")], 3)]:
        w1, w2 = t.new_write(), t.new_write()
        w1.write(_data(rows), kind=kind)
        w2.write(_data(rows), kind=kind)
        c1, c2 = w1.prepare_commit(), w2.prepare_commit()
        c1.changelog_entries = list(c2.entries)
        c1.written_paths += c2.written_paths
        t.commit_changes([c1])
    ranges = [(s, e) for s in range(0, 4) for e in range(s + 1, 5)]
    assert _ours(t, "changelog", ranges) == _rust(rust_python, wh, "changelog", ranges)
