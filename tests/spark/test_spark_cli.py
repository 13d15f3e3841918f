"""``paimon-sql``: the command line it builds, and the real shell process (slow: one JVM each)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from paimon_sql.spark import CATALOG_CLASS, EXTENSIONS_CLASS, jar_path
from paimon_sql.spark.cli import build_command


def _confs(cmd: list[str]) -> dict[str, str]:
    out = {}
    for i, a in enumerate(cmd):
        if a == "--conf":
            k, v = cmd[i + 1].split("=", 1)
            out[k] = v
    return out


def test_command_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cmd, env = build_command(["-e", "SELECT 1"])
    assert cmd[0].endswith(os.path.join("pyspark", "bin", "spark-sql"))
    assert cmd[cmd.index("--master") + 1] == "local[*]"
    assert cmd[cmd.index("--jars") + 1] == jar_path()
    conf = _confs(cmd)
    assert conf["spark.sql.catalog.paimon"] == CATALOG_CLASS
    assert conf["spark.sql.catalog.paimon.warehouse"] == str(tmp_path / "warehouse")
    assert conf["spark.sql.defaultCatalog"] == "paimon"
    assert conf["spark.sql.extensions"] == EXTENSIONS_CLASS
    assert conf["spark.sql.python.filterPushdown.enabled"] == "true"
    assert conf["spark.sql.execution.arrow.maxBytesPerBatch"] == "2147483647"
    assert conf["spark.python.unix.domain.socket.enabled"] == "true"
    assert conf["spark.pyspark.python"] == sys.executable == env["PYSPARK_PYTHON"]
    assert conf["spark.sql.catalogImplementation"] == "in-memory"
    assert cmd[-2:] == ["-e", "SELECT 1"]
    assert env["SPARK_HOME"] == os.path.dirname(os.path.dirname(cmd[0]))


def test_command_keeps_user_options(tmp_path: Path) -> None:
    cmd, _ = build_command([
        "--warehouse", str(tmp_path / "w"), "--catalog", "lake", "--master", "local[1]",
        "--jars", "/x/other.jar", "--conf", "spark.ui.enabled=true", "-f", "q.sql",
    ])
    assert cmd.count("--master") == 1 and cmd[cmd.index("--master") + 1] == "local[1]"
    assert cmd[cmd.index("--jars") + 1] == jar_path() + ",/x/other.jar"
    conf = _confs(cmd)
    assert conf["spark.sql.catalog.lake"] == CATALOG_CLASS and conf["spark.sql.defaultCatalog"] == "lake"
    assert conf["spark.sql.catalog.lake.warehouse"] == str(tmp_path / "w")
    assert conf["spark.ui.enabled"] == "true" and cmd.count("spark.ui.enabled=true") == 1
    assert cmd[-2:] == ["-f", "q.sql"]


def test_command_user_python_reaches_the_workers(tmp_path: Path) -> None:
    # Spark's Python data source workers run PYSPARK_PYTHON: a user's spark.pyspark.python must set it
    py = str(tmp_path / "python")
    cmd, env = build_command(["--conf", f"spark.pyspark.python={py}", "-e", "SELECT 1"])
    assert _confs(cmd)["spark.pyspark.python"] == py and cmd.count(f"spark.pyspark.python={py}") == 1
    assert env["PYSPARK_PYTHON"] == py
    _, env = build_command([f"--conf=spark.pyspark.python={py}", "-e", "SELECT 1"])
    assert env["PYSPARK_PYTHON"] == py


def test_command_scripts_skip_the_warmup() -> None:
    # the background start of the Python workers pays off in an interactive shell only
    key = "spark.paimon_sql.warmup.enabled"
    assert key not in _confs(build_command([])[0])
    assert _confs(build_command(["-e", "SELECT 1"])[0])[key] == "false"
    assert _confs(build_command(["-f", "x.sql"])[0])[key] == "false"
    cmd = build_command(["--conf", f"{key}=true", "-f", "x.sql"])[0]
    assert _confs(cmd)[key] == "true" and cmd.count(f"{key}=true") == 1


def paimon_sql_command() -> str:
    exe = Path(sys.executable).parent / "paimon-sql"
    if not exe.exists():
        pytest.fail(f"{exe} is missing: install the package (scripts/setup_env.sh)")
    return str(exe)


def run_shell(args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([paimon_sql_command(), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


@pytest.mark.spark
@pytest.mark.slow
def test_shell_runs_create_insert_select(tmp_path: Path) -> None:
    script = (
        "CREATE TABLE t (id BIGINT, name STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='2');"
        "INSERT INTO t VALUES (1, 'a'), (2, 'b');"
        "INSERT INTO t VALUES (2, 'B'), (3, 'c');"
        "SELECT * FROM t ORDER BY id;"
        "SELECT snapshot_id, commit_kind FROM t$snapshots ORDER BY snapshot_id;"
        "CALL sys.create_tag(table => 't', tag => 'v1', snapshot => 1);"
        "SELECT count(*) FROM t VERSION AS OF 'v1';"
        "SELECT * FROM nope;"
    )
    out = run_shell(["-e", script], tmp_path)
    assert out.stdout.splitlines() == ["1\ta", "2\tB", "3\tc", "1\tAPPEND", "2\tAPPEND", "true", "2"], out.stderr
    assert out.returncode != 0 and "TABLE_OR_VIEW_NOT_FOUND" in out.stderr  # the last statement
    assert (tmp_path / "warehouse" / "default.db" / "t" / "snapshot" / "snapshot-2").is_file()
    assert not (tmp_path / "metastore_db").exists()


@pytest.mark.spark
@pytest.mark.slow
def test_shell_headers_and_continue_on_error(tmp_path: Path) -> None:
    """``--hiveconf hive.cli.print.header=true`` prints column names (a CALL's ``result``);
    ``--hiveconf hive.cli.errors.ignore=true`` runs the rest of a ``-f`` script after a failing
    statement (the exit code is then the last statement's)."""
    (tmp_path / "s.sql").write_text(
        "CREATE TABLE t (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id');\n"
        "SELECT * FROM nope;\n"
        "INSERT INTO t VALUES (1, 'a');\n"
        "CALL sys.create_tag(table => 't', tag => 'v1');\n"
        "SELECT * FROM t;\n"
    )
    out = run_shell(["--hiveconf", "hive.cli.errors.ignore=true", "--hiveconf", "hive.cli.print.header=true",
                     "-f", "s.sql"], tmp_path, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "TABLE_OR_VIEW_NOT_FOUND" in out.stderr
    lines = out.stdout.splitlines()
    assert lines[-4:] == ["result", "true", "id\tv", "1\ta"], out.stdout
