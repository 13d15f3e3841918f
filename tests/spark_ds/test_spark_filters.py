"""Spark filter objects → engine predicates: which are accepted, and that accepted ones evaluate
exactly as Spark would (three-valued logic) on Arrow data."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pytest

pytest.importorskip("pyspark")

from pyspark.sql import datasource as sds  # noqa: E402

from paimon_sql import predicate as P  # noqa: E402
from paimon_sql.spark.filters import convert_filter, convert_filters  # noqa: E402
from paimon_sql.types import (  # noqa: E402
    ArrayType,
    BigIntType,
    DataField,
    DecimalType,
    DoubleType,
    IntType,
    LocalZonedTimestampType,
    TimestampType,
    TimeType,
    VarCharType,
)

FIELDS = [
    DataField(0, "id", BigIntType(nullable=False)),
    DataField(1, "k", VarCharType(100)),
    DataField(2, "v", DoubleType()),
    DataField(3, "d", DecimalType(10, 2)),
    DataField(4, "ts", TimestampType(6)),
    DataField(5, "lts", LocalZonedTimestampType(6)),
    DataField(6, "nts", TimestampType(9)),
    DataField(7, "tm", TimeType(3)),
    DataField(8, "arr", ArrayType(IntType())),
    DataField(9, "Mixed", IntType()),
]


def test_simple_filters_become_leaves() -> None:
    assert convert_filter(sds.EqualTo(("id",), 3), FIELDS) == P.equal("id", 3)
    assert convert_filter(sds.GreaterThan(("id",), 3), FIELDS) == P.greater_than("id", 3)
    assert convert_filter(sds.GreaterThanOrEqual(("id",), 3), FIELDS) == P.greater_or_equal("id", 3)
    assert convert_filter(sds.LessThan(("id",), 3), FIELDS) == P.less_than("id", 3)
    assert convert_filter(sds.LessThanOrEqual(("id",), 3), FIELDS) == P.less_or_equal("id", 3)
    assert convert_filter(sds.In(("k",), ("a", "b")), FIELDS) == P.is_in("k", ["a", "b"])
    assert convert_filter(sds.IsNull(("k",)), FIELDS) == P.is_null("k")
    assert convert_filter(sds.IsNotNull(("k",)), FIELDS) == P.is_not_null("k")
    assert convert_filter(sds.StringStartsWith(("k",), "ab"), FIELDS) == P.starts_with("k", "ab")
    assert convert_filter(sds.StringEndsWith(("k",), "ab"), FIELDS) == P.ends_with("k", "ab")
    assert convert_filter(sds.StringContains(("k",), "ab"), FIELDS) == P.contains("k", "ab")
    assert convert_filter(sds.Not(sds.EqualTo(("id",), 3)), FIELDS) == P.not_(P.equal("id", 3))
    assert convert_filter(sds.EqualTo(("d",), Decimal("1.50")), FIELDS) == P.equal("d", Decimal("1.50"))


def test_null_safe_equality() -> None:
    assert convert_filter(sds.EqualNullSafe(("k",), "a"), FIELDS) == P.equal("k", "a")
    assert convert_filter(sds.EqualNullSafe(("k",), None), FIELDS) == P.is_null("k")
    assert convert_filter(sds.Not(sds.EqualNullSafe(("k",), None)), FIELDS) == P.is_not_null("k")
    assert convert_filter(sds.Not(sds.EqualNullSafe(("k",), "a")), FIELDS) == P.or_(
        P.is_null("k"), P.not_equal("k", "a")
    )


def test_refused_filters() -> None:
    refused = [
        sds.EqualTo(("v",), 1.0),  # float semantics (NaN) differ
        sds.GreaterThan(("v",), float("nan")),
        sds.EqualTo(("tm",), dt.time(1, 2)),  # TIME
        sds.EqualTo(("nts",), dt.datetime(2024, 1, 1)),  # nanosecond timestamps
        sds.EqualTo(("arr",), [1]),  # nested
        sds.EqualTo(("s", "x"), 1),  # nested path
        sds.EqualTo(("nope",), 1),  # unknown column
        sds.StringStartsWith(("id",), "1"),  # string op on a number
        sds.EqualTo(("id",), "3"),  # literal of the wrong type
        sds.EqualTo(("id",), True),
        sds.EqualTo(("ts",), dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)),  # NTZ needs naive
        sds.EqualTo(("lts",), dt.datetime(2024, 1, 1)),  # LTZ needs aware
        sds.In(("id",), ()),
        sds.Not(sds.EqualTo(("v",), 1.0)),
    ]
    for f in refused:
        assert convert_filter(f, FIELDS) is None, f


def test_case_insensitive_columns_and_timezones() -> None:
    assert convert_filter(sds.EqualTo(("mixed",), 1), FIELDS) == P.equal("Mixed", 1)
    berlin = dt.timezone(dt.timedelta(hours=1))
    leaf = convert_filter(sds.EqualTo(("lts",), dt.datetime(2024, 1, 1, 1, 0, tzinfo=berlin)), FIELDS)
    assert isinstance(leaf, P.Leaf)
    assert leaf.literals[0] == dt.datetime(2024, 1, 1, 0, 0, tzinfo=dt.timezone.utc)
    assert leaf.literals[0].tzinfo == dt.timezone.utc


def test_convert_filters_returns_the_same_objects() -> None:
    a, b, c = sds.EqualTo(("id",), 1), sds.EqualTo(("v",), 1.0), sds.IsNull(("k",))
    accepted, rejected = convert_filters([a, b, c], FIELDS)
    assert [f for f, _ in accepted] == [a, c]
    assert rejected == [b] and rejected[0] is b


def _spark_semantics_rows(table: pa.Table, f: sds.Filter) -> list[int]:
    pred = convert_filter(f, FIELDS)
    assert pred is not None
    return table.filter(P.to_arrow_expression(pred)).column("id").to_pylist()


def test_accepted_filters_keep_sql_null_semantics() -> None:
    t = pa.table({"id": [1, 2, 3], "k": ["a", None, "b"]})
    assert _spark_semantics_rows(t, sds.Not(sds.EqualTo(("k",), "a"))) == [3]  # NULL <> 'a' is NULL
    assert _spark_semantics_rows(t, sds.Not(sds.EqualNullSafe(("k",), "a"))) == [2, 3]
    assert _spark_semantics_rows(t, sds.In(("k",), ("a", None))) == [1]
    assert _spark_semantics_rows(t, sds.Not(sds.In(("k",), ("a", None)))) == []  # NOT IN with NULL
    assert _spark_semantics_rows(t, sds.Not(sds.In(("k",), ("a",)))) == [3]
    assert _spark_semantics_rows(t, sds.Not(sds.IsNull(("k",)))) == [1, 3]
    assert _spark_semantics_rows(t, sds.Not(sds.StringStartsWith(("k",), "a"))) == [3]
