"""The JDBC catalog's distributed lock (Paimon's ``JdbcCatalogLock``) on SQLite and PostgreSQL:
two processes racing commits on one table under it lose and duplicate nothing; a process killed
(SIGKILL) while holding it blocks the next writer only until its row expires
(``lock-acquire-timeout``); Paimon's ``testAcquireLockFail`` / ``testCleanTimeoutLockAndAcquireLock``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql.catalog.factory import load_catalog
from paimon_sql.catalog.jdbc import JdbcCatalog, JdbcTablesView
from paimon_sql.catalog.jdbc_lock import LockTimeoutError
from paimon_sql.fs.snapshot_commit import CatalogLockCommit
from paimon_sql.table.table import Table
from tests.catalog.test_jdbc_catalog import Backend, backend  # noqa: F401
from tests.helpers.postgres_server import postgres_server_fixture  # noqa: F401

SCHEMA = pa.schema([("id", pa.int64()), ("w", pa.string())])

_WRITER = """
import json, sys
import pyarrow as pa
from paimon_sql.catalog.factory import load_catalog
wh, options, who, n = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])
t = load_catalog(wh, options).get_table("db.t")
schema = pa.schema([("id", pa.int64()), ("w", pa.string())])
base = 0 if who == "a" else 1_000_000
for i in range(n):
    t.write(pa.table({"id": [base + i], "w": [who]}, schema=schema))
print("done", flush=True)
"""

_HOLDER = """
import json, sys, time
import pyarrow as pa
from paimon_sql.catalog.factory import load_catalog
wh, options = sys.argv[1], json.loads(sys.argv[2])
cat = load_catalog(wh, options)
t = cat.get_table("db.t")
t.write(pa.table({"id": [-1], "w": ["holder"]}, schema=pa.schema([("id", pa.int64()), ("w", pa.string())])))
def hold():
    print("held", flush=True)
    time.sleep(600)
cat.lock.run_with_lock("db", "t", hold)
"""


def _options(backend: Backend, **extra: str) -> dict[str, str]:  # noqa: F811
    return {**backend.options, "lock.enabled": "true", "lock-check-max-sleep": "200 ms", **extra}


def _table(tmp_path: Path, backend: Backend, **extra: str) -> tuple[JdbcCatalog, Table]:  # noqa: F811
    cat = load_catalog(str(tmp_path / "wh"), _options(backend, **extra))
    assert isinstance(cat, JdbcCatalog)
    if not cat.table_exists("db.t"):  # (creating takes the table's lock, as Paimon's createTable)
        cat.create_database("db", ignore_if_exists=True)
        cat.create_table("db.t", SCHEMA)
    t = cat.get_table("db.t")
    assert isinstance(t, Table)
    return cat, t


def test_commits_go_through_the_lock(tmp_path: Path, backend: Backend) -> None:  # noqa: F811
    cat, t = _table(tmp_path, backend)
    assert isinstance(t.file_io.snapshot_commit, CatalogLockCommit)
    assert cat.lock is not None
    taken: list[str] = []
    real = cat.lock.acquire

    def spy(lock_id: str) -> None:
        taken.append(lock_id)
        real(lock_id)

    cat.lock.acquire = spy  # type: ignore[method-assign]
    t.write(pa.table({"id": [1], "w": ["x"]}, schema=SCHEMA))
    assert taken == ["jdbc.db.t"]  # Paimon's lock id: <catalog-key>.<database>.<table>
    assert backend.rows("SELECT * FROM paimon_distributed_locks") == []  # released
    # the lock travels: a pickled table (as Spark's workers get it) keeps it
    import pickle

    again = pickle.loads(pickle.dumps(t.file_io.snapshot_commit))
    assert isinstance(again, CatalogLockCommit) and again.table_of(
        str(tmp_path / "wh" / "db.db" / "t" / "branch" / "branch-b" / "snapshot" / "snapshot-1")) == ("db", "t$branch_b")
    view = JdbcTablesView(str(tmp_path / "wh"), _options(backend))
    assert isinstance(view.get_table("db.t").file_io.snapshot_commit, CatalogLockCommit)  # type: ignore[union-attr]
    # lock.enabled false: no lock table needed, none taken (local disk: atomic create)
    plain = load_catalog(str(tmp_path / "wh"), {**backend.options, "lock.enabled": "false"})
    assert not isinstance(plain.get_table("db.t").file_io.snapshot_commit, CatalogLockCommit)  # type: ignore[union-attr]


def test_acquire_fails_while_held_and_succeeds_after_expiry(tmp_path: Path, backend: Backend) -> None:  # noqa: F811
    cat, _ = _table(tmp_path, backend)
    assert cat.lock is not None
    lock_id = "jdbc.testDb.testTable"
    assert cat.lock.try_acquire(lock_id, 3000)
    assert not cat.lock.try_acquire(lock_id, 3000)
    cat.lock.release(lock_id)
    assert cat.lock.try_acquire(lock_id, 1000)
    time.sleep(2.1)  # older than its 1 s expiry (whole seconds, as Paimon's SQL compares them)
    assert cat.lock.try_acquire(lock_id, 1000)
    cat.lock.release(lock_id)


def test_two_processes_racing_commits_lose_nothing(tmp_path: Path, backend: Backend) -> None:  # noqa: F811
    _table(tmp_path, backend)
    n = 10
    opts = json.dumps(_options(backend))
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path / "wh"), opts, who, str(n)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for who in ("a", "b")]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
    cat, t = _table(tmp_path, backend)
    ids = t.read().column("id").to_pylist()
    assert sorted(ids) == sorted(list(range(n)) + [1_000_000 + i for i in range(n)])  # 0 lost, 0 duplicated
    assert t.latest_snapshot().id == 2 * n  # type: ignore[union-attr]
    assert backend.rows("SELECT * FROM paimon_distributed_locks") == []


def test_a_killed_holder_blocks_only_until_its_lock_expires(tmp_path: Path, backend: Backend) -> None:  # noqa: F811
    _table(tmp_path, backend)
    opts = json.dumps(_options(backend, **{"lock-acquire-timeout": "3 s"}))
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(tmp_path / "wh"), opts],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        line = holder.stdout.readline()
        assert line.strip() == "held", holder.stderr.read() if holder.stderr else ""
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=30)
    assert [r[0] for r in backend.rows("SELECT lock_id FROM paimon_distributed_locks")] == ["jdbc.db.t"]
    # a writer that waits less than the dead holder's expiry gives up, committing nothing
    _, quick = _table(tmp_path, backend, **{"lock-acquire-timeout": "500 ms"})
    before = quick.latest_snapshot().id  # type: ignore[union-attr]
    with pytest.raises(LockTimeoutError, match=r"jdbc\.db\.t.*'lock-acquire-timeout'"):
        quick.write(pa.table({"id": [0], "w": ["quick"]}, schema=SCHEMA))
    assert quick.latest_snapshot().id == before  # type: ignore[union-attr]
    # one that waits longer commits once the row has expired; nothing is lost
    start = time.monotonic()
    _, patient = _table(tmp_path, backend, **{"lock-acquire-timeout": "30 s"})
    patient.write(pa.table({"id": [1], "w": ["patient"]}, schema=SCHEMA))
    assert time.monotonic() - start < 10
    assert sorted(patient.read().column("id").to_pylist()) == [-1, 1]
    assert backend.rows("SELECT * FROM paimon_distributed_locks") == []
