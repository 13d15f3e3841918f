"""The background start of Spark's Python workers (``Warmup.java``, issue 22's cold start): after it,
the first INSERT, merged read and system-table query of a fresh shell start no Python process; and
without it they start one, Spark's task worker (reads and writes are planned and committed in the
bridge: ``BridgeRead``, ``BridgeBatchWrite``).
Slow: one ``paimon-sql`` JVM per test, its Python processes logged by a wrapper interpreter."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.spark.test_spark_cli import run_shell

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SCRIPT = """
SELECT reflect('org.paimon_sql.spark.Warmup', 'await', CAST(240000 AS BIGINT));
SELECT reflect('java.lang.System', 'currentTimeMillis');
CREATE TABLE t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1');
INSERT INTO t VALUES (1, 'a'), (2, 'b');
INSERT INTO t VALUES (2, 'B'), (3, 'c');
SELECT * FROM t ORDER BY id;
SELECT count(*) FROM `t$snapshots`;
"""


@pytest.fixture
def jtmp() -> Iterator[Path]:
    """The JVM's temporary folder: short, as Spark's Unix socket paths under it must be."""
    d = tempfile.mkdtemp(prefix="pw", dir="/tmp")
    yield Path(d)
    shutil.rmtree(d, ignore_errors=True)


def _shell(tmp_path: Path, jtmp: Path, *conf: str) -> tuple[list[str], list[tuple[float, str]]]:
    """Runs SCRIPT in a fresh shell whose Python processes are logged: (stdout lines, process starts
    as (epoch seconds, arguments))."""
    log = tmp_path / "starts.log"
    wrapper = tmp_path / "python.sh"
    wrapper.write_text(f'#!/bin/bash\necho "$(date +%s.%N) $*" >> {log}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    args = ["--conf", f"spark.pyspark.python={wrapper}",
            "--conf", f"spark.driver.extraJavaOptions=-Djava.io.tmpdir={jtmp}"]
    for c in conf:
        args += ["--conf", c]
    out = run_shell([*args, "-e", SCRIPT], tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    starts = []
    for row in log.read_text().splitlines():
        ts, rest = row.split(" ", 1)
        starts.append((float(ts), rest))
    return out.stdout.splitlines(), starts


def _daemons_after(starts: list[tuple[float, str]], millis: str) -> list[str]:
    t = int(millis) / 1000.0
    return [args for ts, args in starts if ts >= t and "pyspark.daemon" in args]


def test_first_statements_reuse_the_warmed_workers(tmp_path: Path, jtmp: Path) -> None:
    lines, starts = _shell(tmp_path, jtmp, "spark.paimon_sql.warmup.enabled=true")  # -e: off by default
    assert lines[0].startswith("done in "), lines
    assert lines[2:] == ["1\ta", "2\tB", "3\tc", "2"]
    # the warm-up started every daemon the statements need: none starts after it
    assert _daemons_after(starts, lines[1]) == []
    # ... which is Spark's task worker alone: reads and writes are planned and committed in the
    # bridge (no data source lookup, no planner daemon)
    warmed = {args.split()[-1] for _, args in starts if "pyspark.daemon" in args}
    assert warmed == {"pyspark.worker"}
    # its temporary warehouse is gone
    assert not [p for p in os.listdir(jtmp) if p.startswith("paimon-sql-warmup-")]


def test_disabled_warmup_starts_nothing(tmp_path: Path, jtmp: Path) -> None:
    lines, starts = _shell(tmp_path, jtmp, "spark.paimon_sql.warmup.enabled=false")
    assert lines[0] == "disabled" and lines[2:] == ["1\ta", "2\tB", "3\tc", "2"]
    # the statements start the one daemon they need themselves: Spark's task worker (their reads
    # and writes are planned and committed in the bridge: no lookup of data sources, no planner)
    daemons = [args.split()[-1] for _, args in starts if "pyspark.daemon" in args]
    assert daemons == ["pyspark.worker"]
    assert _daemons_after(starts, lines[1]) != []


def test_a_malformed_setting_is_named_and_turns_the_warmup_off(tmp_path: Path, jtmp: Path) -> None:
    lines, starts = _shell(tmp_path, jtmp, "spark.paimon_sql.warmup.enabled=yes")
    assert lines[0] == "off: spark.paimon_sql.warmup.enabled must be true or false, got 'yes'", lines
    assert lines[2:] == ["1\ta", "2\tB", "3\tc", "2"]
    assert _daemons_after(starts, lines[1]) != []  # nothing was started before the statements


PYSPARK_SCRIPT = """
import sys, time
from paimon_sql.spark import session
spark = session(sys.argv[1], master="local[2]", **{"spark.pyspark.python": sys.argv[2], "spark.ui.enabled": "false"})
print(getattr(spark.sparkContext._jvm.org.paimon_sql.spark.Warmup, "await")(240000))
print(time.time())
spark.sql("CREATE TABLE t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
spark.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
spark.sql("INSERT INTO t VALUES (2, 'B'), (3, 'c')")
print([tuple(r) for r in spark.sql("SELECT * FROM t ORDER BY id").collect()])
spark.stop()
"""


def test_pyspark_session_reuses_the_warmed_workers(tmp_path: Path) -> None:
    # session() registers the data source itself: the warm-up (which needs the bridge first) and
    # the statements must use the same one, else the statements start Python workers of their own
    import subprocess

    log = tmp_path / "starts.log"
    wrapper = tmp_path / "python.sh"
    wrapper.write_text(f'#!/bin/bash\necho "$(date +%s.%N) $*" >> {log}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PYSPARK_PYTHON": str(wrapper), "TMPDIR": "/tmp"}
    out = subprocess.run([sys.executable, "-c", PYSPARK_SCRIPT, str(tmp_path / "wh"), str(wrapper)],
                         capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith("done in ") and lines[2] == "[(1, 'a'), (2, 'B'), (3, 'c')]", lines
    starts = [(float(r.split(" ", 1)[0]), r.split(" ", 1)[1]) for r in log.read_text().splitlines()]
    assert _daemons_after(starts, str(int(float(lines[1]) * 1000))) == []
    # session() registered the data source without Spark's lookup of installed data sources
    assert not [args for _, args in starts if "lookup_data_sources" in args]
