"""Spark writes clustered by Paimon bucket: the shim's ``paimon_bucket`` function (a Spark V2
function of the ``paimon`` catalog) must give the bucket the engine's writer computes
(``murmur.bucket_of``) for every supported type, and writes of fixed-bucket tables must then be
clustered by (partition, bucket): one task, so one data file, per bucket and write."""

from __future__ import annotations

import datetime as dt
import decimal
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql import types as pt
from paimon_sql.format.murmur import bucket_of

pytestmark = pytest.mark.spark

BIG = 2147483647  # abs(hash % BIG) differs for almost all distinct hashes: compares the hashes
UTC = dt.timezone.utc
D = decimal.Decimal


def _spark_buckets(spark: Any, ddl: Sequence[str], rows: Sequence[tuple[Any, ...]], call: str) -> dict[int, list[int]]:
    """``call`` (SQL over columns c0..cn, with {n} for the bucket count) for n in (4, 7, BIG),
    row by row (the rows' first value is their id)."""
    schema = ", ".join(["i INT"] + [f"c{j} {t}" for j, t in enumerate(ddl)])
    df = spark.createDataFrame([(i, *r) for i, r in enumerate(rows)], schema)
    df.createOrReplaceTempView("bucket_input")
    exprs = ", ".join(call.format(n=n) for n in (4, 7, BIG))
    got = spark.sql(f"SELECT i, {exprs} FROM bucket_input ORDER BY i").collect()
    assert [r[0] for r in got] == list(range(len(rows)))
    return {n: [r[k + 1] for r in got] for k, n in enumerate((4, 7, BIG))}


def _python_buckets(columns: Sequence[pa.Array], types: Sequence[pt.DataType]) -> dict[int, list[int]]:
    return {n: bucket_of(list(columns), list(types), n).tolist() for n in (4, 7, BIG)}


def _check(spark: Any, ddl: str, ptype: pt.DataType, arrow: pa.Array, values: Sequence[Any], call: str = "") -> None:
    got = _spark_buckets(spark, [ddl], [(v,) for v in values], call or "paimon.sys.paimon_bucket({n}, c0)")
    want = _python_buckets([arrow], [ptype])
    assert got == want, f"{ddl}: {list(zip(values, got[BIG], want[BIG]))}"


rnd = random.Random(20240506)

INTS = [0, 1, -1, 2**31 - 1, -(2**31), 123456, -98765, None] + [rnd.randint(-(2**31), 2**31 - 1) for _ in range(40)]
LONGS = [0, -1, 2**63 - 1, -(2**63), 1 << 40, None] + [rnd.randint(-(2**63), 2**63 - 1) for _ in range(40)]
FLOATS = [0.0, -0.0, 1.5, -3.25, math.inf, -math.inf, math.nan, 1e-38, 3.4e38, None] + [
    rnd.uniform(-1e6, 1e6) for _ in range(30)
]
_ALPHABET = "abcXYZ09 é日😀"
STRINGS = ["", "a", "abcdefg", "abcdefgh", "x" * 100, "héllo", "éééé", "日本語", "😀", None] + [
    "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randint(0, 20))) for _ in range(40)
]
BINARIES = [b"", b"\x00", b"\xff" * 7, b"\x01" * 8, bytes(range(256)), None] + [
    rnd.randbytes(rnd.randint(0, 20)) for _ in range(30)
]
TIMESTAMPS = [
    dt.datetime(1970, 1, 1),
    dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
    dt.datetime(1969, 12, 31, 23, 59, 59, 999000),
    dt.datetime(1969, 12, 31, 23, 59, 59, 500),
    dt.datetime(1900, 1, 1, 0, 0, 0, 1),
    dt.datetime(1, 1, 1),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    dt.datetime(2024, 5, 6, 7, 8, 9, 123456),
    None,
] + [dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=rnd.randint(-(6 * 10**16), 6 * 10**16)) for _ in range(40)]


@pytest.mark.parametrize(
    ("ddl", "ptype", "arrow_type", "values"),
    [
        ("BOOLEAN", pt.BooleanType(), pa.bool_(), [True, False, None]),
        ("TINYINT", pt.TinyIntType(), pa.int8(), [0, 1, -1, 127, -128, 42, None]),
        ("SMALLINT", pt.SmallIntType(), pa.int16(), [0, -1, 32767, -32768, 300, -300, None]),
        ("INT", pt.IntType(), pa.int32(), INTS),
        ("BIGINT", pt.BigIntType(), pa.int64(), LONGS),
        ("FLOAT", pt.FloatType(), pa.float32(), FLOATS),
        ("DOUBLE", pt.DoubleType(), pa.float64(), FLOATS + [1e300, -5e-324]),
        (
            "DATE",
            pt.DateType(),
            pa.date32(),
            [dt.date(1970, 1, 1), dt.date(1969, 12, 31), dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(2024, 2, 29), None],
        ),
        ("STRING", pt.VarCharType(), pa.string(), STRINGS),
        ("BINARY", pt.VarBinaryType(), pa.binary(), BINARIES),
        ("TIMESTAMP_NTZ", pt.TimestampType(6), pa.timestamp("us"), TIMESTAMPS),
        (
            "TIMESTAMP",
            pt.LocalZonedTimestampType(6),
            pa.timestamp("us", tz="UTC"),
            [None if t is None else t.replace(tzinfo=UTC) for t in TIMESTAMPS],
        ),
    ],
)
def test_bucket_function_equals_the_engine(spark: Any, ddl: str, ptype: pt.DataType, arrow_type: pa.DataType, values: list[Any]) -> None:
    _check(spark, ddl, ptype, pa.array(values, arrow_type), values)


@pytest.mark.parametrize(
    ("precision", "scale", "values"),
    [
        (5, 2, ["0", "-0.01", "999.99", "-999.99", "1.5", None]),
        (18, 4, ["0", "99999999999999.9999", "-99999999999999.9999", "-1", "0.0001", "12345.6789", None]),
        (19, 0, ["0", "-1", "1", "9999999999999999999", "-9999999999999999999", "127", "128", "-128", "-129", None]),
        (
            38,
            10,
            ["0", "-1", "9999999999999999999999999999.9999999999", "-9999999999999999999999999999.9999999999",
             "0.0000000001", "-0.0000000001", "12345678901234567890.1234567890", "255", "-256", None],
        ),
    ],
)
def test_decimals_both_sides_of_precision_18(spark: Any, precision: int, scale: int, values: list[str | None]) -> None:
    with decimal.localcontext(decimal.Context(prec=50)):
        q = D(1).scaleb(-scale)
        decs = [None if v is None else D(v).quantize(q) for v in values]
        decs += [D(rnd.randint(-(10**precision) + 1, 10**precision - 1)).scaleb(-scale) for _ in range(30)]
    t = pa.decimal128(precision, scale)
    _check(spark, f"DECIMAL({precision},{scale})", pt.DecimalType(precision, scale), pa.array(decs, t), decs)


@pytest.mark.parametrize(("ddl", "paimon"), [("TIMESTAMP_NTZ", pt.TimestampType(3)), ("TIMESTAMP", pt.LocalZonedTimestampType(3))])
def test_compact_timestamps_through_paimon_timestamp_millis(spark: Any, ddl: str, paimon: pt.DataType) -> None:
    """A Paimon TIMESTAMP(3) column holds epoch millis; the engine's Spark writer casts Spark's
    microseconds to them (truncating toward zero, also before 1970)."""
    tz = UTC if ddl == "TIMESTAMP" else None
    values = [None if t is None else t.replace(tzinfo=tz) for t in TIMESTAMPS]
    us = pa.array(values, pa.timestamp("us", tz="UTC" if tz else None))
    millis = us.cast(pa.timestamp("ms", tz="UTC" if tz else None), safe=False)
    _check(spark, ddl, paimon, millis, values, "paimon.sys.paimon_bucket({n}, paimon.sys.paimon_timestamp_millis(c0))")
    # differs from the same value as TIMESTAMP(6) (non-compact)
    as6 = _python_buckets([us], [pt.TimestampType(6) if tz is None else pt.LocalZonedTimestampType(6)])[BIG]
    assert as6 != _python_buckets([millis], [paimon])[BIG]


def test_time_of_day(spark: Any) -> None:
    """Paimon TIME is int millis of the day in a BinaryRow (the writer casts Spark's TIME to ms)."""
    times = ["00:00:00", "12:34:56.789123", "23:59:59.999999", "00:00:00.000999", "00:00:01.5", None]
    spark.conf.set("spark.sql.timeType.enabled", "true")
    try:
        rows = spark.sql(
            "SELECT i, CAST(t AS TIME(6)) AS c, "
            + ", ".join(f"paimon.sys.paimon_bucket({n}, CAST(t AS TIME(6)))" for n in (4, 7, BIG))
            + " FROM VALUES " + ", ".join(f"({i}, {'NULL' if t is None else repr(t)})" for i, t in enumerate(times))
            + " AS v(i, t) ORDER BY i"
        ).collect()
    finally:
        spark.conf.unset("spark.sql.timeType.enabled")
    values = [r[1] for r in rows]
    arrow = pa.array(values, pa.time64("us")).cast(pa.time32("ms"), safe=False)
    want = _python_buckets([arrow], [pt.TimeType(3)])
    assert {n: [r[k + 2] for r in rows] for k, n in enumerate((4, 7, BIG))} == want


def _random_decimal(precision: int, scale: int) -> decimal.Decimal:
    return D(rnd.randint(-(10**precision) + 1, 10**precision - 1)).scaleb(-scale)


def test_multi_column_keys_with_nulls(spark: Any) -> None:
    cols: list[tuple[str, pt.DataType, pa.DataType, Callable[[], Any]]] = [
        ("INT", pt.IntType(), pa.int32(), lambda: rnd.choice(INTS)),
        ("STRING", pt.VarCharType(), pa.string(), lambda: rnd.choice(STRINGS)),
        ("DECIMAL(20,3)", pt.DecimalType(20, 3), pa.decimal128(20, 3), lambda: _random_decimal(20, 3)),
        ("TIMESTAMP_NTZ", pt.TimestampType(6), pa.timestamp("us"), lambda: rnd.choice(TIMESTAMPS)),
        ("BIGINT", pt.BigIntType(), pa.int64(), lambda: rnd.choice(LONGS)),
        ("BINARY", pt.VarBinaryType(), pa.binary(), lambda: rnd.choice(BINARIES)),
        ("DECIMAL(9,2)", pt.DecimalType(9, 2), pa.decimal128(9, 2), lambda: _random_decimal(9, 2)),
        ("BOOLEAN", pt.BooleanType(), pa.bool_(), lambda: rnd.choice([True, False])),
    ]
    columns = [[None if rnd.random() < 0.15 else draw() for _ in range(60)] for _, _, _, draw in cols]
    columns[0][0] = columns[1][0] = columns[2][0] = None  # leading nulls
    for c in columns:
        c[1] = None  # a row of nulls only
    call = "paimon.sys.paimon_bucket({n}, " + ", ".join(f"c{j}" for j in range(len(cols))) + ")"
    got = _spark_buckets(spark, [c[0] for c in cols], list(zip(*columns)), call)
    want = _python_buckets([pa.array(v, c[2]) for v, c in zip(columns, cols)], [c[1] for c in cols])
    assert got == want


def test_wide_key_has_a_longer_null_bit_set(spark: Any) -> None:
    """57+ fields: the BinaryRow header + null bits take 16 bytes instead of 8."""
    width = 60
    rows = [tuple(None if (i + j) % 7 == 0 else i * 1000 + j for j in range(width)) for i in range(5)]
    call = "paimon.sys.paimon_bucket({n}, " + ", ".join(f"c{j}" for j in range(width)) + ")"
    got = _spark_buckets(spark, ["INT"] * width, rows, call)
    want = _python_buckets([pa.array([r[j] for r in rows], pa.int32()) for j in range(width)], [pt.IntType()] * width)
    assert got == want


def test_function_resolution_and_binding_errors(spark: Any, sql: Any) -> None:
    from pyspark.errors import AnalysisException

    assert sql("SELECT paimon.sys.paimon_bucket(4, 1), paimon.paimon_bucket(4, 1), paimon.SYS.PAIMON_BUCKET(4, 1)") == [
        tuple([bucket_of([pa.array([1], pa.int32())], [pt.IntType()], 4)[0]] * 3)
    ]
    for bad in ("paimon.sys.paimon_bucket(4, array(1))", "paimon.sys.paimon_bucket(4)",
                "paimon.sys.paimon_bucket(4L, 1)", "paimon.sys.paimon_timestamp_millis(1)"):
        with pytest.raises(AnalysisException):
            sql(f"SELECT {bad}")
    with pytest.raises(AnalysisException):  # functions live in 'sys' (and the empty namespace) only
        sql("SELECT paimon.default.paimon_bucket(4, 1)")
    with pytest.raises(Exception, match="must be positive"):
        sql("SELECT paimon.sys.paimon_bucket(CAST(id - id AS INT), 1) FROM range(1)")


# ------------------------------------------------------------------------------------- writes


@pytest.mark.parametrize("n", [1, 2, 4, 7, 16, 100])
def test_bucket_slots_are_sparks_hash_partition_of_the_bucket(sql: Any, n: int) -> None:
    rows = sql(
        f"SELECT paimon.sys.paimon_bucket({n}, id) b, pmod(hash(paimon.sys.paimon_bucket_slot({n}, id)), {n}) p "
        "FROM range(0, 3000)"
    )
    assert all(b == p for b, p in rows)
    assert len({b for b, _ in rows}) == n


def _files_per_bucket(sql: Any, db: str, table: str) -> dict[tuple[str, int], int]:
    """Live data files per (partition, bucket), partitions as $files shows them ({a})."""
    rows = sql(f"SELECT partition, bucket, count(*) FROM {db}.`{table}$files` GROUP BY partition, bucket")
    return {(str(p), int(b)): int(c) for p, b, c in rows}


def _plan(spark: Any, query: str) -> str:
    text: str = spark.sql("EXPLAIN " + query).collect()[0][0]
    return text


def test_primary_key_insert_writes_one_file_per_bucket(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.pk"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='4')")
    query = "SELECT id, CAST(id AS STRING) FROM range(0, 2000, 1, 3)"  # 3 input partitions
    assert spark.sql(query).rdd.getNumPartitions() == 3
    # unpartitioned: one shuffle partition per bucket, each bucket hashed to a partition of its own
    assert "Exchange hashpartitioning(applyfunctionexpression(paimon_bucket_slot, 4, id#" in _plan(spark, f"INSERT INTO {t} {query}")
    assert ", 4), REPARTITION_BY_NUM" in _plan(spark, f"INSERT INTO {t} {query}")
    spark.sql(f"INSERT INTO {t} {query}")
    assert _files_per_bucket(sql, db, "pk") == {("{}", b): 1 for b in range(4)}
    spark.sql(f"INSERT INTO {t} SELECT id, 'new' FROM range(1000, 3000, 1, 2)")
    assert _files_per_bucket(sql, db, "pk") == {("{}", b): 2 for b in range(4)}
    assert sql(f"SELECT v = 'new', count(*), min(id), max(id) FROM {t} GROUP BY 1 ORDER BY 1") == [
        (False, 1000, 0, 999),
        (True, 2000, 1000, 2999),
    ]


def test_small_values_are_written_by_one_task_without_a_shuffle(spark: Any, sql: Any, db: str) -> None:
    """INSERT ... VALUES (a small local relation) into a fixed-bucket table: one task writes every
    bucket (no exchange); records of one key keep their statement order (the last one wins), each
    row lands in the bucket the engine computes, and a partitioned table's rows in their partitions."""
    spark.sql(f"CREATE TABLE {db}.pk (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='4')")
    values = ", ".join(f"({i % 7}, 'v{i}')" for i in range(40))  # every key 5-6 times, over both input partitions
    plan = _plan(spark, f"INSERT INTO {db}.pk VALUES {values}")
    assert "Exchange" not in plan and "Coalesce 1" in plan and "LocalTableScan" in plan, plan
    spark.sql(f"INSERT INTO {db}.pk VALUES {values}")
    assert sql(f"SELECT id, v FROM {db}.pk ORDER BY id") == [(k, f"v{max(i for i in range(40) if i % 7 == k)}")
                                                             for k in range(7)]
    files = sql(f"SELECT bucket, record_count FROM {db}.`pk$files` ORDER BY bucket")
    buckets = bucket_of([pa.array(range(7), pa.int64())], [pt.BigIntType(nullable=False)], 4).tolist()
    assert files == sorted((b, buckets.count(b)) for b in set(buckets))  # one file per bucket, each key once
    spark.sql(
        f"CREATE TABLE {db}.pp (id INT, dt STRING) PARTITIONED BY (dt) TBLPROPERTIES ('primary-key'='id,dt', 'bucket'='3')"
    )
    assert "Exchange" not in _plan(spark, f"INSERT INTO {db}.pp VALUES (1, 'a'), (2, 'b'), (3, 'a')")
    spark.sql(f"INSERT INTO {db}.pp VALUES (1, 'a'), (2, 'b'), (3, 'a'), (1, 'b')")
    assert sql(f"SELECT dt, id FROM {db}.pp ORDER BY dt, id") == [("a", 1), ("a", 3), ("b", 1), ("b", 2)]
    # larger inputs keep the shuffle: one task per bucket
    big = "SELECT * FROM VALUES " + ", ".join(f"({i}, 'x')" for i in range(10_001)) + " AS t(id, v)"
    assert "Exchange hashpartitioning" in _plan(spark, f"INSERT INTO {db}.pk {big}")


def test_partitioned_table_one_file_per_partition_bucket(spark: Any, sql: Any, db: str) -> None:
    t = f"{db}.pp"
    spark.sql(
        f"CREATE TABLE {t} (id INT, v DOUBLE, dt STRING) PARTITIONED BY (dt) "
        "TBLPROPERTIES ('primary-key'='id,dt', 'bucket'='4')"
    )
    query = "SELECT CAST(id AS INT), id * 0.5, IF(id % 3 = 0, 'a', 'b') FROM range(0, 1500, 1, 2)"
    plan = _plan(spark, f"INSERT INTO {t} {query}")
    assert "hashpartitioning(dt#" in plan and "(paimon_bucket, 4, id#" in plan
    spark.sql(f"INSERT INTO {t} {query}")
    assert _files_per_bucket(sql, db, "pp") == {(p, b): 1 for p in ("{a}", "{b}") for b in range(4)}
    assert sql(f"SELECT dt, count(*), sum(id) FROM {t} GROUP BY dt ORDER BY dt") == [
        ("a", 500, sum(range(0, 1500, 3))),
        ("b", 1000, sum(i for i in range(1500) if i % 3)),
    ]


def test_multi_column_and_explicit_bucket_keys(spark: Any, sql: Any, db: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.mk (a INT, b STRING, c DECIMAL(20,2), v INT) "
        "TBLPROPERTIES ('primary-key'='a,b,c', 'bucket'='3')"
    )
    spark.sql(
        f"CREATE TABLE {db}.ap (k1 STRING, k2 DATE, v INT) "
        "TBLPROPERTIES ('bucket'='4', 'bucket-key'='k2,k1')"
    )
    src = "SELECT CAST(id % 50 AS INT), concat('key-', id), CAST(id AS DECIMAL(20,2)) / 7, CAST(id AS INT) FROM range(0, 900, 1, 3)"
    assert "(paimon_bucket_slot, 3, a#" in _plan(spark, f"INSERT INTO {db}.mk {src}")
    spark.sql(f"INSERT INTO {db}.mk {src}")
    files = _files_per_bucket(sql, db, "mk")
    assert files == {("{}", b): 1 for b in range(3)}
    assert sql(f"SELECT count(*), sum(v) FROM {db}.mk") == [(900, sum(range(900)))]

    src2 = "SELECT concat('k', id % 13), date_add(DATE'1960-01-01', CAST(id % 17 AS INT)), CAST(id AS INT) FROM range(0, 800, 1, 2)"
    plan = _plan(spark, f"INSERT INTO {db}.ap {src2}")
    assert "(paimon_bucket_slot, 4, k2#" in plan
    spark.sql(f"INSERT INTO {db}.ap {src2}")
    assert _files_per_bucket(sql, db, "ap") == {("{}", b): 1 for b in range(4)}
    assert sql(f"SELECT count(*), sum(v) FROM {db}.ap") == [(800, sum(range(800)))]


def test_timestamp3_key_uses_millis(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """A TIMESTAMP(3) key made by the engine (Spark makes TIMESTAMP(6)): hashed as epoch millis."""
    Catalog(spark_warehouse).create_table(
        f"{db}.ts3",
        pa.schema([pa.field("ts", pa.timestamp("ms"), nullable=False), ("v", pa.int32())]),
        primary_keys=["ts"],
        options={"bucket": "4"},
    )
    src = "SELECT timestamp_micros(id * 1234567 - 500000000000), CAST(id AS INT) FROM range(0, 1000, 1, 2)"
    plan = _plan(spark, f"INSERT INTO {db}.ts3 {src}")
    assert "(paimon_bucket_slot, 4, applyfunctionexpression(paimon_timestamp_millis, ts#" in plan
    spark.sql(f"INSERT INTO {db}.ts3 SELECT CAST(ts AS TIMESTAMP_NTZ), v FROM ({src}) AS s(ts, v)")
    assert _files_per_bucket(sql, db, "ts3") == {("{}", b): 1 for b in range(4)}
    assert sql(f"SELECT count(*), sum(v) FROM {db}.ts3") == [(1000, sum(range(1000)))]


def test_unsupported_bucket_key_type_falls_back(spark: Any, sql: Any, db: str) -> None:
    spark.sql(
        f"CREATE TABLE {db}.arr (k ARRAY<INT>, v INT) TBLPROPERTIES ('bucket'='2', 'bucket-key'='k')"
    )
    src = "SELECT array(CAST(id % 5 AS INT)), CAST(id AS INT) FROM range(0, 100, 1, 2)"
    assert "paimon_bucket" not in _plan(spark, f"INSERT INTO {db}.arr {src}")
    spark.sql(f"INSERT INTO {db}.arr {src}")
    assert sql(f"SELECT count(*), sum(v) FROM {db}.arr") == [(100, sum(range(100)))]


def test_dynamic_bucket_and_append_tables_keep_their_distribution(spark: Any, db: str) -> None:
    spark.sql(f"CREATE TABLE {db}.dyn (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id')")
    spark.sql(f"CREATE TABLE {db}.app (id BIGINT, v STRING)")
    plan = _plan(spark, f"INSERT INTO {db}.dyn SELECT id, 'x' FROM range(10)")
    assert "Exchange hashpartitioning(id#" in plan and "paimon_bucket" not in plan
    plan = _plan(spark, f"INSERT INTO {db}.app SELECT id, 'x' FROM range(10)")
    assert "Exchange" not in plan


def test_dataframe_writers_can_cluster_by_the_function(spark: Any, sql: Any, db: str, spark_warehouse: str) -> None:
    """Plain ``df.write`` (no catalog distribution) gets one file per bucket by repartitioning
    with the function."""
    from pyspark.sql import functions as F

    spark.sql(f"CREATE TABLE {db}.dfw (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket'='4')")
    df = spark.sql("SELECT id, CAST(id AS STRING) AS v FROM range(0, 1000, 1, 3)")
    (df.repartition(2, F.expr("paimon.sys.paimon_bucket(4, id)")).write.format("paimon_sql")
     .option("warehouse", spark_warehouse).option("table", f"{db}.dfw").mode("append").save())
    assert _files_per_bucket(sql, db, "dfw") == {("{}", b): 1 for b in range(4)}
    assert sql(f"SELECT count(*) FROM {db}.dfw") == [(1000,)]


def test_char_and_varchar_keys(spark: Any, sql: Any, db: str) -> None:
    """CHAR values reach the function and the writer padded alike."""
    spark.sql(
        f"CREATE TABLE {db}.cv (c CHAR(5), w VARCHAR(12), v INT) "
        "TBLPROPERTIES ('primary-key'='c,w', 'bucket'='4')"
    )
    src = "SELECT CAST(id % 7 AS STRING), concat('w', id), CAST(id AS INT) FROM range(0, 600, 1, 3)"
    assert "(paimon_bucket_slot, 4, c#" in _plan(spark, f"INSERT INTO {db}.cv {src}")
    spark.sql(f"INSERT INTO {db}.cv {src}")
    assert _files_per_bucket(sql, db, "cv") == {("{}", b): 1 for b in range(4)}
    assert sql(f"SELECT count(*), sum(v), max(length(c)) FROM {db}.cv") == [(600, sum(range(600)), 5)]
