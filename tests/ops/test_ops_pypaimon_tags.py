"""Tags and rollback against pypaimon 2.1.0 (a second implementation, in its own venv): tags we write
it reads (fields and time travel), tags it writes we read, and it reads a table we rolled back.
Skipped when the pypaimon venv (scripts/pypaimon_venv.sh) is not there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.ops.rollback import rollback
from paimon_sql.ops.tags import create_tag
from paimon_sql.table.system import SystemTable

VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv-pypaimon" / "bin" / "python"

SCRIPT = r"""
import json, sys
from pypaimon import CatalogFactory

wh, cmd = sys.argv[1], sys.argv[2]
cat = CatalogFactory.create({"warehouse": wh})
t = cat.get_table("db.t")
out = {}

def rows(table):
    rb = table.new_read_builder()
    res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return [] if res is None else sorted(res.column("id").to_pylist())

if cmd == "inspect":
    tm = t.tag_manager()
    for name in sorted(t.list_tags()):
        tag = tm.get(name)
        out[name] = {
            "id": tag.id,
            "retained_s": None if tag.tag_time_retained is None else tag.tag_time_retained.total_seconds(),
            "created": None if tag.tag_create_time is None else tag.tag_create_time.isoformat(),
            "rows": rows(t.copy({"scan.tag-name": name})),
        }
    sys_tags = cat.get_table("db.t$tags")
    rb = sys_tags.new_read_builder()
    res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    out["$tags"] = [[r["tag_name"], r["snapshot_id"], r["time_retained"]] for r in res.to_pylist()]
    snaps = cat.get_table("db.t$snapshots")
    rb = snaps.new_read_builder()
    res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    out["$snapshots"] = [[r["snapshot_id"], r["schema_id"], r["commit_kind"], r["total_record_count"]]
                         for r in res.to_pylist()]
elif cmd == "tag":
    t.create_tag("py", snapshot_id=int(sys.argv[3]), time_retained="2h")
elif cmd == "latest":
    snap = t.snapshot_manager().get_latest_snapshot()
    out = {"latest": snap.id, "rows": rows(t)}
print(json.dumps(out))
"""


def _py(warehouse: Path, *args: str) -> Any:
    if not VENV_PYTHON.exists():
        pytest.skip(f"pypaimon venv not found at {VENV_PYTHON} (scripts/pypaimon_venv.sh creates it)")
    script = warehouse.parent / "pp.py"
    script.write_text(SCRIPT)
    res = subprocess.run([str(VENV_PYTHON), str(script), str(warehouse), *args], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def test_tags_and_rollback_with_pypaimon(tmp_path: Path) -> None:
    wh = tmp_path / "wh"
    cat = Catalog(str(wh))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    assert isinstance(t, Table)
    for i in range(1, 4):
        t.write(pa.table({"id": [i], "v": [str(i)]}))
    create_tag(t.store, "plain", 1)
    create_tag(t.store, "ttl", 2, time_retained_ms=86_400_000)

    seen = _py(wh, "inspect")
    assert seen["plain"] == {"id": 1, "retained_s": None, "created": None, "rows": [1]}
    assert seen["ttl"]["id"] == 2 and seen["ttl"]["retained_s"] == 86400.0 and seen["ttl"]["rows"] == [1, 2]
    assert seen["ttl"]["created"] is not None
    ours = cat.get_table("db.t$tags")
    assert isinstance(ours, SystemTable)
    assert sorted(seen["$tags"]) == sorted(
        [r["tag_name"], r["snapshot_id"], r["time_retained"]] for r in ours.read().to_pylist()
    )
    snaps = cat.get_table("db.t$snapshots")
    assert isinstance(snaps, SystemTable)
    assert seen["$snapshots"] == [
        [r["snapshot_id"], r["schema_id"], r["commit_kind"], r["total_record_count"]] for r in snaps.read().to_pylist()
    ]

    # a tag pypaimon writes
    _py(wh, "tag", "3")
    row = [r for r in ours.read().to_pylist() if r["tag_name"] == "py"][0]
    assert row["snapshot_id"] == 3 and row["time_retained"] == "PT2H" and row["create_time"] is not None
    assert sorted(t.read(tag="py")["id"].to_pylist()) == [1, 2, 3]

    # a rollback pypaimon then reads
    rollback(t.store, tag="ttl")
    assert _py(wh, "latest") == {"latest": 2, "rows": [1, 2]}
    assert sorted(t.store.tags.tag_names()) == ["plain", "ttl"]
