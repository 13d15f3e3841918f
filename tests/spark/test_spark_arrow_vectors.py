"""Python-path scans hand Spark their Arrow batches as column vectors read straight from the
buffers (``ArrowDirectVector`` in the shim): every flat type, nulls at every bit position of the
validity bytes, empty strings and binaries, batches of a few rows (the vectors of each batch are
new), batches without any null, and the types left to Spark's own Arrow vector (decimal, array)."""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Iterator
from typing import Any

import pytest

NATIVE_CONF = "spark.paimon.read.native"
UTC = datetime.timezone.utc
COLUMNS = ("id BIGINT NOT NULL, b BOOLEAN, t TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, "
           "dt DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, str STRING, bin BINARY, dec DECIMAL(10,2), arr ARRAY<INT>")


@pytest.fixture()
def python_path(spark: Any) -> Iterator[None]:
    spark.conf.set(NATIVE_CONF, "false")
    try:
        yield
    finally:
        spark.conf.unset(NATIVE_CONF)


def _row(n: int, nulls: bool) -> tuple[Any, ...]:
    if nulls and n % 5 == 3:  # every nullable column null, at a different bit of the validity byte each time
        return (n, *([None] * 14))
    sign = -1 if n % 2 else 1
    return (
        n,
        n % 3 == 0,
        n % 250 - 125,
        sign * (n * 37 % 30000),
        sign * (n * 1_000_003 % 2_000_000_000),
        sign * n * 10**12,
        n / 4,
        sign * n / 3,
        datetime.date(2024, 1, 1) + datetime.timedelta(days=n * 40 - 600),
        datetime.datetime(2024, 1, 1, tzinfo=UTC) + datetime.timedelta(hours=n, microseconds=n),
        datetime.datetime(1969, 12, 31, 23, 59) + datetime.timedelta(days=n, microseconds=7 * n),
        "" if n % 7 == 0 else "\u00e9" * (n % 4) + f"s{n}",
        bytes([n % 256, 0, 255])[: n % 4],
        decimal.Decimal(n * sign) / 4,
        [] if n % 6 == 0 else [n, None] if n % 4 == 0 else [n],
    )


def _insert(spark: Any, table: str, rows: list[tuple[Any, ...]]) -> None:
    from pyspark.sql.types import StructType

    schema = StructType.fromDDL(COLUMNS)
    spark.createDataFrame(rows, schema).coalesce(1).writeTo(table).append()


def _as_read(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A written row as Spark collects it (timestamps in the session's time zone, UTC here)."""
    out = list(row)
    if out[9] is not None:
        out[9] = out[9].astimezone(UTC).replace(tzinfo=None)
    if out[12] is not None:
        out[12] = bytearray(out[12])
    if out[13] is not None:
        out[13] = decimal.Decimal(out[13]).quantize(decimal.Decimal("0.01"))
    return tuple(out)


def _collected(spark: Any, df: Any) -> list[tuple[Any, ...]]:
    rows = []
    for r in df.collect():
        t = list(r)
        if t[9] is not None and t[9].tzinfo is not None:
            t[9] = t[9].astimezone(UTC).replace(tzinfo=None)
        rows.append(tuple(t))
    return sorted(rows, key=lambda x: x[0])


@pytest.mark.usefixtures("python_path")
@pytest.mark.parametrize("batch_rows", ["7", "65536"])
def test_every_flat_type_with_nulls_reads_as_written(spark: Any, db: str, batch_rows: str) -> None:
    spark.sql(f"CREATE TABLE paimon.{db}.t ({COLUMNS})")
    rows = [_row(n, nulls=True) for n in range(45)]
    _insert(spark, f"paimon.{db}.t", rows)
    df = spark.read.option("paimon.read.batch-rows", batch_rows).table(f"paimon.{db}.t")
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "(Python)" in plan, plan
    assert _collected(spark, df) == [_as_read(r) for r in rows]
    # the null checks through Spark's generated code of a filter and an aggregate
    agg = spark.read.option("paimon.read.batch-rows", batch_rows).table(f"paimon.{db}.t").selectExpr(
        "count(b)", "count_if(b)", "sum(t)", "sum(s)", "sum(i)", "sum(l)", "sum(f)", "count(d)", "max(dt)",
        "min(ts)", "max(ntz)", "count(str)", "count_if(str = '')", "sum(length(bin))",
    ).collect()[0]
    live = [r for r in rows if r[1] is not None]
    assert tuple(agg) == (
        len(live), sum(1 for r in live if r[1]), sum(r[2] for r in live), sum(r[3] for r in live),
        sum(r[4] for r in live), sum(r[5] for r in live), sum(r[6] for r in live), len(live),
        max(r[8] for r in live), min(r[9] for r in live).astimezone(UTC).replace(tzinfo=None),
        max(r[10] for r in live), len(live), sum(1 for r in live if r[11] == ""), sum(len(r[12]) for r in live),
    )


@pytest.mark.usefixtures("python_path")
def test_batches_without_nulls_read_as_written(spark: Any, db: str) -> None:
    """Batches whose columns have no null (the vectors then read no validity bit), on a primary-key
    table whose two commits overlap (a merged read)."""
    spark.sql(f"CREATE TABLE paimon.{db}.pk ({COLUMNS}) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '2')")
    first = [_row(n, nulls=False) for n in range(0, 3000, 2)]
    second = [_row(n, nulls=False) for n in range(0, 3000, 3)]
    _insert(spark, f"paimon.{db}.pk", first)
    _insert(spark, f"paimon.{db}.pk", second)
    want = {r[0]: r for r in first} | {r[0]: r for r in second}
    df = spark.read.option("paimon.read.batch-rows", "1000").table(f"paimon.{db}.pk")
    assert _collected(spark, df) == [_as_read(want[k]) for k in sorted(want)]
    got = spark.sql(f"SELECT sum(l), sum(d), sum(length(str)), count_if(b) FROM paimon.{db}.pk").collect()[0]
    rows = list(want.values())
    assert got[0] == sum(r[5] for r in rows)
    assert got[1] == pytest.approx(sum(r[7] for r in rows))
    assert got[2] == sum(len(r[11]) for r in rows)
    assert got[3] == sum(1 for r in rows if r[1])
