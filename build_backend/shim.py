"""Compiles the Spark JVM shim (jvm-shim/) with plain ``javac`` and ``jar`` (no Maven) against the
jars of an installed pyspark, into ``paimon_sql/spark/jars/paimon-sql-shim.jar``.

Used by the PEP 517 build backend (``paimon_sql_build``: every wheel contains the jar) and by
``jvm-shim/build.sh`` (developers). Standard library only: it runs inside pip's build environment.

    python build_backend/shim.py [--if-stale]

The jar carries ``org/paimon_sql/spark/shim-build.properties`` naming the Spark version it was
compiled against; the catalog (JVM) and ``paimon_sql.spark`` (Python) refuse to start on another
Spark version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "jvm-shim" / "src" / "main" / "java"
RESOURCES = ROOT / "jvm-shim" / "src" / "main" / "resources"  # copied into the jar as they are
JAR = ROOT / "paimon_sql" / "spark" / "jars" / "paimon-sql-shim.jar"
PROPERTIES = "org/paimon_sql/spark/shim-build.properties"
MIN_JDK = 17


class ShimBuildError(RuntimeError):
    pass


def _tool(name: str) -> str:
    """``name`` from $JAVA_HOME/bin, else from PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        cand = Path(home) / "bin" / name
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    found = shutil.which(name)
    if not found:
        raise ShimBuildError(
            f"Building paimon_sql needs a JDK >= {MIN_JDK} to compile its Spark shim, but '{name}' "
            "was found neither in $JAVA_HOME/bin nor on PATH. Install a JDK 17+ (e.g. "
            "openjdk-17-jdk-headless) or set JAVA_HOME."
        )
    return found


def jdk_version(javac: str) -> int:
    out = subprocess.run([javac, "-version"], capture_output=True, text=True, check=False)
    text = (out.stdout + out.stderr).strip()
    m = re.search(r"javac\s+(\d+)(?:\.(\d+))?", text)
    if not m:
        raise ShimBuildError(f"Could not read the version of {javac} (it printed {text!r})")
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major  # "1.8" -> 8


def pyspark_jars() -> tuple[Path, str]:
    """The jars folder and version of the pyspark importable here (the build environment)."""
    try:
        import pyspark
    except ImportError as e:
        raise ShimBuildError(
            "Building paimon_sql's Spark shim needs pyspark in the build environment "
            "(it compiles against pyspark's own jars)"
        ) from e
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    if not jars.is_dir():
        raise ShimBuildError(f"The pyspark at {pyspark.__file__} has no jars folder")
    return jars, str(pyspark.__version__)


def is_stale(jar: Path = JAR) -> bool:
    if not jar.is_file():
        return True
    built = jar.stat().st_mtime
    sources = list(SOURCES.rglob("*.java")) + [p for p in RESOURCES.rglob("*") if p.is_file()] + [Path(__file__)]
    if any(p.stat().st_mtime > built for p in sources):
        return True
    _, version = pyspark_jars()
    return built_spark_version(jar) != version


def built_spark_version(jar: Path = JAR) -> str | None:
    import zipfile

    try:
        with zipfile.ZipFile(jar) as z:
            text = z.read(PROPERTIES).decode("utf-8")
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
    for line in text.splitlines():
        if line.startswith("spark.version="):
            return line.split("=", 1)[1].strip()
    return None


def build(jar: Path = JAR, log: Callable[[str], object] = print) -> Path:
    """Compiles the shim into ``jar`` (replaced atomically) and returns its path."""
    javac, jar_tool = _tool("javac"), _tool("jar")
    major = jdk_version(javac)
    if major < MIN_JDK:
        raise ShimBuildError(
            f"Building paimon_sql's Spark shim needs a JDK >= {MIN_JDK}; {javac} is JDK {major}. "
            "Put a newer JDK first on PATH or set JAVA_HOME."
        )
    spark_jars, spark_version = pyspark_jars()
    sources = sorted(str(p) for p in SOURCES.rglob("*.java"))
    if not sources:
        raise ShimBuildError(f"No Java sources under {SOURCES}")
    with tempfile.TemporaryDirectory(prefix="paimon-sql-shim.") as tmp:
        classes = Path(tmp) / "classes"
        classes.mkdir()
        cmd = [
            javac, "--release", str(MIN_JDK), "-encoding", "UTF-8",
            "-Xlint:all,-options,-serial,-processing,-path", "-Werror",
            "-cp", str(spark_jars / "*"), "-d", str(classes), *sources,
        ]
        run = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if run.returncode != 0:
            raise ShimBuildError(f"javac failed compiling the Spark shim:\n{run.stdout}{run.stderr}")
        if RESOURCES.is_dir():
            shutil.copytree(RESOURCES, classes, dirs_exist_ok=True)
        props = classes / PROPERTIES
        props.parent.mkdir(parents=True, exist_ok=True)
        props.write_text(f"spark.version={spark_version}\n", encoding="utf-8")
        jar.parent.mkdir(parents=True, exist_ok=True)
        tmp_jar = jar.with_name(jar.name + ".tmp")
        run = subprocess.run(
            [jar_tool, "--create", "--file", str(tmp_jar), "-C", str(classes), "."],
            capture_output=True, text=True, check=False,
        )
        if run.returncode != 0:
            raise ShimBuildError(f"jar failed packaging the Spark shim:\n{run.stdout}{run.stderr}")
        os.replace(tmp_jar, jar)
    log(f"built {jar} (Spark {spark_version}, JDK {major})")
    return jar


def main(argv: list[str]) -> int:
    try:
        if "--if-stale" in argv and not is_stale():
            return 0
        build(log=lambda m: print(m, file=sys.stderr))
    except ShimBuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
