"""Native reads: scans whose files need nothing from Paimon on top are read by Spark's own parquet
reader (EXPLAIN: ``native parquet``); every other scan runs the engine's reader in Python workers
(EXPLAIN: ``(Python)``). Both paths must return the same rows."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from paimon_sql import Catalog

NATIVE_CONF = "spark.paimon.read.native"
CORPUS = [
    "/work/shared/fixtures/java-corpus/parquet",
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "fixtures", "java-corpus", "parquet"),
]


@pytest.fixture()
def python_path(spark: Any) -> Iterator[Any]:
    """Runs a callable with native reads off."""

    def run(fn: Any) -> Any:
        spark.conf.set(NATIVE_CONF, "false")
        try:
            return fn()
        finally:
            spark.conf.unset(NATIVE_CONF)

    yield run


def _scan_path(spark: Any, query: str) -> str:
    plan: str = spark.sql("EXPLAIN " + query).collect()[0][0]
    scans = [line for line in plan.splitlines() if "BatchScan" in line]
    assert len(scans) == 1, plan
    if "(native parquet" in scans[0]:
        return "native"
    if "(Python for " in scans[0] and "+ native parquet" in scans[0]:
        return "mixed"
    assert "(Python)" in scans[0], plan
    return "python"


def _both(spark: Any, python_path: Any, query: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    native = sorted((tuple(r) for r in spark.sql(query).collect()), key=repr)
    python = sorted(python_path(lambda: [tuple(r) for r in spark.sql(query).collect()]), key=repr)
    return native, python


def test_append_and_primary_key_tables_are_read_natively(spark: Any, sql: Any, db: str, python_path: Any) -> None:
    spark.sql(f"CREATE TABLE {db}.a (id BIGINT, k STRING, dt STRING) PARTITIONED BY (dt)")
    spark.sql(f"INSERT INTO {db}.a VALUES (1, 'x', 'a'), (2, 'y', 'a'), (3, 'z', 'b'), (4, NULL, NULL)")
    spark.sql(f"CREATE TABLE {db}.p (id BIGINT, k STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {db}.p VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    for q in (
        f"SELECT * FROM {db}.a",
        f"SELECT k FROM {db}.a WHERE dt = 'a' AND id > 1",
        f"SELECT count(k) FROM {db}.a",
        f"SELECT dt, count(*) FROM {db}.a GROUP BY dt",
        f"SELECT * FROM {db}.p",
        f"SELECT sum(id) FROM {db}.p WHERE k <> 'y'",
    ):
        assert _scan_path(spark, q) == "native", q
        native, python = _both(spark, python_path, q)
        assert native == python, q
    assert sql(f"SELECT k FROM {db}.a WHERE dt = 'a' AND id > 1") == [("y",)]
    assert sql(f"SELECT * FROM {db}.p ORDER BY id") == [(1, "x"), (2, "y"), (3, "z")]
    assert python_path(lambda: _scan_path(spark, f"SELECT * FROM {db}.a")) == "python"


def test_every_flat_type_reads_the_same_on_both_paths(spark: Any, db: str, python_path: Any) -> None:
    spark.sql(
        f"CREATE TABLE {db}.ty (b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, "
        "d1 DECIMAL(5, 2), d2 DECIMAL(18, 3), d3 DECIMAL(25, 4), c CHAR(3), v VARCHAR(5), st STRING, "
        "bin BINARY, dat DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ)"
    )
    spark.sql(
        f"INSERT INTO {db}.ty VALUES (true, 1Y, 2S, 3, 4L, 1.5, 2.5, 123.45, 123456789012345.678, "
        "12345678901234567890.1234, 'ab', 'abc', 'ünï', X'0102', DATE'1500-01-01', "
        "TIMESTAMP'2024-01-01 10:00:00.123456', TIMESTAMP_NTZ'1000-01-01 00:00:00.5'), "
        "(false, -1Y, -2S, -3, -4L, CAST(-0.0 AS FLOAT), CAST('NaN' AS DOUBLE), -1.00, 0, 0, '', '', '', X'', DATE'9999-12-31', "
        "TIMESTAMP'1900-01-01 00:00:00', TIMESTAMP_NTZ'2262-04-11 23:47:16.854775'), "
        "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
    )
    q = f"SELECT * FROM {db}.ty"
    assert _scan_path(spark, q) == "native"
    native, python = _both(spark, python_path, q)
    assert repr(native) == repr(python)  # repr: NaN equals itself there
    assert len(native) == 3
    # filters reach Spark's row-group filtering on the native path: same rows as the engine's
    for cond, want in [
        ("c = 'ab'", 1), ("c = 'ab '", 1), ("v = 'abc'", 1), ("st = 'ünï'", 1), ("d1 > 100", 1),
        ("d3 < 1", 1), ("ts > TIMESTAMP'2000-01-01 00:00:00'", 1), ("ntz < TIMESTAMP_NTZ'1001-01-01 00:00:00'", 1),
        ("dat = DATE'1500-01-01'", 1), ("bin = X'0102'", 1), ("b", 1), ("f < 0", 0), ("i IS NULL", 1),
        ("t IN (1, -1)", 2), ("l BETWEEN -4 AND 4", 2),
    ]:
        fq = f"SELECT * FROM {db}.ty WHERE {cond}"
        native, python = _both(spark, python_path, fq)
        assert repr(native) == repr(python), fq
        assert len(native) == want, fq


def test_scans_that_need_paimon_take_the_python_path(spark: Any, sql: Any, db: str) -> None:
    # two overlapping commits of a primary-key table: the bucket needs a merge by key
    spark.sql(f"CREATE TABLE {db}.p (id BIGINT, k STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.p VALUES (1, 'x'), (2, 'y')")
    assert _scan_path(spark, f"SELECT * FROM {db}.p") == "native"
    spark.sql(f"INSERT INTO {db}.p VALUES (2, 'new'), (3, 'z')")
    assert _scan_path(spark, f"SELECT * FROM {db}.p") == "python"
    assert sql(f"SELECT * FROM {db}.p ORDER BY id") == [(1, "x"), (2, "new"), (3, "z")]
    # deletes are retraction rows: merged away, never read as they are stored
    spark.sql(f"CREATE TABLE {db}.d (id BIGINT, k STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.d VALUES (1, 'x'), (2, 'y')")
    spark.sql(f"DELETE FROM {db}.d WHERE id = 1")
    assert _scan_path(spark, f"SELECT * FROM {db}.d") == "python"
    assert sql(f"SELECT * FROM {db}.d") == [(2, "y")]
    # a renamed column: older files store it under its old name
    spark.sql(f"CREATE TABLE {db}.r (id BIGINT, k STRING)")
    spark.sql(f"INSERT INTO {db}.r VALUES (1, 'x')")
    spark.sql(f"ALTER TABLE {db}.r RENAME COLUMN k TO k2")
    spark.sql(f"INSERT INTO {db}.r VALUES (2, 'y')")
    assert _scan_path(spark, f"SELECT k2 FROM {db}.r") == "python"
    assert _scan_path(spark, f"SELECT id FROM {db}.r") == "native"  # that column did not change
    assert sql(f"SELECT * FROM {db}.r ORDER BY id") == [(1, "x"), (2, "y")]
    # an added column is missing from older files; a widened one changed type
    spark.sql(f"CREATE TABLE {db}.w (id INT, k STRING)")
    spark.sql(f"INSERT INTO {db}.w VALUES (1, 'x')")
    spark.sql(f"ALTER TABLE {db}.w ADD COLUMNS (n DOUBLE)")
    spark.sql(f"ALTER TABLE {db}.w ALTER COLUMN id TYPE BIGINT")
    spark.sql(f"INSERT INTO {db}.w VALUES (2, 'y', 0.5)")
    assert _scan_path(spark, f"SELECT n FROM {db}.w") == "python"
    assert _scan_path(spark, f"SELECT id FROM {db}.w") == "python"
    assert _scan_path(spark, f"SELECT k FROM {db}.w") == "native"
    assert sql(f"SELECT * FROM {db}.w ORDER BY id") == [(1, "x", None), (2, "y", 0.5)]
    # nested types and other file formats
    spark.sql(f"CREATE TABLE {db}.n (id BIGINT, xs ARRAY<INT>)")
    spark.sql(f"INSERT INTO {db}.n VALUES (1, array(1, 2))")
    assert _scan_path(spark, f"SELECT * FROM {db}.n") == "python"
    assert _scan_path(spark, f"SELECT id FROM {db}.n") == "native"
    spark.sql(f"CREATE TABLE {db}.o (id BIGINT) TBLPROPERTIES ('file.format' = 'orc')")
    spark.sql(f"INSERT INTO {db}.o VALUES (7)")
    assert _scan_path(spark, f"SELECT * FROM {db}.o") == "python"
    assert sql(f"SELECT * FROM {db}.o") == [(7,)]


def test_time_travel_and_filters_on_the_native_path(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT, k STRING, dt STRING) PARTITIONED BY (dt)")
    spark.sql(f"INSERT INTO {db}.t VALUES (1, 'ab', 'a'), (2, 'bc', 'b')")
    spark.sql(f"INSERT INTO {db}.t VALUES (3, 'cd', 'a')")
    plan = spark.sql(f"EXPLAIN SELECT id FROM {db}.t VERSION AS OF 1 WHERE dt = 'a'").collect()[0][0]
    assert "(native parquet, 1 files, snapshot 1)" in plan, plan
    assert "PartitionFilters: [IsNotNull(dt), EqualTo(dt,a)]" in plan, plan
    assert sql(f"SELECT id FROM {db}.t VERSION AS OF 1 WHERE dt = 'a'") == [(1,)]
    assert sql(f"SELECT id FROM {db}.t WHERE dt = 'a' ORDER BY id") == [(1,), (3,)]
    # filters the engine cannot take still hold: Spark evaluates every filter after the scan
    assert sql(f"SELECT id FROM {db}.t WHERE k LIKE '%c%' ORDER BY id") == [(2,), (3,)]
    assert sql(f"SELECT id FROM {db}.t WHERE dt = 'b' OR id = 3 ORDER BY id") == [(2,), (3,)]
    assert sql(f"SELECT id FROM {db}.t WHERE id > 100") == []


def test_native_scans_report_statistics_so_small_tables_are_broadcast(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.big (id BIGINT, v STRING)")
    spark.sql(f"CREATE TABLE {db}.small (id BIGINT, name STRING)")
    spark.sql(f"INSERT INTO {db}.big SELECT id, 'v' FROM range(100)")
    spark.sql(f"INSERT INTO {db}.small VALUES (1, 'one'), (2, 'two')")
    q = f"SELECT b.id, s.name FROM {db}.big b JOIN {db}.small s ON b.id = s.id"
    plan = spark.sql("EXPLAIN " + q).collect()[0][0]
    assert "BroadcastHashJoin" in plan, plan
    assert sorted(tuple(r) for r in spark.sql(q).collect()) == [(1, "one"), (2, "two")]
    # Python-path and mixed scans report their files' size too
    spark.sql(f"CREATE TABLE {db}.pk (id BIGINT, name STRING, dt STRING) PARTITIONED BY (dt) "
              "TBLPROPERTIES ('primary-key' = 'id, dt', 'bucket' = '1')")
    spark.sql(f"INSERT INTO {db}.pk VALUES (1, 'one', 'a'), (2, 'two', 'b')")
    spark.sql(f"INSERT INTO {db}.pk VALUES (2, 'TWO', 'b')")
    for where, path in (("WHERE s.dt = 'b'", "python"), ("", "mixed")):
        q = f"SELECT b.id, s.name FROM {db}.big b JOIN {db}.pk s ON b.id = s.id {where}"
        assert _scan_path(spark, f"SELECT * FROM {db}.pk s {where}") == path
        plan = spark.sql("EXPLAIN " + q).collect()[0][0]
        assert "BroadcastHashJoin" in plan, plan
    assert sorted(tuple(r) for r in spark.sql(q).collect()) == [(1, "one"), (2, "TWO")]
    spark.conf.set(NATIVE_CONF, "false")  # no bridge plan: no statistics, Spark's default
    try:
        assert "BroadcastHashJoin" not in spark.sql("EXPLAIN " + q).collect()[0][0]
    finally:
        spark.conf.unset(NATIVE_CONF)


def test_the_read_option_chooses_the_path_per_read(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT)")
    spark.sql(f"INSERT INTO {db}.t VALUES (1), (2)")

    def plan(df: Any) -> str:
        return str(df._jdf.queryExecution().executedPlan().toString())

    assert "(native parquet" in plan(spark.read.table(f"{db}.t"))
    python = spark.read.option("paimon.read.native", "false").table(f"{db}.t")
    assert "(Python)" in plan(python)
    assert sorted(r[0] for r in python.collect()) == [1, 2]


def test_a_bad_native_setting_is_a_clear_error(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.t (id BIGINT)")
    spark.conf.set(NATIVE_CONF, "sometimes")
    try:
        with pytest.raises(Exception, match="spark.paimon.read.native.*true or false.*sometimes"):
            spark.sql(f"SELECT * FROM {db}.t").collect()
    finally:
        spark.conf.unset(NATIVE_CONF)


def _corpus() -> str | None:
    for c in CORPUS:
        if os.path.isdir(c):
            return c
    return None


def test_java_written_tables_read_the_same_on_both_paths(spark: Any, spark_warehouse: str, python_path: Any) -> None:
    """Every Java-written parquet table of the corpus: whichever path a scan takes, its rows are
    those of the Python path (which tests/test_java_corpus.py checks against Paimon's own)."""
    corpus = _corpus()
    if corpus is None:
        pytest.skip("the Java-written corpus is not available")
    cat = Catalog(spark_warehouse)
    paths: dict[str, str] = {}
    counted: set[str] = set()
    for db_dir in sorted(os.listdir(corpus)):
        if not db_dir.endswith(".db"):
            continue
        name = db_dir[:-3]
        dst = os.path.join(spark_warehouse, db_dir)
        if not os.path.exists(dst):
            shutil.copytree(os.path.join(corpus, db_dir), dst)
        for table in cat.list_tables(name):
            try:
                cat.get_table(f"{name}.{table}").read()
            except Exception:  # the engine refuses it (Unsupported): no path reads it
                continue
            q = f"SELECT * FROM {name}.`{table}`"
            try:
                python = sorted(python_path(lambda q=q: [tuple(r) for r in spark.sql(q).collect()]), key=repr)
            except Exception:  # a type Spark cannot show: not a read-path question
                continue
            paths[f"{name}.{table}"] = _scan_path(spark, q)
            native = sorted((tuple(r) for r in spark.sql(q).collect()), key=repr)
            assert native == python, q
            count_q = f"SELECT count(*) FROM {name}.`{table}`"
            assert spark.sql(count_q).collect()[0][0] == len(python), count_q
            if "LocalTableScan" in spark.sql("EXPLAIN " + count_q).collect()[0][0]:
                counted.add(f"{name}.{table}")
    assert "native" in paths.values() and "python" in paths.values(), paths
    # count(*) comes from the manifests where file row counts are the table's rows (deletion
    # vectors subtracted), also for tables whose scans need the Python path
    assert counted and counted != set(paths), (counted, paths)
    assert any(paths[t] == "python" for t in counted), (counted, paths)


def test_count_star_comes_from_the_manifests_when_it_can(spark: Any, sql: Any, db: str) -> None:
    def counted(q: str) -> bool:
        plan: str = spark.sql("EXPLAIN " + q).collect()[0][0]
        return "LocalTableScan" in plan and "BatchScan" not in plan

    spark.sql(f"CREATE TABLE {db}.a (id BIGINT, dt STRING) PARTITIONED BY (dt)")
    assert sql(f"SELECT count(*) FROM {db}.a") == [(0,)] and counted(f"SELECT count(*) FROM {db}.a")
    spark.sql(f"INSERT INTO {db}.a SELECT id, CAST(id % 3 AS STRING) FROM range(1000)")
    spark.sql(f"INSERT INTO {db}.a VALUES (5000, 'x')")
    for q, want in [
        (f"SELECT count(*) FROM {db}.a", 1001),
        (f"SELECT count(1) FROM {db}.a", 1001),
        (f"SELECT count(*) FROM {db}.a VERSION AS OF 1", 1000),
        (f"SELECT count(*) + 1 FROM {db}.a", 1002),
    ]:
        assert counted(q), q
        assert sql(q) == [(want,)], q
    # not from the manifests: a filter, a GROUP BY, count of a column (nulls do not count)
    for q, want in [
        (f"SELECT count(*) FROM {db}.a WHERE dt = 'x'", [(1,)]),
        (f"SELECT count(*) FROM {db}.a GROUP BY dt ORDER BY 1", [(1,), (333,), (333,), (334,)]),
        (f"SELECT count(dt) FROM {db}.a", [(1001,)]),
    ]:
        assert not counted(q), q
        assert sql(q) == want, q
    spark.sql(f"DELETE FROM {db}.a WHERE id < 10")  # rewrites files of the append table
    assert counted(f"SELECT count(*) FROM {db}.a")
    assert sql(f"SELECT count(*) FROM {db}.a") == [(991,)]

    spark.sql(f"CREATE TABLE {db}.p (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    spark.sql(f"INSERT INTO {db}.p SELECT id, 'a' FROM range(100)")
    assert counted(f"SELECT count(*) FROM {db}.p") and sql(f"SELECT count(*) FROM {db}.p") == [(100,)]
    spark.sql(f"INSERT INTO {db}.p SELECT id, 'b' FROM range(50, 150)")  # 50 keys updated: merge
    assert not counted(f"SELECT count(*) FROM {db}.p")
    assert sql(f"SELECT count(*) FROM {db}.p") == [(150,)]
    spark.conf.set(NATIVE_CONF, "false")
    try:
        assert not counted(f"SELECT count(*) FROM {db}.a")
        assert sql(f"SELECT count(*) FROM {db}.a") == [(991,)]
    finally:
        spark.conf.unset(NATIVE_CONF)


def test_mixed_scans_read_each_bucket_once(spark: Any, sql: Any, db: str, python_path: Any) -> None:
    """Buckets that need a merge go to Python workers; the others, of the same snapshot, to
    Spark's parquet reader."""
    spark.sql(
        f"CREATE TABLE {db}.m (id BIGINT, v STRING, dt STRING) PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key' = 'id, dt', 'bucket' = '2')"
    )
    spark.sql(f"INSERT INTO {db}.m SELECT id, 'old', IF(id % 2 = 0, 'a', 'b') FROM range(200)")
    spark.sql(f"INSERT INTO {db}.m SELECT id, 'new', 'b' FROM range(1, 200, 4)")  # updates in b only
    q = f"SELECT * FROM {db}.m"
    assert _scan_path(spark, q) == "mixed"
    plan = spark.sql("EXPLAIN " + q).collect()[0][0]
    assert "(Python for 2 buckets + native parquet, 2 files, snapshot 2)" in plan, plan
    native, python = _both(spark, python_path, q)
    assert native == python
    assert len(native) == 200 and sum(1 for r in native if r[1] == "new") == 50
    assert sql(f"SELECT dt, v, count(*) FROM {db}.m GROUP BY dt, v ORDER BY 1, 2") == [
        ("a", "old", 100), ("b", "new", 50), ("b", "old", 50)]
    assert sql(f"SELECT count(*) FROM {db}.m WHERE id % 4 = 1") == [(50,)]
    assert _scan_path(spark, f"SELECT * FROM {db}.m WHERE dt = 'a'") == "native"
    assert _scan_path(spark, f"SELECT * FROM {db}.m WHERE dt = 'b'") == "python"
    assert _scan_path(spark, f"SELECT * FROM {db}.m VERSION AS OF 1") == "native"
    # a commit after planning: whatever Spark re-plans, both parts read one snapshot (the reader
    # test in test_native_read_plan.py pins the Python part's snapshot directly)
    df = spark.sql(q)
    df.explain()  # plans the scan (snapshot 2)
    spark.sql(f"INSERT INTO {db}.m SELECT id, 'newer', IF(id % 2 = 0, 'a', 'b') FROM range(200)")
    # snapshot 2 or 3, never its native part from one and its Python part from the other (100)
    assert sum(1 for r in df.collect() if r[1] == "newer") in (0, 200)
    rows = spark.sql(q).collect()
    assert len(rows) == 200 and all(r[1] == "newer" for r in rows)


def test_dynamic_partition_pruning_drops_files_at_run_time(spark: Any, sql: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.fact (id BIGINT, v DOUBLE, dt STRING) PARTITIONED BY (dt)")
    spark.sql(f"INSERT INTO {db}.fact SELECT id, 1.0, concat('d', CAST(id % 5 AS STRING)) FROM range(10000)")
    spark.sql(f"CREATE TABLE {db}.dim (dt STRING, name STRING)")
    spark.sql(f"INSERT INTO {db}.dim VALUES ('d1', 'one'), ('d2', 'two'), ('d3', 'three')")
    q = (f"SELECT d.name, count(*), sum(f.v) FROM {db}.fact f JOIN {db}.dim d ON f.dt = d.dt "
         "WHERE d.name IN ('two', 'three') GROUP BY d.name ORDER BY 1")
    assert "dynamicpruningexpression" in spark.sql("EXPLAIN " + q).collect()[0][0]
    df = spark.sql(q)
    assert [tuple(r) for r in df.collect()] == [("three", 2000, 2000.0), ("two", 2000, 2000.0)]
    executed = str(df._jdf.queryExecution().executedPlan().toString())
    fact = [line for line in executed.splitlines() if f"{db}`.`fact`" in line]
    pruned = [line.split("PrunedAtRuntimeBy: ")[1] for line in fact if "PrunedAtRuntimeBy: " in line]
    assert len(pruned) == len(fact) and all("'d2'" in p and "'d3'" in p for p in pruned), executed
    full = spark.sql(f"EXPLAIN SELECT * FROM {db}.fact").collect()[0][0]
    files_before = int(full.split("(native parquet, ")[1].split(" files")[0])
    files_after = int(fact[0].split("(native parquet, ")[1].split(" files")[0])
    assert files_after < files_before, (files_before, files_after)
    # no row of the other side: the result is empty, whatever the scan prunes
    none = f"SELECT count(*) FROM {db}.fact f JOIN {db}.dim d ON f.dt = d.dt WHERE d.name = 'nobody'"
    assert sql(none) == [(0,)]


def test_native_reads_check_file_sizes_and_page_checksums(spark: Any, db: str, spark_warehouse: str) -> None:
    """Spark's parquet reader gets what the engine verifies: a file of another size than its manifest
    entry says is refused at planning, and a damaged page fails its CRC (paimon_sql writes page
    checksums; the shim turns their verification on)."""
    from pathlib import Path

    spark.sql(f"CREATE TABLE {db}.ck (id BIGINT, s STRING)")
    spark.sql(f"INSERT INTO {db}.ck SELECT id, concat('s', id) FROM range(0, 20000)")
    query = f"SELECT sum(id), count(s) FROM {db}.ck"
    assert _scan_path(spark, query) == "native"
    assert spark.sql(query).collect()[0][0] == sum(range(20000))
    path = sorted(Path(spark_warehouse, f"{db}.db", "ck").rglob("data-*.parquet"))[0]
    original = path.read_bytes()
    try:
        path.write_bytes(original + b"\x00")
        with pytest.raises(Exception, match=rf"{path.name}.*bytes"):
            spark.sql(query).collect()
        damaged = bytearray(original)
        damaged[200] ^= 0xFF  # inside the first data page of the first column
        path.write_bytes(bytes(damaged))
        with pytest.raises(Exception, match=r"(?i)checksum|crc"):
            spark.sql(query).collect()
    finally:
        path.write_bytes(original)
    assert spark.sql(query).collect()[0][0] == sum(range(20000))


@pytest.mark.spark
@pytest.mark.parametrize("file_format", ["parquet", "orc", "avro"])
@pytest.mark.parametrize("bucket", [-1, 1, 2])
def test_input_file_name_names_each_rows_data_file(
    spark: Any, sql: Any, db: str, python_path: Any, file_format: str, bucket: int
) -> None:
    """Paimon's PaimonQueryTest: input_file_name() is the data file of each row, under the table's
    folder, with the format's extension; the Python path gives what Spark's parquet reader gives."""
    props = f"'file.format' = '{file_format}'" + (f", 'bucket-key' = 'id', 'bucket' = '{bucket}'" if bucket > 0 else "")
    sql(f"CREATE TABLE {db}.t (id INT, name STRING, pt STRING) PARTITIONED BY (pt) TBLPROPERTIES ({props})")
    sql(f"INSERT INTO {db}.t VALUES (1, 'x1', '2024'), (3, 'x3', '2024')")
    sql(f"INSERT INTO {db}.t VALUES (2, 'x2', '2025'), (4, 'x4', '2025'), (6, 'x6', '2026')")
    files = {r[0] for r in sql(f"SELECT file_path FROM {db}.`t$files`")}

    def names(where: str = "") -> dict[int, str]:
        return dict(sql(f"SELECT id, input_file_name() FROM {db}.t {where}"))

    got = python_path(names)
    assert set(got) == {1, 2, 3, 4, 6}
    assert all(n.startswith("file:/") and n.endswith("." + file_format) for n in got.values()), got
    assert {n.removeprefix("file:") for n in got.values()} == files
    assert set(python_path(lambda: names("WHERE pt = '2026'")).values()) == {got[6]}
    assert len(set(got.values())) >= 3  # one file at least per partition
    if file_format == "parquet":  # Spark's own reader: the same names
        assert names() == got


@pytest.mark.spark
def test_input_file_name_of_merged_rows_is_empty(spark: Any, sql: Any, db: str) -> None:
    """A row merged from several files comes from none of them (Paimon's reader unsets the name);
    a bucket read file by file names each file; after the scan the name is unset again."""
    sql(f"CREATE TABLE {db}.pk (id INT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')")
    sql(f"INSERT INTO {db}.pk VALUES (1, 'a'), (2, 'b')")
    one = sql(f"SELECT id, input_file_name() FROM {db}.pk ORDER BY id")
    assert [r[0] for r in one] == [1, 2] and all(r[1].endswith(".parquet") for r in one)
    sql(f"INSERT INTO {db}.pk VALUES (1, 'c')")
    assert sql(f"SELECT id, v, input_file_name() FROM {db}.pk ORDER BY id") == [(1, "c", ""), (2, "b", "")]
    assert sql(f"SELECT DISTINCT input_file_name() FROM {db}.`pk$files`") == [("",)]
