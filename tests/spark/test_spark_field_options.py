"""Per-field table options through Spark SQL: ``fields.<f>.default-value`` (nulls read as the
default, filters see it) and ALTER TABLE re-checking aggregate functions against column types."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_default_value_reads_and_filters(spark: Any, sql: Any, db: str) -> None:
    """Paimon's ReadWriteTableITCase.testDefaultValueWithoutPrimaryKey, in Spark SQL."""
    spark.sql(f"CREATE TABLE {db}.r (id BIGINT, currency STRING, rate BIGINT, dt STRING) "
              "TBLPROPERTIES ('fields.rate.default-value' = '1000')")
    spark.sql(f"INSERT INTO {db}.r VALUES (1, 'US Dollar', 114, '2022-01-01'), "
              "(2, 'Yen', CAST(NULL AS BIGINT), '2022-01-01'), (3, 'Euro', CAST(NULL AS BIGINT), '2022-01-01'), "
              "(3, 'Euro', 119, '2022-01-02')")
    assert sql(f"SELECT * FROM {db}.r WHERE rate = 1000 ORDER BY id") == [
        (2, "Yen", 1000, "2022-01-01"), (3, "Euro", 1000, "2022-01-01")]
    assert sql(f"SELECT id FROM {db}.r WHERE rate > 500 ORDER BY id") == [(2,), (3,)]
    with pytest.raises(Exception, match="fields.rate.default-value"):
        spark.sql(f"ALTER TABLE {db}.r SET TBLPROPERTIES ('fields.rate.default-value' = 'abc')")
    assert sql(f"SELECT count(*) FROM {db}.r WHERE rate = 1000") == [(2,)]
