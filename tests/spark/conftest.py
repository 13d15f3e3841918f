"""One local SparkSession with the ``paimon`` catalog for the whole test run (it costs seconds to
start), on a warehouse of its own; each test works in a fresh database (``db`` fixture).

The session must be the first one of the process: Spark puts the shim jar on the driver's class
path only when its JVM starts. Tests of this folder that need no Spark do not start it.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Spark needs a Java runtime", allow_module_level=True)


def _jar_or_skip() -> str:
    from paimon_sql.errors import NotFoundError
    from paimon_sql.spark import jar_path

    try:
        return jar_path()
    except NotFoundError as e:  # the set-up builds it; say how when it is missing
        pytest.fail(str(e))
        raise


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The process's SparkSession with the ``paimon`` catalog: started here, or reused when another
    test folder already started one with the catalog (tests/spark_ds does when it runs first)."""
    jar = _jar_or_skip()
    from pyspark.sql import SparkSession

    from paimon_sql.spark import CATALOG_CLASS, session

    active = SparkSession.getActiveSession()
    owned = active is None
    if active is None:
        spark = session(
            warehouse=str(tmp_path_factory.mktemp("spark-warehouse")),
            master="local[2]",
            **{
                "spark.ui.enabled": "false",
                "spark.sql.shuffle.partitions": "2",
                "spark.sql.session.timeZone": "UTC",
                "spark.driver.memory": "1g",
                # Spark's own session catalog (tests switch to it) keeps its folder out of the repo
                "spark.sql.warehouse.dir": str(tmp_path_factory.mktemp("spark-session-catalog")),
            },
        )
    else:
        spark = active
        jars = spark.sparkContext.getConf().get("spark.jars", "").split(",")
        if jar not in jars or spark.conf.get("spark.sql.catalog.paimon", None) != CATALOG_CLASS:
            pytest.fail(
                "A SparkSession without the paimon catalog already runs in this pytest process "
                "(started by another test folder): run tests/spark in a process of its own"
            )
        spark.conf.set("spark.sql.defaultCatalog", "paimon")
    spark.sparkContext.setLogLevel("FATAL")
    yield spark
    if owned:
        spark.stop()


@pytest.fixture(scope="session")
def spark_warehouse(spark: Any) -> str:
    """The warehouse of the session's ``paimon`` catalog."""
    wh: str = spark.conf.get("spark.sql.catalog.paimon.warehouse")
    return wh


@pytest.fixture()
def db(spark: Any) -> Iterator[str]:
    """A fresh database of the ``paimon`` catalog (the session's default catalog)."""
    name = "t_" + uuid.uuid4().hex[:10]
    spark.sql(f"CREATE NAMESPACE paimon.{name}")
    yield name
    spark.sql(f"DROP NAMESPACE IF EXISTS paimon.{name} CASCADE")


@pytest.fixture()
def sql(spark: Any) -> Any:
    """``sql("SELECT ...")`` -> the result rows as tuples."""

    def run(text: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in spark.sql(text).collect()]

    return run


@pytest.fixture()
def conf(spark: Any) -> Iterator[Any]:
    """Sets session confs for one test and unsets them after it."""
    keys: list[str] = []

    def set_(key: str, value: str) -> None:
        keys.append(key)
        spark.conf.set(key, value)

    yield set_
    for k in keys:
        spark.conf.unset(k)


@pytest.fixture()
def queries(spark: Any) -> Iterator[list[Any]]:
    """Streaming queries a test started (append them here): stopped after it, whatever happened."""
    started: list[Any] = []
    yield started
    for q in started:
        q.stop()
