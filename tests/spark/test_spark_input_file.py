"""The hidden input-file column of Python-path scans is sent only to queries that ask for a row's
data file (``input_file_name()``, ``input_file_block_start()``, ``input_file_block_length()``): the
shim's optimizer rule ``InputFileScans`` marks the scans of such a query, the others leave the
column out. The answers of those functions stay what they were: SQL, the DataFrame API, views, CTEs,
subqueries, cached tables, UPDATE / MERGE INTO / DELETE, streaming reads, mixed (native + Python)
scans, and a session without the SQL extension (which always sends the column)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark

NATIVE_CONF = "spark.paimon.read.native"
HIDDEN = "__paimon_input_file"


@pytest.fixture()
def python_reads(spark: Any) -> Iterator[None]:
    """Every scan of the test goes through the Python reader (native reads off)."""
    spark.conf.set(NATIVE_CONF, "false")
    yield
    spark.conf.unset(NATIVE_CONF)


def _field(obj: Any, name: str) -> Any:
    f = obj.getClass().getDeclaredField(name)
    f.setAccessible(True)
    return f.get(obj)


def _python_schemas(df: Any) -> list[list[str]]:
    """The schema each Python-path scan of ``df``'s executed plan asks the Python reader for (the
    part of a mixed scan too), with the hidden column when it is sent; subqueries and the plans
    under commands and adaptive execution included."""
    seen: list[list[str]] = []

    def scan_of(p: Any) -> Any:
        scan = p.scan()
        kind = scan.getClass().getSimpleName()
        if kind == "MixedScan":
            scan = _field(scan, "python")
        elif kind != "PaimonScan":
            return None
        return _field(scan, "delegate")

    def walk(p: Any) -> None:
        if p.getClass().getSimpleName() == "BatchScanExec":
            python = scan_of(p)
            if python is not None:
                seen.append(list(python.readSchema().fieldNames()))
        kind = p.getClass().getSimpleName()
        if kind == "AdaptiveSparkPlanExec":
            walk(p.executedPlan())
        elif kind.endswith("QueryStageExec"):
            walk(p.plan())
        for children in (p.children(), p.innerChildren()):
            it = children.iterator()
            while it.hasNext():
                walk(it.next())

    walk(df._jdf.queryExecution().executedPlan())
    return seen


def _sends(df: Any, *expected: bool) -> bool:
    """Whether the Python-path scans of ``df`` ask for the hidden input-file column as ``expected``
    (one flag a scan, in any order)."""
    got = sorted(HIDDEN in s for s in _python_schemas(df))
    assert got == sorted(expected), (got, _python_schemas(df))
    return True


def _files(sql: Any, table: str) -> set[str]:
    return {"file:" + r[0] for r in sql(f"SELECT file_path FROM {table}$files")}


def _append(spark: Any, db: str) -> str:
    """An append table of two files (two commits), ids 1..4."""
    spark.sql(f"CREATE TABLE {db}.a (id INT, v STRING) TBLPROPERTIES ('bucket' = '1', 'bucket-key' = 'id')")
    spark.sql(f"INSERT INTO {db}.a VALUES (1, 'x'), (2, 'y')")
    spark.sql(f"INSERT INTO {db}.a VALUES (3, 'z'), (4, 'w')")
    return f"{db}.a"


@pytest.mark.usefixtures("python_reads")
def test_only_queries_that_ask_for_the_file_get_the_column(spark: Any, sql: Any, db: str) -> None:
    t = _append(spark, db)
    files = _files(sql, t)
    assert _sends(spark.sql(f"SELECT * FROM {t}"), False)
    assert _sends(spark.sql(f"SELECT sum(id) FROM {t}"), False)
    assert _sends(spark.sql(f"SELECT id FROM {t} WHERE v <> 'q'"), False)
    assert sql(f"SELECT sum(id) FROM {t}") == [(10,)]
    q = f"SELECT id, input_file_name() FROM {t}"
    assert _sends(spark.sql(q), True)
    got = dict(sql(q))
    assert set(got) == {1, 2, 3, 4} and set(got.values()) == files and got[1] == got[2] != got[3]
    # in a filter, a grouping, and the block functions (the Python path knows no block: 0 and -1)
    assert _sends(spark.sql(f"SELECT id FROM {t} WHERE input_file_name() LIKE '%.parquet'"), True)
    assert sorted(sql(f"SELECT id FROM {t} WHERE input_file_name() = '{got[3]}'")) == [(3,), (4,)]
    assert sorted(sql(f"SELECT input_file_name(), count(*) FROM {t} GROUP BY 1")) == sorted((f, 2) for f in files)
    q = f"SELECT DISTINCT input_file_block_start(), input_file_block_length() FROM {t}"
    assert _sends(spark.sql(q), True) and sql(q) == [(0, -1)]
    # a column the query drops asks for nothing
    assert _sends(spark.sql(f"SELECT id FROM (SELECT id, input_file_name() f FROM {t})"), False)


@pytest.mark.usefixtures("python_reads")
def test_dataframe_api_views_ctes_and_subqueries(spark: Any, sql: Any, db: str) -> None:
    from pyspark.sql.functions import input_file_name

    t = _append(spark, db)
    files = _files(sql, t)
    df = spark.table(t)
    assert _sends(df, False)
    named = df.select("id", input_file_name().alias("f"))  # a new plan over an analysed one
    assert _sends(named, True)
    assert {r.f for r in named.collect()} == files
    assert _sends(named.select("id"), False)
    assert _sends(df.where(input_file_name() != ""), True) and df.where(input_file_name() != "").count() == 4

    spark.sql(f"CREATE TEMPORARY VIEW named_{db} AS SELECT id, input_file_name() f FROM {t}")
    spark.sql(f"CREATE TEMPORARY VIEW plain_{db} AS SELECT id FROM {t}")
    try:
        assert {r[0] for r in sql(f"SELECT f FROM named_{db}")} == files
        assert _sends(spark.sql(f"SELECT id FROM named_{db}"), False)
        assert _sends(spark.sql(f"SELECT * FROM plain_{db}"), False)
        q = f"SELECT id, input_file_name() FROM plain_{db}"
        assert _sends(spark.sql(q), True) and {r[1] for r in sql(q)} == files
    finally:
        spark.sql(f"DROP VIEW named_{db}")
        spark.sql(f"DROP VIEW plain_{db}")

    q = f"WITH c AS (SELECT * FROM {t} WHERE id > 0) SELECT id, input_file_name() FROM c"
    assert _sends(spark.sql(q), True) and {r[1] for r in sql(q)} == files
    # the same CTE twice (kept as a CTE, not inlined)
    q = f"WITH c AS (SELECT id, input_file_name() f FROM {t}) SELECT x.f FROM c x JOIN c y ON x.id = y.id"
    assert {r[0] for r in sql(q)} == files

    # the outer query's scan names its files; the subquery's scan sends nothing it does not use
    spark.sql(f"CREATE TABLE {db}.b (id INT) TBLPROPERTIES ('bucket' = '1', 'bucket-key' = 'id')")
    spark.sql(f"INSERT INTO {db}.b VALUES (1), (3)")
    q = f"SELECT id, f FROM (SELECT id, input_file_name() f FROM {t}) WHERE id IN (SELECT id FROM {db}.b)"
    assert _sends(spark.sql(q), False, True)
    got = dict(sql(q))
    assert set(got) == {1, 3} and set(got.values()) == files
    # over the join the subquery became, the name is Spark's: none (it runs after the scan's batches)
    q = f"SELECT id, input_file_name() FROM {t} WHERE id IN (SELECT id FROM {db}.b)"
    assert sorted(sql(q)) == [(1, ""), (3, "")]
    # a subquery that asks for its own file
    (b_file,) = _files(sql, f"{db}.b")
    q = f"SELECT id, (SELECT input_file_name() FROM {db}.b LIMIT 1) FROM {t}"
    assert sorted(sql(q)) == [(i, b_file) for i in (1, 2, 3, 4)]
    q = f"SELECT id FROM {t} WHERE EXISTS (SELECT 1 FROM {db}.b WHERE b.id = a.id AND input_file_name() <> '')"
    assert sorted(sql(q)) == [(1,), (3,)]


@pytest.mark.usefixtures("python_reads")
def test_cached_tables_answer_as_before(spark: Any, sql: Any, db: str) -> None:
    """A cached plan matches later queries as it did: its rows carry no file (empty names, as the
    cached rows of Spark's file sources), whether the query asks for the file or not."""
    t = _append(spark, db)
    spark.sql(f"CACHE TABLE {t}")
    try:
        assert sql(f"SELECT count(*) FROM {t}") == [(4,)]
        assert sorted(sql(f"SELECT id, input_file_name() FROM {t}")) == [(i, "") for i in (1, 2, 3, 4)]
    finally:
        spark.sql(f"UNCACHE TABLE {t}")
    assert {r[0] for r in sql(f"SELECT input_file_name() FROM {t}")} == _files(sql, t)


@pytest.mark.usefixtures("python_reads")
def test_merged_and_mixed_scans(spark: Any, sql: Any, db: str) -> None:
    """Merged rows name no file, single-file buckets name theirs; a mixed scan (native and Python
    buckets) sends the column to its Python part only when asked."""
    spark.sql(f"CREATE TABLE {db}.pk (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.pk VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO {db}.pk VALUES (1, 'c')")
    assert _sends(spark.sql(f"SELECT * FROM {db}.pk"), False)
    assert sql(f"SELECT * FROM {db}.pk ORDER BY id") == [(1, "c"), (2, "b")]
    assert sql(f"SELECT id, v, input_file_name() FROM {db}.pk ORDER BY id") == [(1, "c", ""), (2, "b", "")]

    spark.conf.unset(NATIVE_CONF)
    spark.sql(f"CREATE TABLE {db}.m (id BIGINT, v STRING, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id, dt', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {db}.m SELECT id, 'old', IF(id % 2 = 0, 'a', 'b') FROM range(40)")
    spark.sql(f"INSERT INTO {db}.m SELECT id, 'new', 'b' FROM range(1, 40, 4)")  # merges in b only
    q = f"SELECT * FROM {db}.m"
    assert "(Python for 2 buckets + native parquet" in spark.sql("EXPLAIN " + q).collect()[0][0]
    assert _sends(spark.sql(q), False)
    assert len(sql(q)) == 40
    q = f"SELECT dt, input_file_name() FROM {db}.m"
    assert _sends(spark.sql(q), True)
    rows = sql(q)
    native = {f for dt, f in rows if dt == "a"}
    assert len(rows) == 40 and all(f == "" for dt, f in rows if dt == "b")
    assert native and native <= _files(sql, f"{db}.m")


@pytest.mark.usefixtures("python_reads")
def test_update_merge_delete_read_what_they_need(spark: Any, sql: Any, db: str) -> None:
    """Primary-key tables' row-level reads leave the column out; the statements change the same
    rows."""
    spark.sql(f"CREATE TABLE {db}.pk (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.pk VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    merge = spark.sql(f"MERGE INTO {db}.pk t USING (SELECT 1 id, 'z' v UNION ALL SELECT 4, 'n') s ON t.id = s.id "
                      "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    assert _sends(merge, False)
    assert _sends(spark.sql(f"UPDATE {db}.pk SET v = 'u' WHERE id = 2"), False)
    spark.sql(f"DELETE FROM {db}.pk WHERE v = 'c'")  # (Paimon deletes by a filter: no scan)
    assert sql(f"SELECT * FROM {db}.pk ORDER BY id") == [(1, "z"), (2, "u"), (4, "n")]

    t = _append(spark, db)
    update = spark.sql(f"UPDATE {t} SET v = 'u' WHERE id = 3")
    # Spark's runtime filter of the files to rewrite reads their paths (a metadata column); the
    # rewrite's own scan (PaimonAppendRowLevel) sends the column as it did
    assert _sends(update, False)
    spark.sql(f"DELETE FROM {t} WHERE id = 1")
    spark.sql(f"MERGE INTO {t} t USING (SELECT 4 id, 'm' v) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v")
    assert sql(f"SELECT * FROM {t} ORDER BY id") == [(2, "y"), (3, "u"), (4, "m")]
    assert {r[0] for r in sql(f"SELECT input_file_name() FROM {t}")} == _files(sql, t)


def test_streaming_reads_answer_as_before(spark: Any, sql: Any, db: str, tmp_path: Path, queries: list[Any]) -> None:
    """A streaming scan never sent the column (Spark's Python stream reader): its rows name no
    file, with or without the rule."""
    from pyspark.sql.functions import input_file_name

    t = _append(spark, db)
    df = spark.readStream.table(f"paimon.{t}").select("id", input_file_name().alias("f"))
    name = f"input_file_{db}"
    q = (df.writeStream.format("memory").option("checkpointLocation", str(tmp_path / "cp")).queryName(name)
         .outputMode("append").trigger(availableNow=True).start())
    queries.append(q)
    q.awaitTermination(120)
    assert sorted(sql(f"SELECT * FROM {name}")) == [(i, "") for i in (1, 2, 3, 4)]


NO_EXTENSION = textwrap.dedent("""
    import json, os, sys
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    jar, warehouse = sys.argv[1:3]
    spark = (SparkSession.builder.master("local[1]")
             .config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.jars", jar)
             .getOrCreate())  # the catalog only: no spark.sql.extensions
    spark.conf.set("spark.sql.catalog.paimon", "org.paimon_sql.spark.PaimonCatalog")
    spark.conf.set("spark.sql.catalog.paimon.warehouse", warehouse)
    spark.conf.set("spark.paimon.read.native", "false")

    def rows(sql):
        return [list(r) for r in spark.sql(sql).collect()]

    spark.sql("CREATE TABLE paimon.default.a (id INT, v STRING) TBLPROPERTIES ('bucket'='1', 'bucket-key'='id')")
    spark.sql("INSERT INTO paimon.default.a VALUES (1, 'x'), (2, 'y')")
    spark.sql("INSERT INTO paimon.default.a VALUES (3, 'z')")
    out = {
        "names": rows("SELECT id, input_file_name() FROM paimon.default.a ORDER BY id"),
        "files": rows("SELECT file_path FROM paimon.default.`a$files`"),
        "sum": rows("SELECT sum(id) FROM paimon.default.a"),
    }
    print("RESULT " + json.dumps(out))
""")


@pytest.mark.slow
def test_session_without_the_extension_always_sends_the_column(tmp_path: Path) -> None:
    """PySpark with only the catalog configured (no SQL extension, so no rule): every Python-path
    scan still sends the column, and input_file_name() names each row's file."""
    from paimon_sql.spark import jar_path

    script = tmp_path / "job.py"
    script.write_text(NO_EXTENSION)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK", "SPARK_"))}
    run = subprocess.run([sys.executable, str(script), jar_path(), str(tmp_path / "wh")],
                         capture_output=True, text=True, timeout=600, env=env)
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")]
    assert run.returncode == 0 and lines, run.stderr[-4000:]
    import json

    out = json.loads(lines[0][len("RESULT "):])
    files = {"file:" + r[0] for r in out["files"]}
    assert [r[0] for r in out["names"]] == [1, 2, 3]
    assert {r[1] for r in out["names"]} == files and len(files) == 2
    assert out["sum"] == [[6]]
