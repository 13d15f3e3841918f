"""fast_forward killed with SIGKILL at random points (a separate process, dozens of runs): main
always reads a complete version (main's own before, or the branch's), and running it again
finishes the job."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table

MAIN_N = 16  # main: ids 1..MAIN_N, one snapshot each (a column added after snapshot 3)
BRANCH_N = 16  # branch b from tag t2 (snapshot 2): ids 101..100+BRANCH_N, one snapshot each
RUNS = 30

# Imports paimon_sql once, then forks one child per warehouse line read from stdin; the child runs
# the fast-forward (the test kills it with SIGKILL); the fork server reports how it ended.
FORK_SERVER = r"""
import os, sys, time
from paimon_sql import Catalog
import paimon_sql.ops.branches  # noqa: F401 (Table loads it lazily: each forked child would import it inside the timed part)
print("ready", flush=True)
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            t = Catalog(line.strip()).get_table("db.t")
            os.write(1, f"start {os.getpid()}\n".encode())  # one write: a kill never cuts a line
            s = time.perf_counter()
            t.fast_forward("b")
            os.write(1, f"done {time.perf_counter() - s:.6f}\n".encode())
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(f"exit {os.WIFSIGNALED(status) and os.WTERMSIG(status)} {os.WIFEXITED(status) and os.WEXITSTATUS(status)}", flush=True)
"""


def _main_rows(sid: int) -> list[int]:
    return list(range(1, sid + 1))


def _branch_rows(sid: int) -> list[int]:
    return [1, 2] + list(range(101, 101 + sid - 2))


def _build(wh: Path) -> None:
    cat = Catalog(str(wh))
    cat.create_database("db")
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]), primary_keys=["id"],
                         options={"write-only": "true"})  # one snapshot per write (no compaction)
    assert isinstance(t, Table)
    for i in (1, 2, 3):
        t.write(pa.table({"id": [i], "v": [str(i)]}))
    t.create_tag("t2", 2)
    t.create_tag("t3", 3)
    t.create_branch("b", tag="t2")
    t = t.alter(add_columns=[("m", pa.int32())])
    for i in range(4, MAIN_N + 1):
        t.write(pa.table({"id": [i], "v": [str(i)], "m": pa.array([i], pa.int32())}))
    t.create_tag("t10", 10)
    b = t.switch_to_branch("b").alter(add_columns=[("w", pa.int64())])
    for i in range(101, 101 + BRANCH_N):
        b.write(pa.table({"id": [i], "v": [str(i)], "w": [i]}))
    b.create_tag("b5", 5)


def _ids(t: Table, **kw: object) -> list[int]:
    return sorted(t.read(columns=["id"], **kw)["id"].to_pylist())  # type: ignore[arg-type]


def _version(main: bool, sid: int) -> dict[str, list[object]]:
    """What snapshot ``sid`` of main (before) or of the branch reads, every column."""
    ids = _main_rows(sid) if main else _branch_rows(sid)
    out: dict[str, list[object]] = {"id": list(ids), "v": [str(i) for i in ids]}
    if main and sid >= 4:
        out["m"] = [i if i >= 4 else None for i in ids]
    if not main and sid >= 3:
        out["w"] = [i if i >= 101 else None for i in ids]
    return out


def _check_readable(t: Table, rng: random.Random) -> None:
    ids = t.snapshot_ids()
    assert ids == list(range(1, len(ids) + 1)), ids  # contiguous from 1
    latest = t.latest_snapshot()
    assert latest is not None and latest.id == ids[-1]
    for sid in {ids[-1], *rng.sample(ids, min(3, len(ids)))}:
        got = t.read(snapshot_id=sid).sort_by("id").to_pydict()  # with the snapshot's own schema
        assert got in (_version(True, sid), _version(False, sid)), (sid, got)
    rows = t.read().sort_by("id").to_pydict()  # with the table's current schema
    assert rows["id"] in (_main_rows(ids[-1]), _branch_rows(ids[-1]))
    assert rows["v"] == [str(i) for i in rows["id"]]
    for name in t.store.tags.tag_names():
        tagged = t.store.tags.tagged_snapshot(name)
        got = t.read(tag=name).sort_by("id").to_pydict()
        assert got in (_version(True, tagged.id), _version(False, tagged.id)), (name, got)


def _check_done(t: Table) -> None:
    assert t.snapshot_ids() == list(range(1, BRANCH_N + 3))
    assert _ids(t) == _branch_rows(BRANCH_N + 2)
    assert t.schema.field_names == ["id", "v", "w"]
    assert sorted(t.store.tags.tag_names()) == ["b5", "t2"]
    snap_dir = Path(t.path, "snapshot")
    assert (snap_dir / "LATEST").read_text() == str(BRANCH_N + 2)
    assert (snap_dir / "EARLIEST").read_text() == "1"


class _ForkServer:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", FORK_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )
        assert self._line() == "ready"

    def _line(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(self.proc.stderr.read() if self.proc.stderr else "fork server died")
        return line.strip()

    def start(self, wh: Path) -> int:
        """Starts a fast-forward of ``wh`` in a new child; its pid once it is about to begin."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{wh}\n")
        self.proc.stdin.flush()
        word, pid = self._line().split()
        assert word == "start"
        return int(pid)

    def finish(self) -> tuple[float | None, bool]:
        """The child's fast-forward time (None when killed before the end) and whether SIGKILL
        ended it."""
        took = None
        while True:
            line = self._line()
            if line.startswith("done "):
                took = float(line.split()[1])
            elif line.startswith("exit "):
                signalled = line.split()[1]
                return took, signalled == str(int(signal.SIGKILL))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def test_fast_forward_killed_at_random_points(tmp_path: Path) -> None:
    template = tmp_path / "template"
    _build(template)
    server = _ForkServer()
    try:
        # how long one fast-forward takes
        wh = tmp_path / "calibrate"
        shutil.copytree(template, wh)
        server.start(wh)
        duration, killed = server.finish()
        assert duration is not None and not killed
        t = Catalog(str(wh)).get_table("db.t")
        assert isinstance(t, Table)
        _check_done(t)

        rng = random.Random(20261124)
        killed_midway = 0
        run = 0
        # RUNS runs; more (up to 3x) while too few kills landed mid-way (a loaded machine makes
        # the calibrated duration a poor guess: each run that finished updates it)
        while run < RUNS or (killed_midway < RUNS // 4 and run < 3 * RUNS):
            run += 1
            wh = tmp_path / f"run{run}"
            # hard links: a fast-forward replaces files (rename, unlink), never writes into one
            shutil.copytree(template, wh, copy_function=os.link)
            pid = server.start(wh)
            time.sleep(rng.uniform(0, duration * 1.1))
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            took, killed = server.finish()
            if took is not None:
                duration = max(duration * 0.5, took)
            t = Catalog(str(wh)).get_table("db.t")
            assert isinstance(t, Table)
            if killed:
                _check_readable(t, rng)
                killed_midway += int(t.snapshot_ids() != list(range(1, MAIN_N + 1)))
            t.fast_forward("b")  # a rerun finishes the job
            _check_done(t.refresh())
            shutil.rmtree(wh)
    finally:
        server.close()
    # many kills land inside the fast-forward (after its first deletions, before its end)
    assert killed_midway >= RUNS // 4, killed_midway


if __name__ == "__main__":  # pragma: no cover - a manual run
    pytest.main([__file__, "-q"])
