"""Reads and writes planned and committed in the bridge (``BridgeRead``, ``BridgeBatchWrite``,
``paimon_sql/spark/planning.py``) instead of Spark's planner daemons: the same filters reach the
reader as on Spark's path, the same rows come back, and the data source is registered without Spark's
lookup of installed data sources."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from paimon_sql.spark.datasource import PaimonDataSource

pytestmark = pytest.mark.spark


def _plan(spark: Any, query: str) -> str:
    return str(spark.sql(query)._jdf.queryExecution().executedPlan().toString())


def _pushed(plan: str) -> str:
    return plan.split("PushedFilters: [")[1].split("]")[0]


@pytest.fixture()
def merged(spark: Any, db: str) -> str:
    """A partitioned primary-key table whose buckets need a merge (two overlapping commits): read
    by the Python path."""
    t = f"{db}.m"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v STRING, x DOUBLE, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id,dt', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a', 1.0, 'p'), (2, 'b', 2.0, 'p'), (3, 'c', 3.0, 'q'), (4, NULL, 4.0, 'q')")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'B', 2.5, 'p'), (4, 'D', 4.5, 'q'), (5, 'e', 5.0, 'p')")
    return t


def test_the_class_pickled_by_the_shim_is_the_data_source(spark: Any) -> None:
    shim = bytes(spark.sparkContext._jvm.org.paimon_sql.spark.EngineDataSource.pickledClass())
    assert pickle.loads(shim) is PaimonDataSource
    assert shim == pickle.dumps(PaimonDataSource, protocol=5)


def test_filters_reach_the_python_reader_as_on_sparks_path(spark: Any, sql: Any, merged: str) -> None:
    q = f"SELECT id, v FROM {merged} WHERE dt = 'p' AND id > 1 AND v IS NOT NULL"
    plan = _plan(spark, q)
    assert "(Python)" in plan, plan
    assert "EqualTo(dt,p)" in plan.split("PartitionFilters: [")[1].split("]")[0], plan
    pushed = _pushed(plan)
    assert "GreaterThan(id,1)" in pushed and "IsNotNull(v)" in pushed, plan
    assert sorted(sql(q)) == [(2, "B"), (5, "e")]
    # refused by the reader (a DOUBLE comparison: NaN semantics) or not serializable (OR): Spark's
    q = f"SELECT id FROM {merged} WHERE x > 2.0 AND (id = 1 OR v = 'D')"
    plan = _plan(spark, q)
    assert "(Python)" in plan and "x" not in _pushed(plan) and "Or" not in _pushed(plan), plan
    assert sql(q) == [(4,)]
    # a filter Spark cannot serialize before one the reader takes: the accepted one is named right
    q = f"SELECT id FROM {merged} WHERE (id = 1 OR v = 'D') AND id > 1"
    plan = _plan(spark, q)
    assert "GreaterThan(id,1)" in _pushed(plan) and "Or" not in _pushed(plan), plan
    assert sql(q) == [(4,)]
    assert sorted(sql(f"SELECT * FROM {merged}")) == [
        (1, "a", 1.0, "p"), (2, "B", 2.5, "p"), (3, "c", 3.0, "q"), (4, "D", 4.5, "q"), (5, "e", 5.0, "p")]


def test_no_filter_reaches_python_when_spark_pushes_none(spark: Any, sql: Any, conf: Any, merged: str) -> None:
    conf("spark.sql.python.filterPushdown.enabled", "false")
    q = f"SELECT id FROM {merged} WHERE dt = 'p' AND id > 1"
    plan = _plan(spark, q)
    assert "(Python)" in plan and _pushed(plan) == "", plan
    assert sorted(sql(q)) == [(2,), (5,)]


def test_the_data_source_is_registered_without_sparks_lookup(spark: Any) -> None:
    manager = spark._jsparkSession.sessionState().dataSourceManager()
    field = manager.getClass().getDeclaredField("runtimeDataSourceBuilders")
    field.setAccessible(True)
    assert field.get(manager).containsKey("paimon_sql")
