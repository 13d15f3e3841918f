"""Crash safety of snapshot expiry: a process expiring snapshots is killed with SIGKILL at random
points (after a random number of file deletions, so that every phase is hit whatever the machine's
speed, and at random times); every time the table still reads its latest snapshot completely (and
every snapshot expiry keeps), and a rerun finishes the expiry, leaving exactly the referenced
files."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa

from paimon_sql import Catalog, Table
from paimon_sql.ops.expire import expire_snapshots
from paimon_sql.ops.tags import create_tag
from tests.ops.test_ops_expire import _files, referenced

RUNS = 24
SNAPSHOTS = 40
RETAIN = 3

SCRIPT = r"""
import os, signal, sys
from paimon_sql import Catalog
from paimon_sql.fs.file_io import FileIO
from paimon_sql.ops.expire import expire_snapshots
kill_at = int(sys.argv[3])  # SIGKILL this process right after its kill_at-th file deletion
if kill_at:
    deletes = [0]
    real_delete = FileIO.delete
    def delete(self, path):
        done = real_delete(self, path)
        deletes[0] += 1
        if deletes[0] >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return done
    FileIO.delete = delete
t = Catalog(sys.argv[1]).get_table("db.t")
print("ready", flush=True)
sys.stdin.readline()
expire_snapshots(t.store, retain_max=int(sys.argv[2]), retain_min=1, max_deletes=1000)
print("done", flush=True)
"""


def _build(wh: Path) -> list[list[int]]:
    cat = Catalog(str(wh))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]), partition_keys=["v"])
    assert isinstance(t, Table)
    rows: list[list[int]] = []
    current: list[int] = []
    for i in range(1, SNAPSHOTS + 1):
        ids = [i * 10 + k for k in range(3)]
        if i % 4 == 0:
            t.write(pa.table({"id": ids, "v": [str(k) for k in range(3)]}), overwrite=True)
            current = ids
        else:
            t.write(pa.table({"id": ids, "v": [str(k) for k in range(3)]}))
            current = current + ids
        rows.append(sorted(current))
    create_tag(t.store, "keep", 10)
    return rows


def _run(script: Path, wh: Path, kill_after: float | None, kill_at_delete: int = 0) -> float:
    proc = subprocess.Popen(
        [sys.executable, str(script), str(wh), str(RETAIN), str(kill_at_delete)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline().strip() == "ready"
    start = time.monotonic()
    proc.stdin.write("go\n")
    proc.stdin.flush()
    if kill_after is None:
        done = proc.stdout.readline().strip() == "done"
        code = proc.wait(60)
        assert done == (kill_at_delete == 0) and code == (0 if done else -signal.SIGKILL)
        return time.monotonic() - start
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    return time.monotonic() - start


def _rows(t: Table, **kw: object) -> list[int]:
    return sorted(t.read(**kw)["id"].to_pylist())  # type: ignore[arg-type]


def test_sigkill_during_expiry(tmp_path: Path) -> None:
    template = tmp_path / "template"
    rows = _build(template)
    script = tmp_path / "expire.py"
    script.write_text(SCRIPT)
    # how long a whole run takes, and the end state every run must reach
    ref = tmp_path / "ref"
    shutil.copytree(template, ref)
    duration = _run(script, ref, None)
    ref_table = Catalog(str(ref)).get_table("db.t")
    assert isinstance(ref_table, Table)
    final_ids = ref_table.snapshot_ids()
    assert final_ids == list(range(SNAPSHOTS - RETAIN + 1, SNAPSHOTS + 1))
    final_files = _files(ref_table)
    total = len(_files(Catalog(str(template)).get_table("db.t")) - final_files)  # type: ignore[arg-type]
    total += SNAPSHOTS - RETAIN  # and the snapshot files
    rng = random.Random(20261124)
    for run in range(RUNS):
        wh = tmp_path / f"run{run}"
        shutil.copytree(template, wh)
        if run % 4 == 0:  # at a random time (mostly while it plans)
            _run(script, wh, rng.uniform(0, duration))
        else:  # right after a random file deletion: data files, manifests or snapshot files
            _run(script, wh, None, rng.randint(1, total))
        t = Catalog(str(wh)).get_table("db.t")
        assert isinstance(t, Table)
        ids = t.snapshot_ids()
        assert ids == list(range(ids[0], SNAPSHOTS + 1))  # contiguous, newest intact
        assert _rows(t) == rows[-1]
        for sid in final_ids:
            assert _rows(t, snapshot_id=sid) == rows[sid - 1]
        assert _rows(t, tag="keep") == rows[9]
        # a rerun finishes the job: the same snapshots and files as an uninterrupted run
        expire_snapshots(t.store, retain_max=RETAIN, retain_min=1, max_deletes=1000)
        assert t.snapshot_ids() == final_ids
        assert _files(t) == referenced(t.store) == final_files
        assert _rows(t, tag="keep") == rows[9]
        shutil.rmtree(wh)
