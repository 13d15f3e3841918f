"""REPLACE TABLE / CREATE OR REPLACE TABLE [AS SELECT] in place, as Paimon 2.x answers them (the
statements and answers of DDLTestBase's "Paimon DDL: REPLACE TABLE ..." / "... RTAS ..." cases and
SnapshotOperationTest): the table keeps its folder and history (time travel to before the
replace), the new definition is the next schema id, a self-referencing RTAS and a time-travel
source read the rows before the replace; changing the partitioning drops and re-creates the table,
which a self-referencing RTAS refuses with Paimon's message."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.spark


def _location(sql: Any, t: str) -> str:
    rows = sql(f"DESCRIBE TABLE EXTENDED {t}")
    return str(next(r[1] for r in rows if r[0] == "Location"))


def _props(sql: Any, t: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in sql(f"SHOW TBLPROPERTIES {t}")}


def _snapshots(sql: Any, t: str) -> list[tuple[Any, ...]]:
    return sql(f"SELECT snapshot_id, schema_id, commit_kind FROM `{t.split('.')[0]}`.`{t.split('.')[1]}$snapshots` "
               "ORDER BY snapshot_id")


def test_replace_table_in_place_keeps_old_snapshots(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id BIGINT, data STRING) USING paimon TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    sql(f"INSERT INTO {t} VALUES (1, 'old')")
    location = _location(sql, t)
    sql(f"REPLACE TABLE {t} (id BIGINT, name STRING) USING paimon TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '4')")
    assert _location(sql, t) == location
    assert _props(sql, t)["bucket"] == "4"
    assert spark.table(t).schema.fieldNames() == ["id", "name"]
    assert sql(f"SELECT * FROM {t}") == []
    assert sql(f"SELECT id, data FROM {t} VERSION AS OF 1") == [(1, "old")]
    # the truncation (old schema) is an OVERWRITE snapshot; the new definition is schema 1
    assert _snapshots(sql, t) == [(1, 0, "APPEND"), (2, 0, "OVERWRITE")]
    assert [r[0] for r in sql(f"SELECT schema_id FROM {db}.`t$schemas`")] == [0, 1]
    sql(f"INSERT INTO {t} VALUES (2, 'new')")
    assert sql(f"SELECT * FROM {t}") == [(2, "new")]


def test_replace_table_supports_an_incompatible_schema(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id BIGINT, data STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    sql(f"INSERT INTO {t} VALUES (1, 'old')")
    sql(f"REPLACE TABLE {t} (id STRING, amount INT) USING paimon TBLPROPERTIES ('bucket' = '-1')")
    props = _props(sql, t)
    assert props["bucket"] == "-1" and "primary-key" not in props  # the old options and keys are gone
    schema = spark.table(t).schema
    assert schema.fieldNames() == ["id", "amount"]
    assert schema["id"].dataType.typeName() == "string" and schema["amount"].dataType.typeName() == "integer"
    assert sql(f"SELECT * FROM {t}") == []
    assert sql(f"SELECT id, data FROM {t} VERSION AS OF 1") == [(1, "old")]
    sql(f"INSERT INTO {t} VALUES ('x', 7)")
    assert sql(f"SELECT * FROM {t}") == [("x", 7)]


def test_replace_of_a_missing_table_fails(spark: Any, db: str) -> None:
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException) as e:
        spark.sql(f"REPLACE TABLE {db}.missing (id BIGINT, data STRING) USING paimon "
                  "TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    assert "TABLE_OR_VIEW_NOT_FOUND" in str(e.value) or "not found" in str(e.value)


def test_create_or_replace_table_as_select_on_a_partitioned_table(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id BIGINT, data STRING, pt STRING) USING paimon PARTITIONED BY (pt) "
        "TBLPROPERTIES ('primary-key' = 'id,pt', 'bucket' = '2')")
    sql(f"INSERT INTO {t} VALUES (1, 'old', 'p0')")
    location = _location(sql, t)
    spark.createDataFrame([(2, "x2", "p1"), (3, "x3", "p2")], "id BIGINT, data STRING, pt STRING") \
        .createOrReplaceTempView("rtas_source")
    sql(f"CREATE OR REPLACE TABLE {t} USING paimon PARTITIONED BY (pt) "
        "TBLPROPERTIES ('primary-key' = 'id,pt', 'bucket' = '3') AS SELECT * FROM rtas_source")
    assert _location(sql, t) == location
    assert _props(sql, t)["bucket"] == "3"
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(2, "x2", "p1"), (3, "x3", "p2")]
    assert sql(f"SELECT * FROM {t} VERSION AS OF 1") == [(1, "old", "p0")]


def test_create_or_replace_table_as_select_with_an_incompatible_schema(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id BIGINT, data STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    sql(f"INSERT INTO {t} VALUES (1, 'old')")
    spark.createDataFrame([("2", 20), ("3", 30)], "id STRING, amount INT").createOrReplaceTempView("rtas_src2")
    sql(f"CREATE OR REPLACE TABLE {t} USING paimon TBLPROPERTIES ('bucket' = '-1') AS SELECT * FROM rtas_src2")
    assert _props(sql, t)["bucket"] == "-1"
    assert spark.table(t).schema.fieldNames() == ["id", "amount"]
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [("2", 20), ("3", 30)]
    assert sql(f"SELECT id, data FROM {t} VERSION AS OF 1") == [(1, "old")]


def test_rtas_with_an_incompatible_nested_type_reads_the_new_rows(spark: Any, sql: Any, db: str) -> None:
    src, t = f"{db}.src", f"{db}.t"
    sql(f"CREATE TABLE {src} (id BIGINT, payload DOUBLE, name_a STRING, name_b STRING) TBLPROPERTIES ('bucket' = '-1')")
    sql(f"INSERT INTO {src} VALUES (1, 1.1D, 'a', 'x'), (2, 2.2D, 'b', 'y')")
    sql(f"CREATE TABLE {t} USING paimon TBLPROPERTIES ('bucket' = '-1') AS SELECT * FROM {src}")
    sql(f"CREATE OR REPLACE TABLE {t} USING paimon TBLPROPERTIES ('bucket' = '-1') AS SELECT id, "
        f"named_struct('items_before', array(name_a), 'items_after', array(name_b)) AS payload, name_a, name_b "
        f"FROM {src}")
    assert spark.table(t).schema["payload"].dataType.typeName() == "struct"
    rows = sql(f"SELECT id, payload.items_before, payload.items_after, name_a, name_b FROM {t} "
               "WHERE name_a = 'a' LIMIT 1")
    assert rows == [(1, ["a"], ["x"], "a", "x")]


def test_self_referencing_rtas_reads_the_rows_before_the_replace(sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT, data STRING) USING paimon TBLPROPERTIES ('bucket' = '-1')")
    sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    sql(f"CREATE OR REPLACE TABLE {t} TBLPROPERTIES ('bucket' = '-1') AS SELECT * FROM {t}")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "a"), (2, "b")]
    q2 = f"{db}.q2"
    sql(f"CREATE TABLE {q2} (id INT, dt STRING) USING paimon")
    sql(f"INSERT INTO {q2} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    sql(f"REPLACE TABLE {q2} AS SELECT * FROM {q2} WHERE dt = 'a'")
    assert sql(f"SELECT * FROM {q2}") == [(1, "a")]
    assert sql(f"SELECT * FROM {q2} VERSION AS OF 1 ORDER BY id") == [(1, "a"), (2, "b"), (3, "c")]


def test_self_referencing_rtas_restating_the_partitioning_replaces_in_place(sql: Any, db: str) -> None:
    q = f"{db}.q"
    sql(f"CREATE TABLE {q} (id INT, dt STRING) USING paimon PARTITIONED BY (dt)")
    sql(f"INSERT INTO {q} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    sql(f"REPLACE TABLE {q} PARTITIONED BY (dt) AS SELECT * FROM {q} WHERE dt = 'a'")
    assert sql(f"SELECT * FROM {q}") == [(1, "a")]


def test_self_referencing_rtas_changing_the_partitioning_is_refused(spark: Any, sql: Any, db: str) -> None:
    q = f"{db}.q"
    sql(f"CREATE TABLE {q} (id INT, dt STRING) USING paimon PARTITIONED BY (dt)")
    sql(f"INSERT INTO {q} VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    with pytest.raises(Exception) as e:
        spark.sql(f"REPLACE TABLE {q} AS SELECT * FROM {q} WHERE dt = 'a'")
    assert "Cannot replace table" in str(e.value)
    assert "q" in [r[1] for r in sql(f"SHOW TABLES IN {db}")]
    assert sql(f"SELECT * FROM {q} ORDER BY id") == [(1, "a"), (2, "b"), (3, "c")]
    assert len(_snapshots(sql, q)) == 1  # nothing committed


def test_replace_changing_the_partitioning_drops_and_creates(spark: Any, sql: Any, db: str) -> None:
    """Paimon's catalog cannot replace partition keys in place: Spark's drop and create (history lost)."""
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT, dt STRING) USING paimon PARTITIONED BY (dt)")
    sql(f"INSERT INTO {t} VALUES (1, 'a')")
    sql(f"REPLACE TABLE {t} (id INT, dt STRING) USING paimon")
    assert spark.table(t).rdd.isEmpty()
    assert "PARTITIONED BY" not in sql(f"SHOW CREATE TABLE {t}")[0][0]
    assert _snapshots(sql, t) == []
    assert [r[0] for r in sql(f"SELECT schema_id FROM {db}.`t$schemas`")] == [0]


def test_rtas_with_time_travel_reads_the_given_snapshot(sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT, data STRING) USING paimon TBLPROPERTIES ('bucket' = '-1')")
    sql(f"INSERT INTO {t} VALUES (1, 'v1')")
    sql(f"INSERT INTO {t} VALUES (2, 'v2')")
    sql(f"CREATE OR REPLACE TABLE {t} TBLPROPERTIES ('bucket' = '-1') AS SELECT * FROM {t} VERSION AS OF 1")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "v1")]


def test_create_or_replace_of_a_missing_table_creates_it(sql: Any, db: str) -> None:
    """SnapshotOperationTest: CREATE OR REPLACE, then REPLACE, of a table read from another."""
    src, t = f"{db}.src", f"{db}.rtas"
    sql(f"CREATE TABLE {src} (id INT, v STRING)")
    sql(f"INSERT INTO {src} VALUES (1, 'a'), (2, 'b')")
    sql(f"CREATE OR REPLACE TABLE {t} AS SELECT * FROM {src}")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(1, "a"), (2, "b")]
    sql(f"CREATE OR REPLACE TABLE {t} AS SELECT * FROM {src}")
    sql(f"REPLACE TABLE {t} AS SELECT * FROM {src} WHERE id = 2")
    assert sql(f"SELECT * FROM {t}") == [(2, "b")]
    assert sql(f"SELECT * FROM {t} VERSION AS OF 1 ORDER BY id") == [(1, "a"), (2, "b")]


def test_a_failed_rtas_leaves_the_table_as_it_was(spark: Any, sql: Any, db: str) -> None:
    """Beyond Paimon (which leaves the table truncated with the new schema): the query fails, the
    truncation and the new schema are undone."""
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT, dt STRING)")
    sql(f"INSERT INTO {t} VALUES (1, 'a')")
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO|Division by zero"):
        spark.sql(f"REPLACE TABLE {t} AS SELECT id, 1 / 0 AS dt FROM {t}")
    assert sql(f"SELECT * FROM {t}") == [(1, "a")]
    assert spark.table(t).schema.fieldNames() == ["id", "dt"]
    assert _snapshots(sql, t) == [(1, 0, "APPEND")]
    assert [r[0] for r in sql(f"SELECT schema_id FROM {db}.`t$schemas`")] == [0]


def test_replace_keeps_tags_and_branches(sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT, v STRING)")
    sql(f"INSERT INTO {t} VALUES (1, 'a')")
    sql(f"CALL sys.create_tag(table => '{t}', tag => 'before', snapshot => 1)")
    sql(f"CALL sys.create_branch(table => '{t}', branch => 'b', tag => 'before')")
    sql(f"REPLACE TABLE {t} (k BIGINT)")
    assert sql(f"SELECT * FROM {t}") == []
    assert sql(f"SELECT * FROM {t} VERSION AS OF 'before'") == [(1, "a")]
    assert sql(f"SELECT * FROM {db}.`t$branch_b`") == [(1, "a")]


def test_replace_of_a_branch_is_refused(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT)")
    sql(f"INSERT INTO {t} VALUES (1)")
    sql(f"CALL sys.create_branch(table => '{t}', branch => 'b')")
    with pytest.raises(Exception, match="branch"):
        spark.sql(f"REPLACE TABLE {db}.`t$branch_b` (k BIGINT)")
    assert sql(f"SELECT * FROM {t}") == [(1,)]


def test_save_as_table_overwrite_keeps_the_table_definition(spark: Any, sql: Any, db: str) -> None:
    """Paimon's PaimonReplaceTableAsSelectStrategy: V1 saveAsTable in overwrite mode is an INSERT
    OVERWRITE (primary key, options and partitioning kept), not a replace."""
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT, v STRING) PARTITIONED BY (v) TBLPROPERTIES ('primary-key' = 'id,v', 'bucket' = '2')")
    sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.createDataFrame([(3, "c")], "id INT, v STRING").write.mode("overwrite").saveAsTable(t)
    assert sql(f"SELECT * FROM {t}") == [(3, "c")]
    assert _props(sql, t) == {"bucket": "2", "primary-key": "id,v"}
    assert _snapshots(sql, t) == [(1, 0, "APPEND"), (2, 0, "OVERWRITE")]


def test_dataframe_writer_v2_create_or_replace_and_replace(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.t"
    df = spark.createDataFrame([(1, "a")], "id INT, v STRING")
    df.writeTo(t).createOrReplace()
    spark.createDataFrame([(2, 5)], "id INT, n INT").writeTo(t).replace()
    assert spark.table(t).schema.fieldNames() == ["id", "n"]
    assert sql(f"SELECT * FROM {t}") == [(2, 5)]
    assert sql(f"SELECT * FROM {t} VERSION AS OF 1") == [(1, "a")]


def test_a_refused_redefinition_leaves_the_table(spark: Any, sql: Any, db: str) -> None:
    """A replace that would drop and create the table checks the new definition first."""
    t = f"{db}.t"
    sql(f"CREATE TABLE {t} (id INT, dt STRING) PARTITIONED BY (dt)")
    sql(f"INSERT INTO {t} VALUES (1, 'a')")
    with pytest.raises(Exception, match="cannot be created USING parquet"):
        spark.sql(f"REPLACE TABLE {t} (id INT, dt STRING) USING parquet")
    with pytest.raises(Exception, match="bucket"):
        spark.sql(f"REPLACE TABLE {t} (id INT, dt STRING) TBLPROPERTIES ('bucket' = 'x')")
    assert sql(f"SELECT * FROM {t}") == [(1, "a")]
    assert _snapshots(sql, t) == [(1, 0, "APPEND")]
