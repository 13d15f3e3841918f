"""Crash safety of the commit paths of partition drops, partition expiry, ``copy``,
``merge_branch`` and the decoupled changelog lifecycle: a process running one is killed with
SIGKILL right after a random file write, rename or deletion (so every phase is hit whatever the
machine's speed). Every time the table reads either its state before or its state after the
operation, completely, no file a snapshot, tag or changelog references is missing, and a rerun
reaches the state after."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import NotFoundError
from paimon_sql.ops.expire import expire_changelogs, expire_snapshots
from paimon_sql.procedures import call_procedure
from tests.ops.test_ops_changelog_expire import _expected, _on_disk
from tests.ops.test_ops_expire import referenced

RUNS = 6

SCRIPT = r"""
import os, signal, sys
from paimon_sql import Catalog
from paimon_sql.fs.file_io import FileIO
sys.path.insert(0, sys.argv[3])
from tests.ops.test_ops_kill_commits import OPS
kill_at = int(sys.argv[2])  # SIGKILL this process right after its kill_at-th change of a file (0: count them)
calls = [0]
def counted(real):
    def wrapper(self, *args, **kwargs):
        out = real(self, *args, **kwargs)
        calls[0] += 1
        if kill_at and calls[0] >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    return wrapper
for name in ("write_bytes", "try_create_exclusive", "overwrite_atomic", "delete", "rename", "open_output_stream"):
    setattr(FileIO, name, counted(getattr(FileIO, name)))
OPS[sys.argv[4]][1](Catalog(sys.argv[1]))
print("done", calls[0], flush=True)
"""


def _rows(t: Table) -> list[tuple[object, ...]]:
    data = t.read()
    return sorted(zip(*(data.column(c).to_pylist() for c in data.column_names)))  # type: ignore[arg-type]


def _table(cat: Catalog, name: str) -> Table:
    t = cat.get_table(name)
    assert isinstance(t, Table)
    return t


# -- the operations: (build the table, run the operation) -------------------------------------------

def _build_partitioned(cat: Catalog) -> None:
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("p", pa.string())]), partition_keys=["p"])
    assert isinstance(t, Table)
    for i in range(4):
        t.write(pa.table({"id": [i * 10 + k for k in range(3)], "p": [f"2020010{i + 1}"] * 3}))


def _drop(cat: Catalog) -> None:
    _table(cat, "db.t").drop_partitions([{"p": "20200102"}, {"p": "20200103"}])


def _expire_partitions(cat: Catalog) -> None:
    _table(cat, "db.t").expire_partitions(expiration_time="1 d", timestamp_formatter="yyyyMMdd", max_expires=3)


def _copy(cat: Catalog) -> None:
    call_procedure(cat, "copy", {"source_table": "db.t", "target_table": "db.c"})


def _build_branch(cat: Catalog) -> None:
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("p", pa.string())]))
    assert isinstance(t, Table)
    t.write(pa.table({"id": [1, 2], "p": ["a", "b"]}))
    t.create_tag("base", 1)
    t.create_branch("b", tag="base")
    b = _table(cat, "db.t$branch_b")
    for i in range(3):
        b.write(pa.table({"id": [100 + i], "p": ["b"]}))


def _merge(cat: Catalog) -> None:
    _table(cat, "db.t").merge_branch("b")


DECOUPLED = {"bucket": "1", "num-sorted-run.compaction-trigger": "3", "snapshot.num-retained.min": "1",
             "snapshot.num-retained.max": "1000", "changelog.num-retained.max": "2000", "write-only": "true"}


def _build_decoupled(cat: Catalog) -> None:
    t = cat.create_table("db.t", pa.schema([pa.field("k", pa.int64(), nullable=False), ("v", pa.string())]),
                         primary_keys=["k"], options=DECOUPLED)
    assert isinstance(t, Table)
    for i in range(12):
        t.write(pa.table({"k": [i % 5, 100 + i], "v": [f"v{i}"] * 2}))


def _expire_decoupled(cat: Catalog) -> None:
    t = _table(cat, "db.t")
    expire_snapshots(t.store, retain_max=2, retain_min=1)
    expire_changelogs(t.store, retain_max=6, retain_min=1, older_than="2999-01-01 00:00:00")


OPS: dict[str, tuple[Callable[[Catalog], None], Callable[[Catalog], None]]] = {
    "drop_partitions": (_build_partitioned, _drop),
    "expire_partitions": (_build_partitioned, _expire_partitions),
    "copy": (_build_partitioned, _copy),
    "merge_branch": (_build_branch, _merge),
    "decoupled_expiry": (_build_decoupled, _expire_decoupled),
}


def _state(cat: Catalog, op: str) -> object:
    """What a reader sees: the rows of the table the operation changes (for ``copy`` the target:
    None while it does not exist or has no snapshot)."""
    if op == "copy":
        try:
            c = _table(cat, "db.c")
        except NotFoundError:
            return None
        return _rows(c) if c.snapshot_ids() else None
    return _rows(_table(cat, "db.t"))


def _run(script: Path, wh: Path, op: str, kill_at: int) -> int:
    proc = subprocess.run([sys.executable, str(script), str(wh), str(kill_at), str(Path(__file__).parents[2]), op],
                          capture_output=True, text=True, timeout=120)
    if kill_at == 0:
        assert proc.returncode == 0, proc.stderr
        return int(proc.stdout.split()[-1])
    assert proc.returncode in (0, -signal.SIGKILL), proc.stderr
    return 0


def _check_references(cat: Catalog, op: str, final: tuple[list[int], list[int]]) -> None:
    """No file is missing that a snapshot, tag or changelog references (for expiry: one the
    finished expiry keeps; the ones it was expiring may have lost files)."""
    t = _table(cat, "db.t")
    on_disk = _on_disk(t)
    if op == "decoupled_expiry":
        missing = _expected(t.store, final[0][0], final[1][0] if final[1] else final[0][0]) - on_disk
    else:
        missing = referenced(t.store) - on_disk
    assert not missing, f"referenced files are missing: {sorted(missing)[:5]}"


@pytest.mark.parametrize("op", list(OPS))
def test_sigkill_during_operation(tmp_path: Path, op: str) -> None:
    template = tmp_path / "template"
    cat = Catalog(str(template))
    cat.create_database("db")
    OPS[op][0](cat)
    before = _state(cat, op)
    script = tmp_path / "op.py"
    script.write_text(SCRIPT)
    ref = tmp_path / "ref"
    shutil.copytree(template, ref)
    changes = _run(script, ref, op, 0)
    after = _state(Catalog(str(ref)), op)
    ref_table = _table(Catalog(str(ref)), "db.t")
    final = (ref_table.snapshot_ids(), ref_table.store.changelogs.ids())
    # expiry changes what history is kept, not what the table reads
    assert (after == before) == (op == "decoupled_expiry") and changes > 2
    rng = random.Random(f"{op}-20261124")
    for run in range(RUNS * 3 if op == "decoupled_expiry" else RUNS):  # expiry is quick to rebuild
        wh = tmp_path / f"run{run}"
        shutil.copytree(template, wh)
        kill_at = rng.randint(1, changes)
        _run(script, wh, op, kill_at)
        c = Catalog(str(wh))
        assert _state(c, op) in (before, after), f"run {run}, killed after change {kill_at} of {changes}"
        _check_references(c, op, final)
        OPS[op][1](c)  # a rerun finishes the job
        assert _state(c, op) == after
        _check_references(c, op, final)
        if op == "decoupled_expiry":
            t = _table(c, "db.t")
            assert (t.snapshot_ids(), t.store.changelogs.ids()) == final
            assert _on_disk(t) == _expected(t.store)  # and leaves exactly what is still needed
        shutil.rmtree(wh)
