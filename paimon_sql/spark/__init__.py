"""Spark SQL integration: the ``paimon`` catalog (a JVM shim backed by this engine), the Python data
source ``paimon_sql``, stored procedures, the ``paimon-sql`` shell and :func:`session`.

Importing this package does not import pyspark; :func:`session` does.
"""

from __future__ import annotations

import os

from paimon_sql.errors import NotFoundError, ValidationError

CATALOG_CLASS = "org.paimon_sql.spark.PaimonCatalog"
EXTENSIONS_CLASS = "org.paimon_sql.spark.PaimonSparkSessionExtensions"
DATA_SOURCE_NAME = "paimon_sql"
JAR_NAME = "paimon-sql-shim.jar"
SHIM_PROPERTIES = "org/paimon_sql/spark/shim-build.properties"


def jar_path() -> str:
    """The JVM shim jar shipped with (or built into) this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", JAR_NAME)
    if not os.path.isfile(path):
        raise NotFoundError(
            f"The Spark shim jar {path} is missing: build it with jvm-shim/build.sh "
            "(scripts/setup_env.sh does) or install a built wheel of paimon_sql"
        )
    return path


def shim_spark_version(jar: str | None = None) -> str | None:
    """The Spark version the shim jar was compiled against (None for a jar built before the
    version was recorded)."""
    import zipfile

    try:
        with zipfile.ZipFile(jar or jar_path()) as z:
            text = z.read(SHIM_PROPERTIES).decode("utf-8")
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "spark.version":
            return value.strip()
    return None


def check_spark_version(running: str | None = None, jar: str | None = None) -> None:
    """Fails fast when the running Spark (default: the installed pyspark) is not the major.minor
    version the shim jar was compiled against: the shim uses Spark-internal classes."""
    if running is None:
        import pyspark

        running = str(pyspark.__version__)
    built = shim_spark_version(jar)
    if built is not None and built.split(".")[:2] != running.split(".")[:2]:
        raise ValidationError(
            f"The paimon_sql Spark shim ({jar or jar_path()}) was built for Spark {built}, but the "
            f"running Spark is {running}: install paimon_sql built against Spark "
            f"{'.'.join(running.split('.')[:2])} (pip rebuilds the shim against the pyspark it installs)"
        )


# ``session`` is the function, not the module of the same name: importing the module here first
# keeps later ``import paimon_sql.spark.session`` from rebinding the package attribute.
from paimon_sql.spark import session as _session_module  # noqa: E402

session = _session_module.session


__all__ = [
    "CATALOG_CLASS", "DATA_SOURCE_NAME", "EXTENSIONS_CLASS", "check_spark_version", "jar_path", "session",
    "shim_spark_version",
]
