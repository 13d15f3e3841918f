"""The recipes of docs/install.md for sessions paimon_sql does not build: a plain
``SparkSession.builder`` session (as a notebook makes it) given only the documented settings uses the
``paimon`` catalog; ``paimon_sql.spark.session()`` attaches to such a session; a session started
without the jar is refused; ``spark-submit $(python -m paimon_sql.spark args ...) job.py`` with
``PYSPARK_PYTHON`` exported runs a job whose script only calls ``SparkSession.builder.getOrCreate()``.
Each case starts its own JVM in a subprocess (slow): the shared session of ``conftest.py`` already
holds the jar, and a JVM reads ``spark.jars`` only when it starts."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from paimon_sql.spark import jar_path

pytestmark = [pytest.mark.spark, pytest.mark.slow]

# Only what the recipe documents: before the session starts, the jar (spark.jars), the SQL extension
# and PYSPARK_PYTHON; the catalog settings afterwards, at run time (spark.conf.set).
PLAIN_SESSION = textwrap.dedent("""
    import json, os, sys
    os.environ["PYSPARK_PYTHON"] = sys.executable  # before anything starts Spark
    from pyspark.sql import SparkSession

    jar, warehouse, other = sys.argv[1:4]
    spark = (SparkSession.builder.master("local[1]")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.jars", jar)
             .config("spark.sql.extensions", "org.paimon_sql.spark.PaimonSparkSessionExtensions")
             .getOrCreate())
    spark.conf.set("spark.sql.catalog.paimon", "org.paimon_sql.spark.PaimonCatalog")
    spark.conf.set("spark.sql.catalog.paimon.warehouse", warehouse)

    def rows(sql):
        return [list(r) for r in spark.sql(sql).collect()]

    spark.sql("CREATE TABLE paimon.default.t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='2')")
    spark.sql("INSERT INTO paimon.default.t VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO paimon.default.t VALUES (2, 'B')")
    out = {
        "rows": rows("SELECT * FROM paimon.default.t ORDER BY id"),
        "snapshots": rows("SELECT snapshot_id, commit_kind FROM paimon.default.t$snapshots ORDER BY snapshot_id"),
        "tag": rows("CALL sys.create_tag(table => 'default.t', tag => 'v1', snapshot => 1)"),
        "v1": rows("SELECT * FROM paimon.default.t VERSION AS OF 'v1' ORDER BY id"),
    }

    # paimon_sql.spark.session() on the running session: sets the catalog's run-time settings
    from paimon_sql.spark import session
    same = session(warehouse=other, catalog="lake", default_catalog=False)
    out["same_session"] = same is spark
    out["conf"] = {k: same.conf.get(k, None) for k in (
        "spark.sql.catalog.lake", "spark.sql.catalog.lake.warehouse", "spark.sql.defaultCatalog",
        "spark.sql.python.filterPushdown.enabled", "spark.sql.execution.arrow.maxBytesPerBatch")}
    same.sql("CREATE TABLE lake.default.u (k INT, n BIGINT) TBLPROPERTIES ("
             "'primary-key'='k', 'merge-engine'='aggregation', 'fields.n.aggregate-function'='sum')")
    same.sql("INSERT INTO lake.default.u VALUES (1, 10), (2, 5)")
    same.sql("INSERT INTO lake.default.u VALUES (1, 7)")
    out["lake"] = rows("SELECT * FROM lake.default.u ORDER BY k")
    print("RESULT " + json.dumps(out))
""")

NO_JAR_SESSION = textwrap.dedent("""
    import sys
    from pyspark.sql import SparkSession
    from paimon_sql.errors import ValidationError
    from paimon_sql.spark import session

    SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
    try:
        session(warehouse=sys.argv[1])
    except ValidationError as e:
        print("REFUSED " + str(e))
""")


def _run(script: str, args: list[str], tmp_path: Path) -> str:
    """Runs ``script`` with this interpreter in a folder of its own, without PYSPARK_PYTHON in its
    environment (the script sets what the recipe says); returns stdout (the test fails with stderr's
    tail if the script fails)."""
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    for key in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"):
        env.pop(key, None)
    run = subprocess.run([sys.executable, "-c", script, *args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"stdout:\n{run.stdout[-2000:]}\nstderr:\n{run.stderr[-6000:]}"
    return run.stdout


def _result(stdout: str, prefix: str) -> Any:
    lines = [ln for ln in stdout.splitlines() if ln.startswith(prefix)]
    assert lines, stdout[-2000:]
    return lines[-1][len(prefix):]


def test_plain_session_with_the_documented_settings(tmp_path: Path) -> None:
    wh, other = tmp_path / "wh", tmp_path / "other"
    out = json.loads(_result(_run(PLAIN_SESSION, [jar_path(), str(wh), str(other)], tmp_path), "RESULT "))
    assert out["rows"] == [[1, "a"], [2, "B"]]
    assert out["snapshots"] == [[1, "APPEND"], [2, "APPEND"]]
    assert out["tag"] == [[True]]
    assert out["v1"] == [[1, "a"], [2, "b"]]
    assert out["same_session"] is True
    assert out["conf"] == {
        "spark.sql.catalog.lake": "org.paimon_sql.spark.PaimonCatalog", "spark.sql.catalog.lake.warehouse": str(other),
        "spark.sql.defaultCatalog": None,  # default_catalog=False leaves it unset
        "spark.sql.python.filterPushdown.enabled": "true", "spark.sql.execution.arrow.maxBytesPerBatch": "2147483647",
    }
    assert out["lake"] == [[1, 17], [2, 5]]
    assert (wh / "default.db" / "t" / "tag" / "tag-v1").is_file()
    assert (other / "default.db" / "u" / "snapshot" / "snapshot-2").is_file()


def test_session_refuses_a_running_session_without_the_jar(tmp_path: Path) -> None:
    message = _result(_run(NO_JAR_SESSION, [str(tmp_path / "wh")], tmp_path), "REFUSED ")
    assert "without the paimon_sql jar" in message and "spark.stop()" in message


JOB = textwrap.dedent("""
    import json
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    spark.sql("CREATE TABLE t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='2')")
    spark.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO t VALUES (2, 'B')")
    print("RESULT " + json.dumps({
        "rows": [list(r) for r in spark.sql("SELECT * FROM t ORDER BY id").collect()],
        "snapshots": [list(r) for r in spark.sql("SELECT snapshot_id, commit_kind FROM t$snapshots").collect()],
    }))
""")


def test_spark_submit_with_the_printed_args(tmp_path: Path) -> None:
    import pyspark

    wh = tmp_path / "wh"
    job = tmp_path / "job.py"
    job.write_text(JOB)
    printed = subprocess.run([sys.executable, "-m", "paimon_sql.spark", "args", "--warehouse", str(wh)],
                             capture_output=True, text=True, check=True).stdout
    submit = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-submit")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    env.pop("PYSPARK_DRIVER_PYTHON", None)
    run = subprocess.run([submit, "--master", "local[1]", "--conf", "spark.ui.enabled=false",
                          *shlex.split(printed), str(job)],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"stdout:\n{run.stdout[-2000:]}\nstderr:\n{run.stderr[-6000:]}"
    out = json.loads(_result(run.stdout, "RESULT "))
    assert out == {"rows": [[1, "a"], [2, "B"]], "snapshots": [[1, "APPEND"], [2, "APPEND"]]}
    assert (wh / "default.db" / "t" / "snapshot" / "snapshot-2").is_file()
