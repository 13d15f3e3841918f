"""pypaimon 2.1.0 (a second implementation, in its own venv) reads a table after our snapshot expiry:
the latest snapshot, a retained older one, a tag whose snapshot expired, and ``$snapshots``.
Skipped when the pypaimon venv (scripts/pypaimon_venv.sh) is not there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.ops.tags import create_tag

VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv-pypaimon" / "bin" / "python"

SCRIPT = r"""
import json, sys
from pypaimon import CatalogFactory

wh, retained = sys.argv[1], int(sys.argv[2])
cat = CatalogFactory.create({"warehouse": wh})
t = cat.get_table("db.t")

def rows(table):
    rb = table.new_read_builder()
    res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return [] if res is None else sorted(res.column("id").to_pylist())

snaps = cat.get_table("db.t$snapshots")
rb = snaps.new_read_builder()
res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
print(json.dumps({
    "latest": rows(t),
    "retained": rows(t.copy({"scan.snapshot-id": str(retained)})),
    "tag": rows(t.copy({"scan.tag-name": "old"})),
    "snapshots": sorted(r["snapshot_id"] for r in res.to_pylist()),
}))
"""


def _py(warehouse: Path, *args: str) -> Any:
    if not VENV_PYTHON.exists():
        pytest.skip(f"pypaimon venv not found at {VENV_PYTHON} (scripts/pypaimon_venv.sh creates it)")
    script = warehouse.parent / "pp_expire.py"
    script.write_text(SCRIPT)
    res = subprocess.run([str(VENV_PYTHON), str(script), str(warehouse), *args], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("decoupled", [False, True])
def test_pypaimon_reads_after_expiry(tmp_path: Path, decoupled: bool) -> None:
    """With ``decoupled`` the expired snapshots are kept as long-lived changelogs (their delta
    files stay): pypaimon reads the same."""
    wh = tmp_path / "wh"
    cat = Catalog(str(wh))
    cat.create_database("db")
    extra = {"changelog.num-retained.max": "20"} if decoupled else {}
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]), partition_keys=["v"],
                         options={"snapshot.num-retained.max": "4", "snapshot.num-retained.min": "1", **extra})
    assert isinstance(t, Table)
    current: list[int] = []
    history: list[list[int]] = []
    for i in range(1, 13):
        batch = pa.table({"id": [i, 100 + i], "v": ["a", "b"]})
        if i % 4 == 0:
            t.write(batch, overwrite=True)
            current = [i, 100 + i]
        else:
            t.write(batch)
            current = current + [i, 100 + i]
        history.append(sorted(current))
        if i == 2:
            create_tag(t.store, "old", 2)
    assert t.snapshot_ids() == [9, 10, 11, 12]
    assert t.store.changelogs.ids() == (list(range(1, 9)) if decoupled else [])
    assert sorted(t.read()["id"].to_pylist()) == history[-1]
    seen = _py(wh, "10")
    assert seen == {"latest": history[-1], "retained": history[9], "tag": history[1], "snapshots": [9, 10, 11, 12]}
