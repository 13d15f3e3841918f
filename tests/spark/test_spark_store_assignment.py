"""Writes cast a query column to the table column's type as Paimon's Spark writes do
(PaimonOutputResolver: a Cast with the session's ANSI mode, whatever Spark's store assignment
policy allows): '1' into an INT column is 1, 'x' fails the ANSI cast and writes nothing."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_string_values_into_numeric_and_date_columns(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (a INT, b STRING, d DATE, n DECIMAL(10, 2))")
    sql(f"INSERT INTO {t} VALUES ('1', 'x', '2024-01-02', '3.25')")
    sql(f"INSERT INTO {t} SELECT '2', 'y', '2024-02-03', '4'")
    import datetime
    from decimal import Decimal

    assert sql(f"SELECT * FROM {t} ORDER BY a") == [
        (1, "x", datetime.date(2024, 1, 2), Decimal("3.25")),
        (2, "y", datetime.date(2024, 2, 3), Decimal("4.00")),
    ]
    with pytest.raises(Exception, match="CAST_INVALID_INPUT"):
        spark.sql(f"INSERT INTO {t} VALUES ('x', 'z', '2024-01-01', '1')")
    assert sql(f"SELECT count(*) FROM {t}") == [(2,)]
    sql(f"INSERT OVERWRITE {t} VALUES ('7', 'o', '2024-03-04', '0.5')")
    assert sql(f"SELECT a, b FROM {t}") == [(7, "o")]


def test_other_catalogs_keep_sparks_policy(spark: Any, sql: Any, db: str, tmp_path: Any) -> None:
    """Only Paimon tables get the casts: a table of Spark's session catalog refuses as before."""
    from pyspark.errors import AnalysisException

    name = f"spark_catalog.default.sa_{db}"
    spark.sql(f"CREATE TABLE {name} (a INT) USING parquet LOCATION '{tmp_path}/sa'")
    try:
        with pytest.raises(AnalysisException, match="CANNOT_SAFELY_CAST|INCOMPATIBLE_DATA"):
            spark.sql(f"INSERT INTO {name} VALUES ('1')")
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


def test_insert_by_name_casts_too(spark: Any, sql: Any, db: str) -> None:
    """``INSERT INTO t BY NAME`` casts each query column to the type of the table column of its
    name."""
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (a INT, b STRING, n BIGINT) TBLPROPERTIES ('primary-key' = 'a', 'bucket' = '1')")
    sql(f"INSERT INTO {t} BY NAME SELECT 'x1' AS b, '5' AS n, '1' AS a")
    sql(f"INSERT INTO {t} BY NAME SELECT '9' AS n, '3' AS a, 'x3' AS b")
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, "x1", 5), (3, "x3", 9)]
    # an invalid value fails the ANSI cast and writes nothing; a missing nullable column is null
    with pytest.raises(Exception, match="CAST_INVALID_INPUT"):
        sql(f"INSERT INTO {t} BY NAME SELECT 'x4' AS b, 'q' AS n, '4' AS a")
    assert sql(f"SELECT count(*) FROM {t}") == [(2,)]
    sql(f"INSERT INTO {t} BY NAME SELECT 'x5' AS b, '5' AS a")
    assert sql(f"SELECT * FROM {t} WHERE a = 5") == [(5, "x5", None)]
