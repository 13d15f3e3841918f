"""A MERGE INTO whose writing Python worker is killed (SIGKILL) in the middle of the statement
commits nothing and leaves no data file behind (issue 20): the killed task attempt's files are
found through its marker and its attempt uuid and deleted by the job's abort."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from paimon_sql.catalog.catalog import Catalog

pytestmark = pytest.mark.slow


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _ppid(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])


TASK_DAEMON = "-m pyspark.daemon pyspark.worker"


def _python_workers_of_this_process() -> list[int]:
    """The forked Python workers that run tasks (children of the ``pyspark.daemon`` of
    ``pyspark.worker``) and descend from this test process's own Spark JVM (other processes on the
    machine may run Spark too). Not the idle workers of the driver's data source steps (one daemon
    per step: ``...commit_data_source_write`` runs the abort): killing those is not a task crash,
    and Spark may hand a killed idle worker (not yet reaped) to the abort, which then fails."""
    me, out = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        parent = _ppid(pid)
        if not _cmdline(pid).rstrip().endswith(TASK_DAEMON) or not _cmdline(parent).rstrip().endswith(TASK_DAEMON):
            continue
        p = parent
        while p > 1 and p != me:
            p = _ppid(p)
        if p == me:
            out.append(pid)
    return out


def _data_files(root: str) -> set[str]:
    return {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
            for f in fs if f.startswith("data-") and ".spark-writes" not in d}


def test_merge_killed_mid_write_commits_nothing_and_leaves_no_files(
    spark: Any, sql: Any, db: str, spark_warehouse: str
) -> None:
    # a small write buffer: the writing tasks flush data files long before they end
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT, v STRING) TBLPROPERTIES "
              "('primary-key'='id', 'bucket'='2', 'write-buffer-size'='256kb')")
    spark.sql(f"INSERT INTO {db}.t SELECT id, 'old' FROM range(0, 1000)")
    t = Catalog(spark_warehouse).get_table(f"{db}.t")
    root = t.path
    before_files, before_snapshots = _data_files(root), t.snapshot_ids()
    spark.range(0, 600_000, numPartitions=2).selectExpr(
        "id", "repeat(cast(id AS STRING), 8) AS v").createOrReplaceTempView("merge_kill_src")

    killed: list[int] = []
    stop = threading.Event()

    def killer() -> None:
        # once a writing attempt has flushed a data file of its own, kill every Python worker
        while not stop.is_set():
            if len(_data_files(root)) > len(before_files):
                for pid in _python_workers_of_this_process():
                    # a worker may have ended between the listing and the kill
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                        killed.append(pid)
                if killed:
                    return
            time.sleep(0.05)

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    started = time.monotonic()
    try:
        with pytest.raises(Exception) as failure:  # noqa: B017 (Spark reports the lost worker in its own words)
            spark.sql(f"MERGE INTO {db}.t t USING merge_kill_src s ON t.id = s.id "
                      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    finally:
        stop.set()
        th.join()
    assert killed, "no writing Python worker was found and killed"
    assert t.snapshot_ids() == before_snapshots
    # what the statement's failure looked like, should files be left (a diagnosis for a flaky run)
    how = (f"statement failed after {time.monotonic() - started:.1f} s, {len(killed)} workers killed: "
           f"{str(failure.value).splitlines()[0][:300] if str(failure.value) else type(failure.value).__name__}")
    assert _data_files(root) == before_files, how
    # the table answers as before the statement, and takes the next MERGE
    assert sql(f"SELECT count(*), min(v), max(v) FROM {db}.t") == [(1000, "old", "old")]
    spark.sql(f"MERGE INTO {db}.t t USING (SELECT id, 'new' v FROM range(990, 1010)) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    assert sql(f"SELECT v, count(*) FROM {db}.t GROUP BY v ORDER BY v") == [("new", 20), ("old", 990)]
