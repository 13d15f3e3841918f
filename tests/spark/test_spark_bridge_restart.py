"""The Python bridge process behind the catalog: when it dies, the next call starts a new one."""

from __future__ import annotations

import os
import signal
import time
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
