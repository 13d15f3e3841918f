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
