"""UPDATE, MERGE INTO and DELETE of append tables through Spark's row-level operations:
copy-on-write of the touched files only, or deletion vectors (``deletion-vectors.enabled``);
one snapshot per statement; concurrent writers; failed statements leave nothing behind; a
differential test against a reference computed on an in-memory copy (cases after Paimon's
UpdateTableTestBase, MergeIntoTableTestBase and DeleteFromTableTestBase, append variants)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs
from pyspark.sql import Row

from paimon_sql import Catalog

pytestmark = pytest.mark.spark


def _kinds(wh: str, table: str) -> list[str]:
    t = Catalog(wh).get_table(table)
    return [str(t.store.snapshots.snapshot(i).commit_kind) for i in t.snapshot_ids()]


def _files(sql: Any, table: str) -> set[str]:
    return {r[0] for r in sql(f"SELECT file_path FROM `{table}$files`")}


def _file_ids(sql: Any, table: str) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for path, i in sql(f"SELECT __paimon_file_path, id FROM {table}"):
        out.setdefault(path, set()).add(i)
    return out


def _referenced(wh: str, table: str) -> set[str]:
    """The data files some snapshot of the table has."""
    t = Catalog(wh).get_table(table)
    st = t.store
    return {st.entry_path(e) for i in t.snapshot_ids() for e in st.manifests.live_entries(st.snapshots.snapshot(i))}


def _on_disk(wh: str, db: str, table: str) -> set[str]:
    root = Path(wh.removeprefix("file:")) / f"{db}.db" / table
    return {str(p) for p in root.rglob("data-*") if ".spark-writes" not in str(p)}


def test_copy_on_write_rewrites_touched_files_only(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (id INT, name STRING, p INT) PARTITIONED BY (p)")
    sql("INSERT INTO T VALUES (1, 'a', 1), (2, 'b', 1), (3, 'c', 2)")
    sql("INSERT INTO T VALUES (4, 'd', 2), (5, 'e', 3)")
    before = _file_ids(sql, "T")
    sql("UPDATE T SET name = concat(name, '!') WHERE id % 2 = 1")  # not pushable: arithmetic
    assert sorted(sql("SELECT * FROM T")) == [(1, "a!", 1), (2, "b", 1), (3, "c!", 2), (4, "d", 2), (5, "e!", 3)]
    after = _files(sql, "T")
    untouched = {f for f, ids in before.items() if not any(i % 2 == 1 for i in ids)}
    assert untouched and untouched <= after  # files without a matching row are not rewritten
    assert not ({f for f in before if f not in untouched} & after)
    assert _kinds(spark_warehouse, f"{db}.T") == ["APPEND", "APPEND", "OVERWRITE"]
    # DELETE with a subquery, and with a function
    sql("DELETE FROM T WHERE id IN (SELECT id FROM T WHERE name LIKE '%!')")
    assert sorted(sql("SELECT id FROM T")) == [(2,), (4,)]
    sql("DELETE FROM T WHERE upper(name) = 'D'")
    assert sql("SELECT id FROM T") == [(2,)]
    # nothing matches: no commit
    n = len(_kinds(spark_warehouse, f"{db}.T"))
    sql("UPDATE T SET name = 'x' WHERE id % 100 = 99")
    assert len(_kinds(spark_warehouse, f"{db}.T")) == n
    # DELETE without condition: the table is truncated (Paimon's truncate)
    sql("DELETE FROM T")
    assert sql("SELECT * FROM T") == []
    assert _on_disk(spark_warehouse, db, "T") <= _referenced(spark_warehouse, f"{db}.T")


def test_merge_forms(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """Paimon's MergeIntoAppendTableTest forms: several clauses, NOT MATCHED BY SOURCE, the target
    as its own source, views and subqueries, a doubly matched target row, nested assignments."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE target (a INT, b INT, c STRING)")
    sql("INSERT INTO target VALUES (1, 10, 'c1'), (2, 20, 'c2'), (3, 30, 'c3'), (4, 40, 'c4'), (5, 50, 'c5')")
    sql("CREATE TABLE source (a INT, b INT, c STRING)")
    sql("INSERT INTO source VALUES (1, 100, 'c11'), (3, 300, 'c33'), (5, 500, 'c55'), (7, 700, 'c77'), (9, 900, 'c99')")
    sql("""MERGE INTO target USING source ON target.a = source.a
        WHEN MATCHED AND target.a = 5 THEN UPDATE SET b = source.b + target.b
        WHEN MATCHED AND source.c > 'c2' THEN UPDATE SET *
        WHEN MATCHED THEN DELETE
        WHEN NOT MATCHED AND c > 'c9' THEN INSERT (a, b, c) VALUES (a, b * 1.1, c)
        WHEN NOT MATCHED THEN INSERT *""")
    assert sorted(sql("SELECT * FROM target")) == [
        (2, 20, "c2"), (3, 300, "c33"), (4, 40, "c4"), (5, 550, "c5"), (7, 700, "c77"), (9, 990, "c99")]
    assert _kinds(spark_warehouse, f"{db}.target")[-1] == "OVERWRITE"
    # NOT MATCHED BY SOURCE, a subquery source
    sql("""MERGE INTO target t USING (SELECT a, b FROM source WHERE a < 5) s ON t.a = s.a
        WHEN MATCHED THEN UPDATE SET t.b = s.b
        WHEN NOT MATCHED BY SOURCE AND t.a > 7 THEN DELETE
        WHEN NOT MATCHED BY SOURCE THEN UPDATE SET t.c = 'gone'""")
    assert sorted(sql("SELECT * FROM target")) == [
        (2, 20, "gone"), (3, 300, "c33"), (4, 40, "gone"), (5, 550, "gone"), (7, 700, "gone")]
    # the target as its own source, through a view
    sql("CREATE TEMPORARY VIEW tv AS SELECT a, b FROM target")
    sql("MERGE INTO target USING tv ON target.a = tv.a WHEN MATCHED THEN UPDATE SET b = tv.b + 1")
    assert sorted(sql("SELECT a, b FROM target")) == [(2, 21), (3, 301), (4, 41), (5, 551), (7, 701)]
    # a target row matched by two source rows: Spark's error, nothing written
    n = len(_kinds(spark_warehouse, f"{db}.target"))
    sql("INSERT INTO source VALUES (3, 3, 'dup')")
    with pytest.raises(Exception, match="MERGE_CARDINALITY_VIOLATION"):
        sql("MERGE INTO target USING source ON target.a = source.a WHEN MATCHED THEN UPDATE SET b = source.b")
    assert len(_kinds(spark_warehouse, f"{db}.target")) == n
    assert _on_disk(spark_warehouse, db, "target") <= _referenced(spark_warehouse, f"{db}.target")
    # nested assignments
    sql("CREATE TABLE n (id INT, s STRUCT<c1: INT, c2: STRING>)")
    sql("INSERT INTO n VALUES (1, struct(1, 'a')), (2, struct(2, 'b'))")
    sql("UPDATE n SET s.c2 = 'updated' WHERE id % 2 = 1")
    assert sorted(sql("SELECT * FROM n")) == [(1, Row(c1=1, c2="updated")), (2, Row(c1=2, c2="b"))]
    sql("MERGE INTO n USING (SELECT 2 AS id) src ON n.id = src.id WHEN MATCHED THEN UPDATE SET s.c1 = 20")
    assert sorted(sql("SELECT * FROM n")) == [(1, Row(c1=1, c2="updated")), (2, Row(c1=20, c2="b"))]


def test_deletion_vectors(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """With deletion vectors no data file is rewritten: matched rows are marked, new rows added."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (id INT, name STRING) TBLPROPERTIES ('deletion-vectors.enabled' = 'true')")
    sql("INSERT INTO T VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    sql("INSERT INTO T VALUES (4, 'd'), (5, 'e')")
    files = _files(sql, "T")
    sql("UPDATE T SET name = 'z' WHERE id % 2 = 0")
    sql("DELETE FROM T WHERE id * 2 = 6")
    sql("CREATE TABLE S (id INT, name STRING)")
    sql("INSERT INTO S VALUES (1, 'A'), (9, 'N')")
    sql("MERGE INTO T USING S ON T.id = S.id WHEN MATCHED THEN UPDATE SET name = S.name WHEN NOT MATCHED THEN INSERT *")
    assert sorted(sql("SELECT * FROM T")) == [(1, "A"), (2, "z"), (4, "z"), (5, "e"), (9, "N")]
    assert files <= _files(sql, "T")  # every original file is still live
    assert _kinds(spark_warehouse, f"{db}.T") == ["APPEND", "APPEND", "OVERWRITE", "OVERWRITE", "OVERWRITE"]
    assert sql("SELECT count(*) FROM T WHERE __paimon_row_index IS NOT NULL") == [(5,)]


def test_deletion_vector_scans_push_the_condition(spark: Any, sql: Any, db: str) -> None:
    """A deletion-vector statement's scan takes Spark's filters (partitions, files and rows are
    skipped); row positions still count every row of a file, so the right rows are marked."""
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (id INT, v INT, p INT) PARTITIONED BY (p) TBLPROPERTIES ('deletion-vectors.enabled' = 'true')")
    sql("INSERT INTO T VALUES (1, 1, 1), (2, 2, 1), (3, 3, 1), (4, 4, 1), (5, 5, 2), (6, 6, 2)")
    plan = sql("EXPLAIN UPDATE T SET v = 0 WHERE p = 1 AND id * 2 = 6")[0][0]
    assert "Paimon delta UPDATE" in plan and "PushedFilters: [" in plan and "EqualTo(p,1)" in plan, plan
    sql("DELETE FROM T WHERE p = 1 AND id * 2 = 6")
    sql("UPDATE T SET v = 0 WHERE p = 1 AND id > 3")
    assert sorted(sql("SELECT * FROM T")) == [(1, 1, 1), (2, 2, 1), (4, 0, 1), (5, 5, 2), (6, 6, 2)]
    assert sorted(sql("SELECT __paimon_row_index, id FROM T WHERE p = 1")) == [(0, 1), (0, 4), (1, 2)]
    # a copy-on-write table's scan pushes nothing (whole files are rewritten)
    sql("CREATE TABLE C (id INT, v INT)")
    sql("INSERT INTO C VALUES (1, 1), (2, 2)")
    cow_scan = sql("EXPLAIN UPDATE C SET v = 0 WHERE id = 2")[0][0].split("Paimon cow UPDATE")[1].split("\n")[0]
    assert "PushedFilters" not in cow_scan
    sql("UPDATE C SET v = 0 WHERE id = 2")
    assert sorted(sql("SELECT * FROM C")) == [(1, 1), (2, 0)]


def _bump_once(wh: str, table: str, marker: str, action: str) -> Any:
    """A UDF adding 1 that, the first time it runs (in a Python worker, while the statement is
    writing), changes the table through the engine: ``action`` = insert | delete."""

    def bump(v: int) -> int:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return v + 1
        t = Catalog(wh).get_table(table)
        if action == "insert":
            t.write(pa.table({"id": pa.array([100], pa.int32()), "v": pa.array([0], pa.int32())}))
        else:
            t.delete("id = 1")
        return v + 1

    return bump


@pytest.mark.parametrize("dv", ["false", "true"])
def test_concurrent_commits(spark: Any, sql: Any, db: str, spark_warehouse: str, tmp_path: Path, dv: str) -> None:
    """A concurrent INSERT between the statement's plan and commit is kept; a concurrent commit that
    removes a file the statement read fails the statement, which then leaves no file."""
    spark.sql(f"USE paimon.{db}")
    sql(f"CREATE TABLE T (id INT, v INT) TBLPROPERTIES ('deletion-vectors.enabled' = '{dv}')")
    sql("INSERT INTO T VALUES (1, 1), (2, 2), (3, 3)")
    from pyspark.sql.types import IntegerType

    spark.udf.register("bump_ins", _bump_once(spark_warehouse, f"{db}.T", str(tmp_path / "m1"), "insert"),
                       IntegerType())
    sql("UPDATE T SET v = bump_ins(v) WHERE id % 2 = 1")
    assert sorted(sql("SELECT * FROM T")) == [(1, 2), (2, 2), (3, 4), (100, 0)]
    if dv == "true":
        return  # a concurrent delete of a file rewrites it: covered without vectors
    spark.udf.register("bump_del", _bump_once(spark_warehouse, f"{db}.T", str(tmp_path / "m2"), "delete"),
                       IntegerType())
    with pytest.raises(Exception, match="(?i)conflict"):
        sql("UPDATE T SET v = bump_del(v) WHERE id % 2 = 1")
    assert sorted(sql("SELECT * FROM T")) == [(2, 2), (3, 4), (100, 0)]  # the concurrent delete only
    assert _on_disk(spark_warehouse, db, "T") <= _referenced(spark_warehouse, f"{db}.T")


def test_failed_statement_commits_nothing(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    spark.sql(f"USE paimon.{db}")
    sql("CREATE TABLE T (id INT, v INT)")
    sql("INSERT INTO T VALUES (1, 1), (2, 2), (3, 3)")
    with pytest.raises(Exception, match="(?i)v < 3|assert"):
        sql("UPDATE T SET v = assert_true(v < 3) WHERE id % 2 = 1")
    assert sorted(sql("SELECT * FROM T")) == [(1, 1), (2, 2), (3, 3)]
    assert _kinds(spark_warehouse, f"{db}.T") == ["APPEND"]
    assert _on_disk(spark_warehouse, db, "T") <= _referenced(spark_warehouse, f"{db}.T")


# -- differential test ------------------------------------------------------------------------------

_stmt = hs.one_of(
    hs.tuples(hs.just("update"), hs.integers(2, 4), hs.integers(0, 3), hs.integers(1, 9)),
    hs.tuples(hs.just("delete"), hs.integers(2, 4), hs.integers(0, 3), hs.just(0)),
    hs.tuples(hs.just("merge"), hs.integers(0, 30), hs.integers(1, 6), hs.integers(0, 1)),
)


def _apply(ref: dict[int, tuple[int, int]], stmt: tuple[str, int, int, int]) -> tuple[str, dict[int, tuple[int, int]]]:
    """The statement's SQL and the reference table after it (id -> (v, p))."""
    kind, a, b, c = stmt
    out = dict(ref)
    if kind == "update":
        for i, (v, p) in ref.items():
            if i % a == b % a:
                out[i] = (v + c, p)
        return f"UPDATE T SET v = v + {c} WHERE id % {a} = {b % a}", out
    if kind == "delete":
        for i in ref:
            if i % a == b % a:
                del out[i]
        return f"DELETE FROM T WHERE id % {a} = {b % a}", out
    src = list(range(a, a + b))
    for i in src:
        if i in ref:
            if c == 1 and i % 2 == 0:
                del out[i]
            else:
                out[i] = (ref[i][0] * 10, ref[i][1])
        else:
            out[i] = (i, i % 2)
    values = ", ".join(f"({i})" for i in src)
    delete = "WHEN MATCHED AND T.id % 2 = 0 THEN DELETE " if c == 1 else ""
    return (f"MERGE INTO T USING (SELECT * FROM VALUES {values} AS s(id)) s ON T.id = s.id {delete}"
            "WHEN MATCHED THEN UPDATE SET v = T.v * 10 "
            "WHEN NOT MATCHED THEN INSERT (id, v, p) VALUES (s.id, s.id, s.id % 2)"), out


@pytest.mark.parametrize("dv", ["false", "true"])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stmts=hs.lists(_stmt, min_size=2, max_size=3))
def test_differential(spark: Any, sql: Any, db: str, spark_warehouse: str, dv: str,
                      stmts: list[tuple[str, int, int, int]]) -> None:
    spark.sql(f"USE paimon.{db}")
    sql("DROP TABLE IF EXISTS T")
    sql(f"CREATE TABLE T (id INT, v INT, p INT) PARTITIONED BY (p) TBLPROPERTIES ('deletion-vectors.enabled' = '{dv}')")
    ref = {i: (i * 100, i % 2) for i in range(12)}
    sql("INSERT INTO T VALUES " + ", ".join(f"({i}, {v}, {p})" for i, (v, p) in ref.items()))
    for stmt in stmts:
        before = _file_ids(sql, "T")
        text, new = _apply(ref, stmt)
        sql(text)
        changed = {i for i in set(ref) | set(new) if ref.get(i) != new.get(i)}
        ref = new
        assert sorted(sql("SELECT id, v, p FROM T")) == sorted((i, v, p) for i, (v, p) in ref.items()), text
        live = _files(sql, "T")
        untouched = {f for f, ids in before.items() if not ids & changed}
        assert untouched <= live, text  # a file without a changed row is kept
        if dv == "true":
            assert set(before) <= live, text  # vectors: no file is rewritten
    from tests.helpers.interop_util import PypaimonIO, ensure_pypaimon_python

    python, why = ensure_pypaimon_python()
    if python is None:
        pytest.skip(why)
    scratch = Path(spark_warehouse.removeprefix("file:")).parent / f"ipc-{db}-{os.getpid()}-{len(stmts)}-{dv}"
    scratch.mkdir(exist_ok=True)
    got = PypaimonIO(python, Path(spark_warehouse.removeprefix("file:")), scratch).read(f"{db}.T")
    assert sorted(zip(*(got.column(c).to_pylist() for c in ("id", "v", "p")))) == sorted(
        (i, v, p) for i, (v, p) in ref.items())
