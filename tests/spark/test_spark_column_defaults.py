"""Column DEFAULT values through Spark, as Paimon 2.x's Spark catalog answers them
(SparkWriteITCase.testWriteWithDefaultValue, DefaultValueTest "unsupported default value"):
CREATE TABLE ... DEFAULT, SHOW CREATE TABLE, INSERT with a column list or DEFAULT, NULL written as
the default, ALTER COLUMN ... SET / DROP DEFAULT, ADD COLUMN ... DEFAULT refused, a default that
is not a constant of the column's type refused; REPLACE TABLE keeps the new defaults."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytestmark = pytest.mark.spark


def test_write_with_default_values(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.T"
    sql(f"CREATE TABLE {t} (a INT, b INT DEFAULT 2, c STRING DEFAULT 'my_value') TBLPROPERTIES ('file.format'='avro')")
    show = sql(f"SHOW CREATE TABLE {t}")[0][0]
    assert "b INT DEFAULT 2," in show and "DEFAULT 'my_value'" in show
    sql(f"INSERT INTO {t} (a) VALUES (1), (2)")
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, 2, "my_value"), (2, 2, "my_value")]
    sql(f"INSERT INTO {t} VALUES (3, DEFAULT, DEFAULT)")
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(1, 2, "my_value"), (2, 2, "my_value"), (3, 2, "my_value")]
    with pytest.raises(Exception, match=r"Unsupported table change: Cannot add column \[d\] with default value"):
        spark.sql(f"ALTER TABLE {t} ADD COLUMN d INT DEFAULT 5")
    sql(f"ALTER TABLE {t} ALTER COLUMN b TYPE STRING")  # the default is kept, read as the new type
    sql(f"INSERT INTO {t} (a) VALUES (4)")
    assert sql(f"SELECT * FROM {t} ORDER BY a") == [(a, "2", "my_value") for a in (1, 2, 3, 4)]
    sql(f"ALTER TABLE {t} ALTER COLUMN b SET DEFAULT '3'")
    sql(f"INSERT INTO {t} (a) VALUES (5)")
    assert sql(f"SELECT * FROM {t} WHERE a = 5") == [(5, "3", "my_value")]
    # Paimon's writers write a column's default for a null (DefaultValueRow)
    sql(f"INSERT INTO {t} VALUES (6, NULL, NULL)")
    assert sql(f"SELECT * FROM {t} WHERE a = 6") == [(6, "3", "my_value")]
    sql(f"ALTER TABLE {t} ALTER COLUMN b DROP DEFAULT")
    sql(f"INSERT INTO {t} (a) VALUES (7)")
    assert sql(f"SELECT * FROM {t} WHERE a = 7") == [(7, None, "my_value")]
    fields = json.loads(sql(f"SELECT fields FROM {db}.`T$schemas` ORDER BY schema_id DESC LIMIT 1")[0][0])
    assert [f.get("defaultValue") for f in fields] == [None, None, "'my_value'"]


def test_unsupported_default_values_are_refused(spark: Any, sql: Any, db: str) -> None:
    with pytest.raises(Exception, match=r"Unsupported default value `current_timestamp\(\)`"):
        spark.sql(f"CREATE TABLE {db}.t (a INT, b TIMESTAMP DEFAULT current_timestamp(), d DATE DEFAULT current_date())")
    assert [r[1] for r in sql(f"SHOW TABLES IN {db}")] == []
    sql(f"CREATE TABLE {db}.t (a INT DEFAULT 1)")
    with pytest.raises(Exception, match=r"Unsupported default value `current_timestamp\(\)`"):
        spark.sql(f"ALTER TABLE {db}.t ALTER COLUMN a SET DEFAULT current_timestamp()")
    sql(f"INSERT INTO {db}.t VALUES (DEFAULT)")
    assert sql(f"SELECT * FROM {db}.t") == [(1,)]


def test_replace_and_create_like_keep_defaults(sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (a INT, b INT)")
    sql(f"REPLACE TABLE {t} (a INT, b STRING DEFAULT 'x')")
    sql(f"INSERT INTO {t} (a) VALUES (1)")
    assert sql(f"SELECT * FROM {t}") == [(1, "x")]
    sql(f"CREATE TABLE {db}.l LIKE {t}")
    sql(f"INSERT INTO {db}.l (a) VALUES (2)")
    assert sql(f"SELECT * FROM {db}.l") == [(2, "x")]
