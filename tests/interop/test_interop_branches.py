"""Branches with pypaimon 2.1.0: it reads a branch we created and wrote (with its own schema), and
main after we fast-forwarded it (rows, tags, snapshots, schema); a branch it creates we read,
write and fast-forward to."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa

from paimon_sql import Catalog, Table

SCRIPT = r"""
import json, sys
from pypaimon import CatalogFactory

wh, cmd = sys.argv[1], sys.argv[2]
cat = CatalogFactory.create({"warehouse": wh})

def rows(table, options=None):
    if options:
        table = table.copy(options)
    rb = table.new_read_builder()
    res = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    if res is None:
        return []
    return sorted([[r.get(c) for c in sorted(r)] for r in res.to_pylist()], key=lambda r: json.dumps(r))

out = {}
if cmd == "read":
    for name in sys.argv[3:]:
        t = cat.get_table(name)
        sm = t.snapshot_manager()
        latest = sm.get_latest_snapshot()
        out[name] = {
            "fields": [f.name for f in t.fields],
            "rows": rows(t),
            "latest": None if latest is None else latest.id,
            "tags": {n: rows(t, {"scan.tag-name": n}) for n in sorted(t.list_tags())},
        }
    out["branches"] = sorted(cat.get_table(sys.argv[3]).branch_manager().branches())
elif cmd == "branch":
    cat.get_table(sys.argv[3]).branch_manager().create_branch(sys.argv[4], sys.argv[5])
print(json.dumps(out))
"""


def _py(python: Path, wh: Path, *args: str) -> Any:
    script = wh.parent / "pp_branches.py"
    script.write_text(SCRIPT)
    res = subprocess.run([str(python), str(script), str(wh), *args], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _rows(t: Table, **kw: Any) -> list[list[Any]]:
    return sorted(([r[c] for c in sorted(r)] for r in t.read(**kw).to_pylist()), key=json.dumps)


def test_pypaimon_reads_branch_and_main_after_fast_forward(pypaimon_python: Path, warehouse: Path) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    t = cat.create_table(
        "db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]), primary_keys=["id"], options={"bucket": "2"}
    )
    assert isinstance(t, Table)
    for i in range(1, 5):
        t.write(pa.table({"id": [i], "v": [f"m{i}"]}))
    t.create_tag("t2", 2)
    t.create_tag("t4", 4)
    t.create_branch("b", tag="t2")
    b = t.switch_to_branch("b").alter(add_columns=[("w", pa.int64())])
    b.write(pa.table({"id": [2, 10], "v": ["b2", "b10"], "w": [2, 10]}))
    b.create_tag("bt", 3)
    b.write(pa.table({"id": [11], "v": ["b11"], "w": [11]}))

    seen = _py(pypaimon_python, warehouse, "read", "db.t", "db.t$branch_b")
    assert seen["branches"] == ["b"]
    assert seen["db.t$branch_b"]["fields"] == ["id", "v", "w"]
    assert seen["db.t$branch_b"]["rows"] == _rows(b)
    assert seen["db.t$branch_b"]["latest"] == 4
    assert seen["db.t$branch_b"]["tags"] == {"bt": _rows(b, tag="bt"), "t2": _rows(b, tag="t2")}
    assert seen["db.t"]["rows"] == _rows(t) and seen["db.t"]["latest"] == 4

    r = t.fast_forward("b")
    assert r.deleted_snapshots == (4, 3) and r.copied_snapshots == (3, 4)
    t = t.refresh()
    t.write(pa.table({"id": [20], "v": ["m20"], "w": [20]}))
    seen = _py(pypaimon_python, warehouse, "read", "db.t", "db.t$branch_b")
    main = seen["db.t"]
    assert main["fields"] == ["id", "v", "w"]
    expected = [[1, "m1", None], [2, "b2", 2], [10, "b10", 10], [11, "b11", 11], [20, "m20", 20]]
    assert main["rows"] == _rows(t) == sorted(expected, key=json.dumps)
    assert main["latest"] == 5
    assert main["tags"] == {"bt": _rows(t, tag="bt"), "t2": _rows(t, tag="t2")}  # t4 went with snapshot 4
    assert seen["db.t$branch_b"]["rows"] == _rows(b)


def test_we_read_write_and_fast_forward_to_a_branch_pypaimon_created(
    pypaimon_python: Path, warehouse: Path
) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]))
    assert isinstance(t, Table)
    for i in range(1, 4):
        t.write(pa.table({"id": [i], "v": [str(i)]}))
    t.create_tag("t1", 1)
    _py(pypaimon_python, warehouse, "branch", "db.t", "pb", "t1")
    assert t.branches() == ["pb"]
    pb = cat.get_table("db.t$branch_pb")
    assert isinstance(pb, Table)
    assert sorted(pb.read()["id"].to_pylist()) == [1]
    assert pb.write(pa.table({"id": [7], "v": ["7"]})) == 2
    seen = _py(pypaimon_python, warehouse, "read", "db.t$branch_pb")
    assert seen["db.t$branch_pb"]["rows"] == [[1, "1"], [7, "7"]]
    t.fast_forward("pb")
    assert sorted(t.read()["id"].to_pylist()) == [1, 7]
    assert _py(pypaimon_python, warehouse, "read", "db.t")["db.t"]["rows"] == [[1, "1"], [7, "7"]]
