"""One local SparkSession for the whole run (it costs seconds to start), with the ``paimon_sql``
data source registered and Python workers running this interpreter."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs a Java runtime", allow_module_level=True)


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The process's SparkSession: reused when another test folder started one, else started
    here, with the ``paimon`` catalog when the shim jar is built (so that tests/spark can share it
    whichever folder runs first) and as a plain session otherwise."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from paimon_sql.errors import NotFoundError
    from paimon_sql.spark.datasource import PaimonDataSource

    conf = {
        "spark.ui.enabled": "false",
        "spark.sql.python.filterPushdown.enabled": "true",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.driver.memory": "1g",
    }
    session = SparkSession.getActiveSession()
    owned = session is None
    if session is None:
        try:
            from paimon_sql.spark import jar_path
            from paimon_sql.spark import session as paimon_session

            jar_path()
            session = paimon_session(
                warehouse=str(tmp_path_factory.mktemp("spark-warehouse")), master="local[2]", **conf
            )
        except (ImportError, NotFoundError):
            builder = SparkSession.builder.master("local[2]").appName("paimon_sql-datasource-tests")
            for k, v in conf.items():
                builder = builder.config(k, v)
            session = builder.getOrCreate()
    session.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    session.sparkContext.setLogLevel("FATAL")
    session.dataSource.register(PaimonDataSource)
    yield session
    if owned:
        session.stop()


@pytest.fixture()
def warehouse(tmp_path) -> str:  # type: ignore[no-untyped-def]
    from paimon_sql.catalog.catalog import Catalog

    wh = str(tmp_path / "wh")
    Catalog(wh).create_database("db")
    return wh
