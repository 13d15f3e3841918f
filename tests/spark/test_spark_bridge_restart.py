"""The Python bridge process behind the catalog: when it dies, the next call starts a new one."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def _bridge_pid(spark: Any) -> int:
    pid: int = spark.sparkContext._jvm.org.paimon_sql.spark.PythonBridge.pid()
    return pid


def _kill_bridge(spark: Any) -> int:
    pid = _bridge_pid(spark)
    assert pid > 0
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while _bridge_pid(spark) == pid:  # until the JVM has seen it exit
        assert time.monotonic() < deadline, "the JVM did not notice the bridge's death"
        time.sleep(0.05)
    return pid


def test_bridge_restarts_after_being_killed(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.k (id BIGINT)")
    first = _kill_bridge(spark)
    assert sql(f"SHOW TABLES IN {db}") == [(db, "k", False)]  # read-only call: restarts the bridge
    second = _bridge_pid(spark)
    assert second > 0 and second != first

    _kill_bridge(spark)
    spark.sql(f"CREATE TABLE {db}.k2 (id BIGINT)")  # a mutating call on a fresh bridge
    _kill_bridge(spark)
    spark.sql(f"INSERT INTO {db}.k VALUES (1), (2)")
    assert Catalog(spark_warehouse).get_table(f"{db}.k").snapshot_ids() == [1]
    _kill_bridge(spark)
    assert sql(f"CALL sys.create_tag(table => '{db}.k', tag => 't')") == [(True,)]
    assert sql(f"SELECT count(*) FROM {db}.k VERSION AS OF 't'") == [(2,)]


def _bridges_of_this_process() -> list[int]:
    """The bridge processes that descend from this test process (through its Spark JVM), found in
    /proc: no call into the JVM from the killing thread."""
    def ppid(pid: int) -> int:
        try:
            return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return 0

    me, out = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "-m paimon_sql.spark.bridge" not in cmd:
            continue
        p = ppid(int(entry))
        while p > 1 and p != me:
            p = ppid(p)
        if p == me:
            out.append(int(entry))
    return out


@pytest.mark.slow
def test_inserts_while_the_bridge_is_killed_are_all_or_nothing(spark: Any, sql: Any, db: str,
                                                                spark_warehouse: str) -> None:
    """The bridge plans and commits every write: killed (SIGKILL) at random moments while INSERTs
    run one after another (in planning, in the commit, between statements), each INSERT's rows are
    in the table entirely or not at all, every INSERT that reported success is there, later
    statements work, and the table's snapshots read as a chain."""
    spark.sql(f"CREATE TABLE {db}.r (id BIGINT, batch INT) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    stop = threading.Event()
    kills: list[int] = []

    def killer() -> None:
        rng = random.Random(11)
        while not stop.wait(rng.uniform(0.2, 1.0)):
            for pid in _bridges_of_this_process():
                with contextlib.suppress(ProcessLookupError):  # it exited since the listing
                    os.kill(pid, signal.SIGKILL)
                    kills.append(pid)

    ok: list[int] = []
    failed: list[int] = []
    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        for b in range(30):
            try:
                spark.sql(f"INSERT INTO {db}.r SELECT id, {b} FROM range({b * 100}, {b * 100 + 100}, 1, 2)")
                ok.append(b)
            except Exception as e:  # a statement whose bridge died: Spark's error
                assert "bridge" in str(e) or "Python" in str(e) or "python" in str(e), str(e)[:2000]
                failed.append(b)
    finally:
        stop.set()
        thread.join()
    assert len(kills) >= 5 and ok, (kills, ok, failed)
    counts = dict(sql(f"SELECT batch, count(*) FROM {db}.r GROUP BY batch"))
    assert all(c == 100 for c in counts.values()), counts  # all or nothing
    assert set(ok) <= set(counts) <= set(ok) | set(failed), (ok, failed, sorted(counts))
    spark.sql(f"INSERT INTO {db}.r VALUES (-1, -1)")  # the table takes writes again
    table = Catalog(spark_warehouse).get_table(f"{db}.r")
    ids = table.snapshot_ids()
    assert ids == list(range(ids[0], ids[0] + len(ids)))
    assert table.read().num_rows == 100 * len(counts) + 1
