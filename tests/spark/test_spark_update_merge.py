"""UPDATE, MERGE INTO and DELETE (any condition) of primary-key tables through Spark SQL: delta
writes keyed by the primary key (+U, +I, -D rows; no file rewritten), one snapshot per statement,
Paimon's refusals (cases after Paimon's UpdateTableTestBase, MergeIntoTableTestBase and
DeleteFromTableTestBase for primary-key tables)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql.catalog.catalog import Catalog


def _snapshots(warehouse: str, table: str) -> list[tuple[int, str]]:
    t = Catalog(warehouse).get_table(table)
    sm = t.store.snapshots
    return [(i, sm.snapshot(i).commit_kind) for i in sm.snapshot_ids()]


def _data_files(warehouse: str, table: str) -> set[str]:
    db, name = table.split(".")
    root = os.path.join(warehouse, f"{db}.db", name)
    return {f for _, _, fs in os.walk(root) for f in fs if f.startswith("data-")}


def test_update_primary_key_table(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id INT, v STRING, n INT) TBLPROPERTIES ('primary-key'='id', 'bucket'='2')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)")
    files = _data_files(spark_warehouse, f"{db}.t")
    spark.sql(f"UPDATE {db}.t SET v = 'x', n = n + 1 WHERE id % 2 = 1")
    assert sorted(sql(f"SELECT * FROM {db}.t")) == [(1, "x", 11), (2, "b", 20), (3, "x", 31)]
    # a delta write: the old files stay, one APPEND snapshot
    assert files <= _data_files(spark_warehouse, f"{db}.t")
    assert _snapshots(spark_warehouse, f"{db}.t") == [(1, "APPEND"), (2, "APPEND")]
    # no condition: every row; a condition matching nothing commits nothing
    spark.sql(f"UPDATE {db}.t SET n = 0")
    assert sorted(sql(f"SELECT n FROM {db}.t")) == [(0,), (0,), (0,)]
    spark.sql(f"UPDATE {db}.t SET n = 5 WHERE id > 100")
    assert len(_snapshots(spark_warehouse, f"{db}.t")) == 3
    # a subquery in the condition
    spark.sql(f"UPDATE {db}.t SET v = 'q' WHERE id IN (SELECT max(id) FROM {db}.t)")
    assert sorted(sql(f"SELECT id, v FROM {db}.t")) == [(1, "x"), (2, "b"), (3, "q")]
    assert sorted(sql(f"SELECT id, v FROM {db}.t VERSION AS OF 1")) == [(1, "a"), (2, "b"), (3, "c")]


def test_update_partitioned_and_dynamic_bucket_tables(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.p (id INT, v STRING, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key'='id,dt', 'bucket'='2')")
    spark.sql(f"INSERT INTO {db}.p VALUES (1, 'a', 'd1'), (1, 'b', 'd2'), (2, 'c', 'd2')")
    spark.sql(f"UPDATE {db}.p SET v = upper(v) WHERE dt = 'd2'")
    assert sorted(sql(f"SELECT * FROM {db}.p")) == [(1, "B", "d2"), (1, "a", "d1"), (2, "C", "d2")]
    spark.sql(f"CREATE TABLE {db}.d (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='-1')")
    spark.sql(f"INSERT INTO {db}.d SELECT id, 'v' FROM range(20)")
    spark.sql(f"UPDATE {db}.d SET v = concat(v, cast(id AS STRING)) WHERE id < 3")
    spark.sql(f"DELETE FROM {db}.d WHERE id % 5 = 4")
    rows = sorted(sql(f"SELECT * FROM {db}.d"))
    assert rows[:3] == [(0, "v0"), (1, "v1"), (2, "v2")]
    assert [r[0] for r in rows] == [i for i in range(20) if i % 5 != 4]


def test_update_refusals_write_nothing(spark: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id INT, dt STRING, v INT) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key'='id,dt', 'bucket'='1')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a', 1)")
    with pytest.raises(Exception, match=r"Can't update the primary key column\."):
        spark.sql(f"UPDATE {db}.t SET id = 2 WHERE v = 1")
    with pytest.raises(Exception, match=r"Can't update the primary key column\."):
        spark.sql(f"UPDATE {db}.t SET dt = 'b'")
    for engine, extra in (("aggregation", ", 'fields.v.aggregate-function'='sum'"), ("first-row", "")):
        spark.sql(f"CREATE TABLE {db}.`{engine}` (id INT, v INT) "
                  f"TBLPROPERTIES ('primary-key'='id', 'bucket'='1', 'merge-engine'='{engine}'{extra})")
        spark.sql(f"INSERT INTO {db}.`{engine}` VALUES (1, 1)")
        before = _snapshots(spark_warehouse, f"{db}.{engine}")
        with pytest.raises(Exception, match=f"merge engine {engine} can not support Update, currently only "
                                            "deduplicate, partial-update can support Update"):
            spark.sql(f"UPDATE {db}.`{engine}` SET v = 2")
        with pytest.raises(Exception, match=f"merge engine {engine} can not support MergeInto"):
            spark.sql(f"MERGE INTO {db}.`{engine}` t USING (SELECT 1 AS id, 5 AS v) s ON t.id = s.id "
                      "WHEN MATCHED THEN UPDATE SET v = s.v")
        assert _snapshots(spark_warehouse, f"{db}.{engine}") == before
    assert _snapshots(spark_warehouse, f"{db}.t") == [(1, "APPEND")]


def test_delete_with_any_condition_writes_full_delete_rows(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id INT, v STRING, n INT) "
              "TBLPROPERTIES ('primary-key'='id', 'bucket'='2', 'changelog-producer'='input')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)")
    spark.sql(f"DELETE FROM {db}.t WHERE n + 0 = 20")  # arithmetic: not pushed down
    spark.sql(f"DELETE FROM {db}.t WHERE id IN (SELECT id + 2 FROM {db}.t WHERE id = 1)")  # subquery
    spark.sql(f"DELETE FROM {db}.t t WHERE EXISTS (SELECT 1 FROM {db}.t u WHERE u.id = t.id AND u.v = 'd')")
    assert sql(f"SELECT * FROM {db}.t") == [(1, "a", 10)]
    # Paimon writes deleted rows in full: the input changelog has their values
    changes = sorted(sql(f"SELECT * FROM paimon_incremental_query('{db}.t', 1, 4)"))
    assert changes == [(2, "b", 20), (3, "c", 30), (4, "d", 40)]
    audit = sorted(sql(f"SELECT * FROM paimon_incremental_query('`{db}`.`t$audit_log`', 1, 4)"))
    assert audit == [("-D", 2, "b", 20), ("-D", 3, "c", 30), ("-D", 4, "d", 40)]


def test_merge_into_every_clause(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (a INT, b INT, c STRING) TBLPROPERTIES ('primary-key'='a', 'bucket'='2')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 10, 'c1'), (2, 20, 'c2'), (3, 30, 'c3'), (4, 40, 'c4'), (5, 50, 'c5')")
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW src AS SELECT * FROM VALUES "
              "(1, 100, 'c11'), (3, 300, 'c33'), (5, 500, 'c55'), (7, 700, 'c77'), (9, 900, 'c99') AS src(a, b, c)")
    spark.sql(f"""MERGE INTO {db}.t USING src ON t.a = src.a
        WHEN MATCHED AND t.a = 5 THEN UPDATE SET b = src.b + t.b
        WHEN MATCHED AND src.c > 'c2' THEN UPDATE SET *
        WHEN MATCHED THEN DELETE
        WHEN NOT MATCHED AND src.c != 'c99' THEN INSERT *
        WHEN NOT MATCHED BY SOURCE AND t.a = 2 THEN UPDATE SET b = 0
        WHEN NOT MATCHED BY SOURCE THEN DELETE""")
    assert sorted(sql(f"SELECT * FROM {db}.t")) == [(2, 0, "c2"), (3, 300, "c33"), (5, 550, "c5"), (7, 700, "c77")]
    assert _snapshots(spark_warehouse, f"{db}.t")[-1] == (2, "APPEND")
    # the target as its own source, and a subquery source
    spark.sql(f"MERGE INTO {db}.t USING {db}.t AS s ON t.a = s.a WHEN MATCHED THEN UPDATE SET b = s.b + 1")
    spark.sql(f"MERGE INTO {db}.t USING (SELECT a + 100 AS a, b, c FROM {db}.t WHERE a < 4) s ON t.a = s.a "
              "WHEN NOT MATCHED THEN INSERT (a, b, c) VALUES (s.a, s.b, 'new')")
    assert sorted(sql(f"SELECT * FROM {db}.t")) == [
        (2, 1, "c2"), (3, 301, "c33"), (5, 551, "c5"), (7, 701, "c77"), (102, 1, "new"), (103, 301, "new")]


def test_merge_into_refusals_write_nothing(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (a INT, b INT) TBLPROPERTIES ('primary-key'='a', 'bucket'='1')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 1), (2, 2)")
    # a target row matched by two source rows
    with pytest.raises(Exception, match="(?i)MERGE_CARDINALITY_VIOLATION|more than one|multiple"):
        spark.sql(f"MERGE INTO {db}.t USING (SELECT 1 AS a, 5 AS b UNION ALL SELECT 1, 6) s ON t.a = s.a "
                  "WHEN MATCHED THEN UPDATE SET b = s.b")
    # a key assigned while the ON condition does not equate it
    with pytest.raises(Exception, match=r"Can't update the primary key column in update clause\."):
        spark.sql(f"MERGE INTO {db}.t USING (SELECT 1 AS a, 1 AS b) s ON t.b = s.b WHEN MATCHED THEN UPDATE SET *")
    assert _snapshots(spark_warehouse, f"{db}.t") == [(1, "APPEND")]
    # the ON condition equates the key: UPDATE SET * is allowed (Paimon allows it)
    spark.sql(f"MERGE INTO {db}.t USING (SELECT 1 AS a, 9 AS b) s ON t.a = s.a WHEN MATCHED THEN UPDATE SET *")
    assert sorted(sql(f"SELECT * FROM {db}.t")) == [(1, 9), (2, 2)]


def test_partial_update_table(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id INT, a STRING, b STRING) "
              "TBLPROPERTIES ('primary-key'='id', 'bucket'='1', 'merge-engine'='partial-update')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a1', NULL), (2, NULL, 'b2')")
    spark.sql(f"UPDATE {db}.t SET b = 'b1' WHERE id = 1")
    spark.sql(f"MERGE INTO {db}.t USING (SELECT 2 AS id, 'a2' AS a) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET a = s.a WHEN NOT MATCHED THEN INSERT (id, a, b) VALUES (s.id, s.a, NULL)")
    assert sorted(sql(f"SELECT * FROM {db}.t")) == [(1, "a1", "b1"), (2, "a2", "b2")]
    # Paimon's rule: a partial-update table takes deletes only with remove-record-on-delete
    before = _snapshots(spark_warehouse, f"{db}.t")
    with pytest.raises(Exception, match="doesn't support batch delete by default"):
        spark.sql(f"DELETE FROM {db}.t WHERE id % 2 = 0")
    assert _snapshots(spark_warehouse, f"{db}.t") == before
    assert len(sql(f"SELECT * FROM {db}.t")) == 2


def test_pypaimon_reads_the_result(spark: Any, sql: Any, db: str, spark_warehouse: str, tmp_path: Path) -> None:
    from tests.helpers.interop_util import PypaimonIO, ensure_pypaimon_python

    spark.sql(f"CREATE TABLE {db}.t (id INT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='2')")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"MERGE INTO {db}.t USING (SELECT 2 AS id, 'B' AS v UNION ALL SELECT 4, 'd') s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT * "
              "WHEN NOT MATCHED BY SOURCE AND t.id = 3 THEN DELETE")
    want = [(1, "a"), (2, "B"), (4, "d")]
    assert sorted(sql(f"SELECT * FROM {db}.t")) == want
    python, why = ensure_pypaimon_python()
    if python is None:
        pytest.skip(why)
    scratch = tmp_path / "ipc"
    scratch.mkdir()
    got = PypaimonIO(python, Path(spark_warehouse), scratch).read(f"{db}.t")
    assert sorted(zip(got.column("id").to_pylist(), got.column("v").to_pylist())) == want


# -- a differential test: random statements vs a model -----------------------------------------------

_KEYS = st.integers(0, 11)
_STATEMENTS = st.one_of(
    st.tuples(st.just("update"), st.integers(2, 4), st.integers(0, 3), st.integers(-5, 5)),
    st.tuples(st.just("delete"), st.integers(2, 4), st.integers(0, 3), st.just(0)),
    st.tuples(st.just("merge"), st.frozensets(_KEYS, max_size=6), st.sampled_from(["update", "delete"]),
              st.integers(-5, 5)),
)


def _apply(model: dict[int, int], stmt: tuple[Any, ...]) -> None:
    kind, a, b, c = stmt
    if kind == "update":
        for k in model:
            if k % a == b:
                model[k] = model[k] + c
    elif kind == "delete":
        for k in [k for k in model if k % a == b]:
            del model[k]
    else:
        for k in sorted(a):
            if k in model:
                if b == "update":
                    model[k] = model[k] * 2 + c
                else:
                    del model[k]
            else:
                model[k] = c


def _statement(table: str, stmt: tuple[Any, ...]) -> str:
    kind, a, b, c = stmt
    if kind == "update":
        return f"UPDATE {table} SET v = v + ({c}) WHERE id % {a} = {b}"
    if kind == "delete":
        return f"DELETE FROM {table} WHERE id % {a} = {b}"
    keys = sorted(a)
    src = " UNION ALL ".join(f"SELECT {k} AS id, {c} AS v" for k in keys) or "SELECT 0 AS id, 0 AS v WHERE false"
    matched = "UPDATE SET v = t.v * 2 + s.v" if b == "update" else "DELETE"
    return (f"MERGE INTO {table} t USING ({src}) s ON t.id = s.id "
            f"WHEN MATCHED THEN {matched} WHEN NOT MATCHED THEN INSERT *")


@pytest.mark.parametrize("props", [
    "'bucket'='2'",
    "'bucket'='-1'",
    "'bucket'='1', 'merge-engine'='partial-update', 'partial-update.remove-record-on-delete'='true'",
])
@settings(max_examples=int(os.environ.get("PAIMON_MODEL_EXAMPLES", "3")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(statements=st.lists(_STATEMENTS, min_size=1, max_size=4))
def test_random_statements_match_a_model(spark: Any, props: str, statements: list[tuple[Any, ...]]) -> None:
    import uuid

    table = f"default.m_{uuid.uuid4().hex[:8]}"
    spark.sql(f"CREATE TABLE {table} (id INT, v INT) TBLPROPERTIES ('primary-key'='id', {props})")
    try:
        model = {k: k * 10 for k in range(8)}
        spark.sql(f"INSERT INTO {table} VALUES " + ", ".join(f"({k}, {v})" for k, v in model.items()))
        for stmt in statements:
            spark.sql(_statement(table, stmt))
            _apply(model, stmt)
            got = sorted(tuple(r) for r in spark.sql(f"SELECT id, v FROM {table}").collect())
            assert got == sorted(model.items()), (stmt, statements)
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}")


def test_failed_merge_commits_nothing_and_leaves_no_files(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='2')")
    spark.sql(f"INSERT INTO {db}.t SELECT id, 'a' FROM range(0, 2000, 1, 2)")
    before = (_snapshots(spark_warehouse, f"{db}.t"), _data_files(spark_warehouse, f"{db}.t"))
    # one source row fails while the tasks of the statement are writing the others
    with pytest.raises(Exception, match="boom"):
        spark.sql(f"""MERGE INTO {db}.t t USING (
                SELECT IF(id = 2999, CAST(raise_error('boom') AS BIGINT), id) AS id, 'b' AS v FROM range(0, 3000, 1, 2)
            ) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *""")
    assert (_snapshots(spark_warehouse, f"{db}.t"), _data_files(spark_warehouse, f"{db}.t")) == before
    assert sql(f"SELECT count(*), min(v), max(v) FROM {db}.t") == [(2000, "a", "a")]
