"""``pip install`` gives a working Spark catalog: the wheel carries the compiled shim, and an
installation from it alone (no source tree) runs SQL through ``paimon-sql`` and ``session()``."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from paimon_sql.errors import ValidationError
from paimon_sql.spark import SHIM_PROPERTIES, check_spark_version, shim_spark_version

ROOT = Path(__file__).resolve().parents[2]
SHIM_BUILD = ROOT / "build_backend" / "shim.py"


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "SPARK_HOME")}
    env.update(extra)
    return env


def _fake_jar(path: Path, spark_version: str) -> str:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(SHIM_PROPERTIES, f"# built by the test\nspark.version={spark_version}\n")
    return str(path)


def test_spark_version_mismatch_names_both_versions(tmp_path: Path) -> None:
    jar = _fake_jar(tmp_path / "shim.jar", "3.5.1")
    assert shim_spark_version(jar) == "3.5.1"
    with pytest.raises(ValidationError, match=r"built for Spark 3\.5\.1.*running Spark is 4\.3\.0"):
        check_spark_version("4.3.0", jar=jar)
    check_spark_version("3.5.4", jar=jar)  # same major.minor: accepted


def test_installed_jar_records_the_spark_it_was_built_for() -> None:
    import pyspark

    assert shim_spark_version() == pyspark.__version__
    check_spark_version()


def test_shim_build_without_a_jdk_fails_clearly(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(sys.executable, bin_dir / "python")
    run = subprocess.run([str(bin_dir / "python"), str(SHIM_BUILD)], capture_output=True, text=True,
                         env=_clean_env(PATH=str(bin_dir), JAVA_HOME=""), timeout=60)
    assert run.returncode == 1
    assert "needs a JDK >= 17" in run.stderr and "'javac'" in run.stderr


def test_shim_build_with_an_old_jdk_fails_clearly(tmp_path: Path) -> None:
    home = tmp_path / "jdk11"
    (home / "bin").mkdir(parents=True)
    for tool, text in (("javac", "javac 11.0.21"), ("jar", "jar 11.0.21")):
        script = home / "bin" / tool
        script.write_text(f"#!/bin/sh\necho '{text}' >&2\n")
        script.chmod(0o755)
    run = subprocess.run([sys.executable, str(SHIM_BUILD)], capture_output=True, text=True,
                         env=_clean_env(JAVA_HOME=str(home)), timeout=60)
    assert run.returncode == 1
    assert "needs a JDK >= 17" in run.stderr and "is JDK 11" in run.stderr


def test_python_m_paimon_sql_spark_prints_the_recipe() -> None:
    def run(*args: str) -> str:
        out = subprocess.run([sys.executable, "-m", "paimon_sql.spark", *args], capture_output=True,
                             text=True, check=True, timeout=60)
        return out.stdout.strip()

    from paimon_sql.spark import jar_path

    assert run("jar") == jar_path()
    conf = run("conf", "--warehouse", "/data/wh", "--catalog", "lake")
    assert "--conf spark.sql.catalog.lake=org.paimon_sql.spark.PaimonCatalog" in conf
    assert "--conf spark.sql.catalog.lake.warehouse=/data/wh" in conf
    assert "spark.pyspark.python" not in conf  # the cluster's own Python unless asked
    args = run("args", "--warehouse", "/data/wh", "--python", "/opt/py/bin/python")
    assert args.startswith(f"--jars {jar_path()} ")
    assert "--conf spark.pyspark.python=/opt/py/bin/python" in args


@pytest.mark.slow
def test_wheel_contains_the_compiled_shim(installed_wheel: Path) -> None:
    code = ("import zipfile, paimon_sql.spark as s; p = s.jar_path(); "
            "print(p); print(s.shim_spark_version()); zipfile.ZipFile(p).getinfo("
            "'org/paimon_sql/spark/PaimonCatalog.class')")
    out = subprocess.run([str(installed_wheel), "-c", code], capture_output=True, text=True, check=True,
                         cwd=installed_wheel.parent, env=_clean_env(), timeout=120).stdout.split()
    import pyspark

    assert out[0].startswith(str(installed_wheel.parent.parent / "lib"))  # site-packages, not the tree
    assert out[1] == pyspark.__version__


@pytest.mark.slow
@pytest.mark.spark
def test_installed_paimon_sql_shell_runs_sql(installed_wheel: Path, tmp_path: Path) -> None:
    shell = installed_wheel.parent / "paimon-sql"
    run = subprocess.run(
        [str(shell), "--warehouse", str(tmp_path / "wh"), "-e",
         "CREATE TABLE t (a INT); INSERT INTO t VALUES (1); SELECT * FROM t"],
        capture_output=True, text=True, cwd=tmp_path, env=_clean_env(), timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.stdout.split() == ["1"]
    assert list((tmp_path / "wh" / "default.db" / "t").rglob("data-*.parquet"))


@pytest.mark.slow
@pytest.mark.spark
def test_installed_session_runs_sql(installed_wheel: Path, tmp_path: Path) -> None:
    code = (
        "import sys, paimon_sql\n"
        "from paimon_sql.spark import session\n"
        "assert '/site-packages/' in paimon_sql.__file__, paimon_sql.__file__\n"
        "spark = session(warehouse=sys.argv[1], **{'spark.ui.enabled': 'false'})\n"
        "spark.sql(\"CREATE TABLE t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')\")\n"
        "spark.sql(\"INSERT INTO t VALUES (1, 'a'), (2, 'b')\")\n"
        "spark.sql(\"INSERT INTO t VALUES (1, 'c')\")\n"
        "print('ROWS', sorted(tuple(r) for r in spark.sql('SELECT * FROM t').collect()))\n"
        "spark.stop()\n"
    )
    run = subprocess.run([str(installed_wheel), "-c", code, str(tmp_path / "wh")], capture_output=True,
                         text=True, cwd=tmp_path, env=_clean_env(), timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    assert "ROWS [(1, 'c'), (2, 'b')]" in run.stdout


@pytest.mark.slow
def test_a_wheel_built_from_the_sdist_carries_the_shim(built_dist: tuple[Path, Path]) -> None:
    """``python -m build``'s path (the one every installed-wheel test uses): an sdist with the Java
    sources and the build backend but no jar, then a wheel built from it, which compiles the shim."""
    import tarfile

    sdist, wheel = built_dist
    with tarfile.open(sdist) as tf:
        names = tf.getnames()
    assert any(n.endswith("jvm-shim/src/main/java/org/paimon_sql/spark/PaimonCatalog.java") for n in names)
    assert any(n.endswith("build_backend/shim.py") for n in names)
    assert not any(n.endswith(".jar") for n in names)
    with zipfile.ZipFile(wheel) as z:
        assert "paimon_sql/spark/jars/paimon-sql-shim.jar" in z.namelist()
