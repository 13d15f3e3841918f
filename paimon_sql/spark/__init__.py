"""Spark SQL integration: the ``paimon`` catalog (a JVM shim backed by this engine), the Python data
source ``paimon_sql``, stored procedures, the ``paimon-sql`` shell and :func:`session`.

Importing this package does not import pyspark; :func:`session` does.
"""

from __future__ import annotations

import os

from paimon_sql.errors import NotFoundError

CATALOG_CLASS = "org.paimon_sql.spark.PaimonCatalog"
EXTENSIONS_CLASS = "org.paimon_sql.spark.PaimonSparkSessionExtensions"
DATA_SOURCE_NAME = "paimon_sql"
JAR_NAME = "paimon-sql-shim.jar"
SPARK_VERSION_PREFIX = "4.3."


def jar_path() -> str:
    """The JVM shim jar shipped with (or built into) this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", JAR_NAME)
    if not os.path.isfile(path):
        raise NotFoundError(
            f"The Spark shim jar {path} is missing: build it with jvm-shim/build.sh "
            "(scripts/setup_env.sh does) or install a built wheel of paimon_sql"
        )
    return path


# ``session`` is the function, not the module of the same name: importing the module here first
# keeps later ``import paimon_sql.spark.session`` from rebinding the package attribute.
from paimon_sql.spark import session as _session_module  # noqa: E402

session = _session_module.session


__all__ = ["CATALOG_CLASS", "DATA_SOURCE_NAME", "EXTENSIONS_CLASS", "jar_path", "session"]
