"""Paimon's cast rules (paimon_sql.casting) against values Apache Paimon produces.

Expected values come from Paimon's cast rules (paimon-common/.../casting/*CastRule.java,
BinaryStringUtils, DateTimeUtils, DecimalUtils) and from the Java-written corpus tables
append_table_alter_table_with_cast, append_with_cast_timestamp and pk_table_with_mor.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql import casting
from paimon_sql import types as pt
from paimon_sql.casting import can_cast, cast_array, normalize_array
from paimon_sql.errors import UnsupportedError, ValidationError

STRING = pt.VarCharType()
UTC = dt.timezone.utc


def cast(values: list[Any], source: pt.DataType, target: pt.DataType, arrow_type: pa.DataType | None = None) -> list[Any]:
    arr = pa.array(values, arrow_type or pt.to_arrow_type(source))
    out = cast_array(arr, source, target)
    assert out.type.equals(pt.to_arrow_type(target))
    return out.to_pylist()


def ts(*args: int) -> dt.datetime:
    return dt.datetime(*args)  # type: ignore[arg-type]


def ts_ns(iso: str) -> pa.Array:
    return pa.array([iso]).cast(pa.timestamp("ns"))


# ----------------------------------------------------------------------------------------------
# The corpus tables' casts
# ----------------------------------------------------------------------------------------------


def test_alter_table_with_cast_string_to_boolean() -> None:
    # f3 STRING -> BOOLEAN: 'True', '1', 'nO', '0', 'Yes' (README) read True, True, False, False, True
    assert cast(["True", "1", "nO", "0", "Yes", None], STRING, pt.BooleanType()) == [True, True, False, False, True, None]


def test_alter_table_with_cast_string_to_int() -> None:
    assert cast(["100", "110", "120", "130", "140"], STRING, pt.IntType()) == [100, 110, 120, 130, 140]


def test_alter_table_with_cast_timestamp9_to_string() -> None:
    arr = ts_ns("2024-11-26 06:38:56.021000021")
    assert cast_array(arr, pt.TimestampType(9), STRING).to_pylist() == ["2024-11-26 06:38:56.021000021"]


def test_alter_table_with_cast_decimal_widening() -> None:
    src = pt.DecimalType(5, 2)
    values = [Decimal("0.02"), Decimal("11.12"), Decimal("333.32"), Decimal("-999.42")]
    assert cast(values, src, pt.DecimalType(6, 3)) == [Decimal("0.020"), Decimal("11.120"), Decimal("333.320"),
                                                     Decimal("-999.420")]


def test_alter_table_with_cast_date_to_timestamp9() -> None:
    out = cast([dt.date(1970, 1, 5), dt.date(1969, 11, 18), dt.date(2091, 9, 7)], pt.DateType(), pt.TimestampType(9))
    assert out == [ts(1970, 1, 5), ts(1969, 11, 18), ts(2091, 9, 7)]


def test_cast_timestamp_table() -> None:
    """append_with_cast_timestamp: schema 0 -> schema 1, session time zone UTC."""
    assert cast([ts(1970, 1, 1, 0, 0, 5), ts(1970, 1, 1, 0, 0, 1)], pt.TimestampType(0), pt.IntType()) == [5, 1]
    assert cast([ts(1970, 1, 1, 0, 0, 0, 5000)], pt.TimestampType(3), pt.DateType()) == [dt.date(1970, 1, 1)]
    assert cast([ts(1970, 1, 1, 0, 0, 0, 1)], pt.TimestampType(6), STRING) == ["1970-01-01 00:00:00.000001"]
    nano = cast_array(ts_ns("1970-01-01 00:00:00.000000001"), pt.TimestampType(9), pt.LocalZonedTimestampType(9))
    assert nano.type == pa.timestamp("ns", tz="UTC") and nano.view(pa.int64()).to_pylist() == [1]
    ltz = [dt.datetime(1970, 1, 1, 0, 0, 6, tzinfo=UTC)]
    assert cast(ltz, pt.LocalZonedTimestampType(0), pt.IntType()) == [6]
    assert cast(ltz, pt.LocalZonedTimestampType(3), pt.DateType()) == [dt.date(1970, 1, 1)]
    micro = [dt.datetime(1970, 1, 1, 0, 0, 0, 6, tzinfo=UTC)]
    assert cast(micro, pt.LocalZonedTimestampType(6), STRING) == ["1970-01-01 00:00:00.000006"]
    back = cast_array(pa.array([2], pa.timestamp("ns", tz="UTC")), pt.LocalZonedTimestampType(9), pt.TimestampType(9))
    assert back.type == pa.timestamp("ns") and back.view(pa.int64()).to_pylist() == [2]
    assert cast([-1, 0, 1], pt.IntType(), pt.TimestampType(0)) == [ts(1969, 12, 31, 23, 59, 59), ts(1970, 1, 1),
                                                               ts(1970, 1, 1, 0, 0, 1)]
    assert cast([-1], pt.IntType(), pt.LocalZonedTimestampType(6)) == [dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC)]


def test_pk_table_with_mor_casts() -> None:
    # s1 STRING -> BYTES, v0 DOUBLE -> INT (truncation), v1 BOOLEAN -> STRING
    assert cast(["see", "later", "!"], STRING, pt.VarBinaryType()) == [b"see", b"later", b"!"]
    assert cast([110.0, 12.2, 11.1, 13.3, 140.4], pt.DoubleType(), pt.IntType()) == [110, 12, 11, 13, 140]
    assert cast([False, True], pt.BooleanType(), STRING) == ["false", "true"]


# ----------------------------------------------------------------------------------------------
# Numeric rules
# ----------------------------------------------------------------------------------------------


def test_integer_narrowing_wraps_like_java() -> None:
    assert cast([383, -129, 127, None], pt.IntType(), pt.TinyIntType()) == [127, 127, 127, None]
    assert cast([2**40 + 5, -(2**33) - 1], pt.BigIntType(), pt.IntType()) == [5, -1]
    assert cast([70000], pt.IntType(), pt.SmallIntType()) == [4464]


def test_floating_to_integral_java_narrowing() -> None:
    # NaN -> 0, saturation at int (long for BIGINT), byte/short wrap the saturated int
    values = [11.9, -11.9, float("nan"), 1e300, -1e300, 300.7, None]
    assert cast(values, pt.DoubleType(), pt.IntType()) == [11, -11, 0, 2**31 - 1, -(2**31), 300, None]
    assert cast(values, pt.DoubleType(), pt.TinyIntType()) == [11, -11, 0, -1, 0, 44, None]
    assert cast(values, pt.DoubleType(), pt.BigIntType()) == [11, -11, 0, 2**63 - 1, -(2**63), 300, None]
    assert cast([3.9], pt.FloatType(), pt.SmallIntType()) == [3]


def test_integral_and_floating_widening() -> None:
    assert cast([2**53 + 1], pt.BigIntType(), pt.DoubleType()) == [float(2**53)]
    assert cast([16777217], pt.IntType(), pt.FloatType()) == [16777216.0]
    assert cast([3.1], pt.FloatType(), pt.DoubleType()) == [3.0999999046325684]
    assert cast([1e300], pt.DoubleType(), pt.FloatType()) == [float("inf")]


def test_decimal_to_decimal_half_up_and_overflow_null() -> None:
    src = pt.DecimalType(6, 3)
    values = [Decimal("22.225"), Decimal("-999.425"), Decimal("999.995"), Decimal("0.004"), None]
    assert cast(values, src, pt.DecimalType(5, 2)) == [Decimal("22.23"), Decimal("-999.43"), None, Decimal("0.00"), None]
    # fewer integer digits, same scale: overflow reads null
    assert cast([Decimal("12.5"), Decimal("1.5")], pt.DecimalType(3, 1), pt.DecimalType(2, 1)) == [None, Decimal("1.5")]
    # precision 38 source rounding up past its precision
    big = Decimal("9" * 37 + ".5")
    assert cast([big], pt.DecimalType(38, 1), pt.DecimalType(38, 0)) == [Decimal(10**37)]
    both = pa.concat_arrays([pa.array([big], pa.decimal128(38, 1)), pc.negate(pa.array([big], pa.decimal128(38, 1)))])
    assert cast_array(both, pt.DecimalType(38, 1), pt.DecimalType(37, 0)).to_pylist() == [None, None]
    assert cast([Decimal("1.5")], pt.DecimalType(38, 1), pt.DecimalType(38, 0)) == [Decimal("2")]


def test_decimal_to_numeric() -> None:
    src = pt.DecimalType(19, 1)
    values = [Decimal("1.9"), Decimal("-1.9"), Decimal("123456789012345678.9"), None]
    # rounded toward zero, the long's low 32 bits for INT
    assert cast(values, src, pt.BigIntType()) == [1, -1, 123456789012345678, None]
    low = 123456789012345678 & 0xFFFFFFFF
    assert cast(values, src, pt.IntType()) == [1, -1, low - 2**32 if low >= 2**31 else low, None]
    assert cast([Decimal("1.25"), Decimal("-0.1")], pt.DecimalType(3, 2), pt.DoubleType()) == [1.25, -0.1]
    assert cast([Decimal("0.1")], pt.DecimalType(20, 1), pt.FloatType()) == [float(pa.scalar(0.1, pa.float32()).as_py())]
    # beyond 64 bits: BigInteger.longValue keeps the low 64 bits
    huge = Decimal(2**64 + 7)
    assert cast([huge], pt.DecimalType(38, 0), pt.BigIntType()) == [7]


def test_numeric_to_decimal() -> None:
    assert cast([10, 3, -9, None], pt.IntType(), pt.DecimalType(2, 1)) == [None, Decimal("3.0"), Decimal("-9.0"), None]
    assert cast([2**62], pt.BigIntType(), pt.DecimalType(38, 18)) == [Decimal(2**62)]
    # a double goes through its shortest decimal string (BigDecimal.valueOf), then HALF_UP
    assert cast([1.255, 2.675, -0.125], pt.DoubleType(), pt.DecimalType(5, 2)) == [Decimal("1.26"), Decimal("2.68"),
                                                                            Decimal("-0.13")]
    # FLOAT widens to double first: 3.1f is 3.0999999046325684
    assert cast([3.1], pt.FloatType(), pt.DecimalType(10, 8)) == [Decimal("3.09999990")]
    with pytest.raises(ValidationError, match="DECIMAL"):
        cast([float("nan")], pt.DoubleType(), pt.DecimalType(5, 2))


def test_boolean_numeric_rules() -> None:
    assert cast([True, False, None], pt.BooleanType(), pt.TinyIntType()) == [1, 0, None]
    assert cast([True], pt.BooleanType(), pt.DoubleType()) == [1.0]
    assert cast([True, False], pt.BooleanType(), pt.DecimalType(1, 1)) == [None, Decimal("0.0")]
    assert cast([0, 5, -1, None], pt.BigIntType(), pt.BooleanType()) == [False, True, True, None]


def test_integral_to_timestamp_only_int_and_bigint() -> None:
    assert cast([86400], pt.BigIntType(), pt.TimestampType(3)) == [ts(1970, 1, 2)]
    with pytest.raises(UnsupportedError, match="TINYINT.*TIMESTAMP"):
        cast([1], pt.TinyIntType(), pt.TimestampType(3))
    with pytest.raises(UnsupportedError, match="DOUBLE.*TIMESTAMP"):
        cast([1.0], pt.DoubleType(), pt.TimestampType(3))


# ----------------------------------------------------------------------------------------------
# To string
# ----------------------------------------------------------------------------------------------


def test_double_and_float_to_string_java_format() -> None:
    values = [1.5, 3.0999999046325684, 1e-5, 1e7, 9999999.0, 0.001, 123456.0, -0.0, float("inf"), float("nan"), None]
    assert cast(values, pt.DoubleType(), STRING) == ["1.5", "3.0999999046325684", "1.0E-5", "1.0E7", "9999999.0",
                                                  "0.001", "123456.0", "-0.0", "Infinity", "NaN", None]
    assert cast([3.1, 1e10, 0.1], pt.FloatType(), STRING) == ["3.1", "1.0E10", "0.1"]


def test_numeric_to_string_cut_and_pad() -> None:
    assert cast([123456, -5], pt.IntType(), pt.VarCharType(3)) == ["123", "-5"]
    assert cast([7], pt.IntType(), pt.CharType(3)) == ["7  "]
    assert cast([Decimal("0.00"), Decimal("-0.02")], pt.DecimalType(5, 2), STRING) == ["0.00", "-0.02"]
    assert cast([True], pt.BooleanType(), pt.CharType(1)) == ["t"]


def test_string_to_string_by_code_points() -> None:
    assert cast(["a😀bc", "é", None], STRING, pt.VarCharType(2)) == ["a😀", "é", None]
    assert cast(["ab"], STRING, pt.CharType(4)) == ["ab  "]
    assert cast(["abcdef"], pt.CharType(6), pt.CharType(3)) == ["abc"]


def test_timestamp_to_string_fraction() -> None:
    values = [ts(2024, 11, 26, 6, 38, 56, 21000), ts(1969, 12, 31, 23, 59, 58, 500000), ts(2024, 1, 1)]
    assert cast(values, pt.TimestampType(6), STRING) == ["2024-11-26 06:38:56.021000", "1969-12-31 23:59:58.500000",
                                                     "2024-01-01 00:00:00.000000"]
    assert cast(values, pt.TimestampType(3), STRING) == ["2024-11-26 06:38:56.021", "1969-12-31 23:59:58.500",
                                                     "2024-01-01 00:00:00.000"]
    assert cast([ts(2024, 1, 1, 0, 0, 5)], pt.TimestampType(0), STRING) == ["2024-01-01 00:00:05"]
    # a value with more digits than its precision keeps its significant digits
    assert cast([ts(2024, 1, 1, 0, 0, 5, 120000)], pt.TimestampType(0), STRING) == ["2024-01-01 00:00:05.12"]
    assert cast([ts(5, 1, 2, 3, 4, 5)], pt.TimestampType(6), STRING) == ["0005-01-02 03:04:05.000000"]
    nanos = cast_array(ts_ns("2024-11-26 06:38:56.100000000"), pt.TimestampType(9), STRING).to_pylist()
    assert nanos == ["2024-11-26 06:38:56.100000000"]


def test_date_time_to_string() -> None:
    assert cast([dt.date(2024, 2, 29), dt.date(5, 1, 2), None], pt.DateType(), STRING) == ["2024-02-29", "0005-01-02",
                                                                                        None]
    times = [dt.time(10, 20, 30, 120000), dt.time(0, 0), dt.time(23, 59, 59, 999000), None]
    assert cast(times, pt.TimeType(3), STRING) == ["10:20:30.12", "00:00:00.0", "23:59:59.999", None]
    assert cast(times, pt.TimeType(0), STRING) == ["10:20:30", "00:00:00", "23:59:59", None]
    assert cast(times, pt.TimeType(2), STRING) == ["10:20:30.12", "00:00:00.0", "23:59:59.99", None]


def test_date_time_timestamp_to_string_only_to_nullable_string() -> None:
    for src in (pt.DateType(), pt.TimeType(), pt.TimestampType(3), pt.LocalZonedTimestampType(3)):
        assert can_cast(src, STRING)
        for target in (pt.VarCharType(20), pt.CharType(20), pt.VarCharType(nullable=False)):
            assert not can_cast(src, target)
            with pytest.raises(UnsupportedError, match=re.escape(src.to_string())):
                cast_array(pa.array([], pt.to_arrow_type(src)), src, target)


def test_binary_to_string_and_back() -> None:
    assert cast([b"abc", b"\xff", None], pt.VarBinaryType(), pt.VarCharType(2)) == ["abc", "\ufffd", None]
    assert cast(["abc", "a"], STRING, pt.BinaryType(2)) == [b"ab", b"a\x00"]
    assert cast(["abcdef"], STRING, pt.VarBinaryType(4)) == [b"abcd"]
    assert cast([b"abc"], pt.BinaryType(3), pt.BinaryType(5)) == [b"abc\x00\x00"]


def test_nested_to_string() -> None:
    arr_t = pt.ArrayType(pt.IntType())
    assert cast([[1, None, 3], [], None], arr_t, pt.VarCharType(3)) == ["[1, null, 3]", "[]", None]
    map_t = pt.MapType(STRING, pt.DateType())
    assert cast([[("a", dt.date(2024, 1, 2)), ("b", None)]], map_t, STRING) == ["{a -> 2024-01-02, b -> null}"]
    row_t = pt.RowType((pt.DataField(1, "a", pt.IntType()), pt.DataField(2, "b", pt.ArrayType(pt.BooleanType()))))
    assert cast([{"a": 1, "b": [True]}, {"a": None, "b": None}, None], row_t, STRING) == [
        "{1, [true]}", "{null, null}", None]


# ----------------------------------------------------------------------------------------------
# From string
# ----------------------------------------------------------------------------------------------


def test_string_to_boolean_sets() -> None:
    trues = ["t", "TRUE", "y", "Yes", "1"]
    falses = ["F", "false", "N", "nO", "0"]
    assert cast(trues + falses + [None], STRING, pt.BooleanType()) == [True] * 5 + [False] * 5 + [None]
    for bad in ["x", " true", "2", ""]:
        with pytest.raises(ValidationError, match="BOOLEAN"):
            cast(["t", bad], STRING, pt.BooleanType())


def test_string_to_integral_java_parsing() -> None:
    assert cast(["120", "-5.9", "+7", "+.", ".5", "0012", "-0", None], STRING, pt.IntType()) == [
        120, -5, 7, 0, 0, 12, 0, None]
    assert cast(["-9223372036854775808"], STRING, pt.BigIntType()) == [-(2**63)]
    assert cast(["-128", "127"], STRING, pt.TinyIntType()) == [-128, 127]
    for bad, target in [("2147483648", pt.IntType()), ("128", pt.TinyIntType()), ("40000", pt.SmallIntType()),
                        ("9223372036854775808", pt.BigIntType()), (" 1", pt.IntType()), ("1e3", pt.IntType()),
                        ("+", pt.IntType()), ("", pt.IntType()), ("1.2.3", pt.IntType()), ("١", pt.IntType())]:
        with pytest.raises(ValidationError, match=target.to_string()):
            cast([bad], STRING, target)


def test_string_to_floating_java_parsing() -> None:
    values = [" 1.5f ", "NaN", "-Infinity", "0x1.8p1", "1e400", "5.", ".5D", "+2E-1", None]
    out = cast(values, STRING, pt.DoubleType())
    assert out[0] == 1.5 and out[1] != out[1] and out[2] == float("-inf") and out[3] == 3.0
    assert out[4:] == [float("inf"), 5.0, 0.5, 0.2, None]
    assert cast(["3.1"], STRING, pt.FloatType()) == [3.0999999046325684]
    for bad in ["inf", "nan", "1_0", "0x10", "", "e5", "Infinityf"]:
        with pytest.raises(ValidationError, match="DOUBLE"):
            cast([bad], STRING, pt.DoubleType())


def test_string_to_decimal() -> None:
    assert cast(["1.25", "-1.255", "1e2", "999.995", ".5", "+3.", None], STRING, pt.DecimalType(5, 2)) == [
        Decimal("1.25"), Decimal("-1.26"), Decimal("100.00"), None, Decimal("0.50"), Decimal("3.00"), None]
    assert cast(["1e999999999", "1e-999999999"], STRING, pt.DecimalType(5, 2)) == [None, Decimal("0.00")]
    for bad in [" 1", "NaN", "1,5", ""]:
        with pytest.raises(ValidationError, match="DECIMAL"):
            cast([bad], STRING, pt.DecimalType(5, 2))


def test_string_to_date() -> None:
    values = ["2024-02-29", "2024-1-5", "2024-1-5 junk", "2024", "-5", "2024-03", " 2024-01-02", "0000-01-01", None]
    out = cast_array(pa.array(values), STRING, pt.DateType()).view(pa.int32()).to_pylist()
    assert out == [19782, 19727, 19727, 2024, -5, 19783, 19724, -719528, None]
    for bad in ["2024-02-30", "2023-02-29", "2024-04-31", "2024-01-01T10:00", "10000-01-01", "abc", ""]:
        with pytest.raises(ValidationError, match="DATE"):
            cast([bad], STRING, pt.DateType())


def test_string_to_time() -> None:
    values = ["10:20:30.1234", "10", "10:20", "10:20:30.1235", "10:20:30", "5000", None]
    expected = [37230123, 10, 37200000, 37230124, 37230000, 5000, None]  # all digits: millis
    assert cast_array(pa.array(values), STRING, pt.TimeType()).view(pa.int32()).to_pylist() == expected
    for bad in ["10:20+01:30", "ab", "10:xx"]:
        with pytest.raises(ValidationError, match="TIME"):
            cast([bad], STRING, pt.TimeType())


def test_string_to_timestamp() -> None:
    values = ["2024-02-30 10:00:00", "2024-1-5T1:2", "2024-01-01 10:00:00.123456789", "2024-01-01",
              "2024-01-01 24:00:00", "2024-01-01 10:00:00.", "+12024-01-01", None]
    out = cast_array(pa.array(values), STRING, pt.TimestampType(6))
    assert out.slice(0, 6).to_pylist() == [ts(2024, 2, 29, 10), ts(2024, 1, 5, 1, 2), ts(2024, 1, 1, 10, 0, 0, 123456),
                                           ts(2024, 1, 1), ts(2024, 1, 2), ts(2024, 1, 1, 10)]
    assert out[7].as_py() is None
    days = sum(366 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 365 for y in range(1970, 12024))
    assert cast_array(pa.array(["+12024-01-01"]), STRING, pt.TimestampType(3)).view(pa.int64()).to_pylist() == [
        days * 86_400_000]
    # all-digit strings are epoch counts in the precision's unit (TIMESTAMP only)
    assert cast(["12345", "-2"], STRING, pt.TimestampType(0)) == [ts(1970, 1, 1, 3, 25, 45), ts(1969, 12, 31, 23, 59, 58)]
    assert cast(["12345"], STRING, pt.TimestampType(6)) == [ts(1970, 1, 1, 0, 0, 0, 12345)]
    with pytest.raises(ValidationError, match="precision"):
        cast(["12345"], STRING, pt.TimestampType(2))
    with pytest.raises(ValidationError, match="LOCAL TIME ZONE"):
        cast(["12345"], STRING, pt.LocalZonedTimestampType(3))
    assert cast(["2024-01-01 10:00:00.987654321"], STRING, pt.LocalZonedTimestampType(3)) == [
        dt.datetime(2024, 1, 1, 10, 0, 0, 987000, tzinfo=UTC)]
    for bad in ["2024-01-01 10:00", "2024-01-01 25:00:00", "0000-01-01", "2024-13-01", "2024-01-01Z", " 2024-01-01",
                "12024-01-01"]:
        with pytest.raises(ValidationError, match="TIMESTAMP"):
            cast([bad], STRING, pt.TimestampType(3))


def test_string_to_nested() -> None:
    assert cast(["[1, 2, null]", "ARRAY()", " array( 3 ) ", "[]", None], STRING, pt.ArrayType(pt.IntType())) == [
        [1, 2, None], [], [3], [], None]
    m = pt.MapType(STRING, pt.IntType())
    assert cast(["{a -> 1, b -> null}", "MAP(x, 2, y, 3)", "null", "{}", "{a -> 1, a -> 2}"], STRING, m) == [
        [("a", 1), ("b", None)], [("x", 2), ("y", 3)], None, [], [("a", 2)]]
    r = pt.RowType((pt.DataField(1, "a", pt.IntType()), pt.DataField(2, "b", STRING)))
    assert cast(["{1, hi}", "{}", "STRUCT(2, null)"], STRING, r) == [
        {"a": 1, "b": "hi"}, {"a": None, "b": None}, {"a": 2, "b": None}]
    with pytest.raises(ValidationError, match="expected 2 fields"):
        cast(["{1}"], STRING, r)
    with pytest.raises(ValidationError, match="ARRAY"):
        cast(["1, 2"], STRING, pt.ArrayType(pt.IntType()))


def test_string_to_array_keeps_quotes() -> None:
    assert cast(['["a,b", c]'], STRING, pt.ArrayType(STRING)) == [['"a,b"', "c"]]
    # the map splitter drops quotes and escapes
    assert cast(['{"a,b" -> 1}'], STRING, pt.MapType(STRING, pt.IntType())) == [[("a,b", 1)]]


# ----------------------------------------------------------------------------------------------
# Date / time / timestamp rules
# ----------------------------------------------------------------------------------------------


def test_timestamp_precision_truncation() -> None:
    # to 0..3 digits: epoch millis lose digits toward zero; to 4..9: nanos of the milli floored
    t = pt.TimestampType
    assert cast([ts(1969, 12, 31, 23, 59, 58, 500000)], t(3), t(0)) == [ts(1969, 12, 31, 23, 59, 59)]
    assert cast([ts(2024, 1, 1, 0, 0, 1, 999999)], t(6), t(0)) == [ts(2024, 1, 1, 0, 0, 1)]
    assert cast([ts(1969, 12, 31, 23, 59, 58, 449999)], t(6), t(1)) == [ts(1969, 12, 31, 23, 59, 58, 500000)]
    assert cast([ts(1969, 12, 31, 23, 59, 59, 999999)], t(6), t(3)) == [ts(1969, 12, 31, 23, 59, 59, 999000)]
    assert cast([ts(1969, 12, 31, 23, 59, 59, 123456)], t(6), t(4)) == [ts(1969, 12, 31, 23, 59, 59, 123400)]
    ns = cast_array(pa.array([-1], pa.timestamp("ns")), t(9), t(7)).view(pa.int64()).to_pylist()
    assert ns == [-100]
    assert cast([ts(2024, 1, 1, 0, 0, 1, 5000)], t(3), t(9)) == [ts(2024, 1, 1, 0, 0, 1, 5000)]
    with pytest.raises(ValidationError, match="range"):
        cast([ts(3000, 1, 1)], t(6), t(9))


def test_timestamp_to_date_time_numeric() -> None:
    values = [ts(1969, 12, 31, 23, 59, 58, 500000), ts(2024, 3, 1, 10, 0, 0, 1000), None]
    assert cast(values, pt.TimestampType(6), pt.DateType()) == [dt.date(1969, 12, 31), dt.date(2024, 3, 1), None]
    assert cast(values, pt.TimestampType(6), pt.TimeType(3)) == [dt.time(23, 59, 58, 500000), dt.time(10, 0, 0, 1000), None]
    # millis / 1000 truncated toward zero
    assert cast(values, pt.TimestampType(6), pt.BigIntType()) == [-1, 1709287200, None]
    assert cast([ts(2100, 1, 1)], pt.TimestampType(3), pt.IntType()) == [4102444800 - 2**32]
    for target in (pt.TinyIntType(), pt.SmallIntType(), pt.FloatType(), pt.DoubleType(), pt.DecimalType(10, 0), pt.BooleanType()):
        assert not can_cast(pt.TimestampType(3), target)


def test_date_time_to_timestamp() -> None:
    assert cast([dt.date(1969, 12, 31), None], pt.DateType(), pt.LocalZonedTimestampType(3)) == [
        dt.datetime(1969, 12, 31, tzinfo=UTC), None]
    assert cast([dt.time(10, 20, 30, 5000)], pt.TimeType(3), pt.TimestampType(6)) == [ts(1970, 1, 1, 10, 20, 30, 5000)]


# ----------------------------------------------------------------------------------------------
# Resolution, nested types, normalisation
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (pt.DecimalType(5, 2), pt.BooleanType()),
        (pt.FloatType(), pt.BooleanType()),
        (pt.BooleanType(), pt.TimestampType(3)),
        (pt.DateType(), pt.IntType()),
        (pt.TimestampType(3), pt.DecimalType(10, 2)),
        (pt.VarBinaryType(), pt.IntType()),
        (pt.MultisetType(pt.IntType()), pt.MultisetType(pt.BigIntType())),
        (pt.VectorType(pt.FloatType(), 3), pt.VectorType(pt.DoubleType(), 3)),
        (pt.MapType(pt.IntType(nullable=False), pt.IntType()), pt.MapType(pt.BigIntType(nullable=False), pt.IntType())),
        (pt.ArrayType(pt.IntType()), pt.ArrayType(pt.DateType())),
        (STRING, pt.ArrayType(pt.VectorType(pt.FloatType(), 2))),
        (pt.IntType(), pt.ArrayType(pt.IntType())),
        (pt.ArrayType(pt.VarBinaryType()), pt.MapType(pt.IntType(), pt.IntType())),
    ],
)
def test_unsupported_casts_name_both_types(source: pt.DataType, target: pt.DataType) -> None:
    assert not can_cast(source, target)
    with pytest.raises(UnsupportedError) as e:
        cast_array(pa.array([], pt.to_arrow_type(source)), source, target)
    assert source.to_string() in str(e.value) and target.to_string() in str(e.value)


def test_identity_ignores_top_level_nullability() -> None:
    arr = pa.array([1, 2], pa.int32())
    assert cast_array(arr, pt.IntType(), pt.IntType(nullable=False)) is arr


def test_row_to_row_by_field_id() -> None:
    src = pt.RowType((pt.DataField(1, "a", pt.IntType()), pt.DataField(2, "b", STRING), pt.DataField(3, "gone", pt.IntType())))
    tgt = pt.RowType((pt.DataField(2, "b_renamed", pt.IntType()), pt.DataField(1, "a", pt.BigIntType()),
                   pt.DataField(4, "added", STRING)))
    values = [{"a": 1, "b": "10", "gone": 5}, None, {"a": None, "b": None, "gone": None}]
    assert cast(values, src, tgt) == [{"b_renamed": 10, "a": 1, "added": None}, None,
                                      {"b_renamed": None, "a": None, "added": None}]


def test_array_and_map_element_casts_on_slices() -> None:
    arr = pa.array([[9], [1, None], None, [3]], pa.list_(pa.int32())).slice(1)
    assert cast_array(arr, pt.ArrayType(pt.IntType()), pt.ArrayType(STRING)).to_pylist() == [["1", None], None, ["3"]]
    m = pa.array([[("k", 1.5)], None, [("x", -2.7), ("y", None)]], pa.map_(pa.string(), pa.float64())).slice(1)
    out = cast_array(m, pt.MapType(STRING, pt.DoubleType()), pt.MapType(STRING, pt.IntType()))
    assert out.to_pylist() == [None, [("x", -2), ("y", None)]]


def test_nested_row_inside_array() -> None:
    src = pt.ArrayType(pt.RowType((pt.DataField(5, "x", pt.IntType()),)))
    tgt = pt.ArrayType(pt.RowType((pt.DataField(5, "y", pt.BigIntType()), pt.DataField(6, "z", pt.BooleanType()))))
    assert cast([[{"x": 1}, None]], src, tgt) == [[{"y": 1, "z": None}, None]]


def test_normalize_file_representations() -> None:
    # ORC reads every timestamp as ns: TIMESTAMP(3) floors to millis (also for negative values)
    arr = pa.array([-1, 1_999_999, None], pa.timestamp("ns"))
    assert normalize_array(arr, pt.TimestampType(3)).view(pa.int64()).to_pylist() == [-1, 1, None]
    # an ORC list named 'item', a struct with the file's field order
    lst = pa.array([[1, 2], None], pa.list_(pa.field("item", pa.int32())))
    out = normalize_array(lst, pt.ArrayType(pt.IntType()))
    assert out.type.equals(pt.to_arrow_type(pt.ArrayType(pt.IntType()))) and out.to_pylist() == [[1, 2], None]
    row = pt.RowType((pt.DataField(1, "a", pt.IntType()), pt.DataField(2, "b", pt.TimestampType(6))))
    st_arr = pa.array([{"b": dt.datetime(2024, 1, 1), "a": 1}], pa.struct([("b", pa.timestamp("ns")), ("a", pa.int32())]))
    norm = normalize_array(st_arr, row)
    assert norm.type.equals(pt.to_arrow_type(row)) and norm.to_pylist() == [{"a": 1, "b": dt.datetime(2024, 1, 1)}]
    dict_arr = pa.array(["x", "y", "x"]).dictionary_encode()
    assert normalize_array(dict_arr, STRING).to_pylist() == ["x", "y", "x"]
    # a chunked column is combined
    chunked = pa.chunked_array([[1], [2, None]], pa.int32())
    assert cast_array(chunked, pt.IntType(), pt.BigIntType()).to_pylist() == [1, 2, None]


def test_rule_lookup_matches_cast_executors() -> None:
    assert casting._resolve(pt.BooleanType(), pt.DecimalType(3, 1)) is casting._boolean_to_numeric
    assert casting._resolve(pt.DecimalType(3, 1), pt.IntType()) is casting._decimal_to_numeric
    assert casting._resolve(pt.IntType(), pt.DecimalType(3, 1)) is casting._numeric_to_decimal
    assert casting._resolve(pt.TimestampType(3), STRING) is casting._timestamp_to_string
    assert casting._resolve(pt.DecimalType(3, 1), STRING) is casting._numeric_to_string
    assert casting._resolve(STRING, pt.LocalZonedTimestampType(3)) is casting._string_to_timestamp
    assert casting._resolve(pt.VarBinaryType(), pt.CharType(3)) is casting._binary_to_string
    assert casting._resolve(pt.DecimalType(3, 1), pt.TimestampType(3)) is casting._numeric_to_timestamp
    assert casting._resolve(pt.DateType(), pt.VarCharType(5)) is None


# ----------------------------------------------------------------------------------------------
# Where pyarrow's cast agrees with Paimon's, the results must match
# ----------------------------------------------------------------------------------------------

_INT_LIMITS = {"TINYINT": 2**7, "SMALLINT": 2**15, "INT": 2**31, "BIGINT": 2**63}
_INTEGERS: list[pt.DataType] = [pt.TinyIntType(), pt.SmallIntType(), pt.IntType(), pt.BigIntType()]


def _ints_of(t: pt.DataType) -> st.SearchStrategy[list[int | None]]:
    lim = _INT_LIMITS[t.root]
    return st.lists(st.one_of(st.none(), st.integers(-lim, lim - 1)), max_size=30)


def _agree(values: list[Any], source: pt.DataType, target: pt.DataType, arrow_type: pa.DataType | None = None) -> None:
    arr = pa.array(values, arrow_type or pt.to_arrow_type(source))
    ours = cast_array(arr, source, target)
    theirs = pc.cast(arr, pt.to_arrow_type(target), safe=False)
    assert ours.equals(theirs), (source, target, ours, theirs)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_integer_casts_agree_with_arrow(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(_INTEGERS))
    target = data.draw(st.sampled_from(_INTEGERS + [pt.FloatType(), pt.DoubleType(), pt.BooleanType(), STRING]))
    _agree(data.draw(_ints_of(source)), source, target)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=False, min_value=-2e9, max_value=2e9)), max_size=30),
       st.sampled_from([pt.IntType(), pt.BigIntType(), pt.FloatType()]))
def test_double_casts_agree_with_arrow_in_range(values: list[float | None], target: pt.DataType) -> None:
    _agree(values, pt.DoubleType(), target)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.booleans()), max_size=20),
       st.sampled_from([pt.TinyIntType(), pt.IntType(), pt.BigIntType(), pt.DoubleType()]))
def test_boolean_casts_agree_with_arrow(values: list[bool | None], target: pt.DataType) -> None:
    _agree(values, pt.BooleanType(), target)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.decimals(min_value=-999, max_value=999, places=2)), max_size=20),
       st.sampled_from([pt.DecimalType(6, 3), pt.DecimalType(10, 2), pt.DecimalType(38, 10), STRING]))
def test_decimal_widening_agrees_with_arrow(values: list[Decimal | None], target: pt.DataType) -> None:
    _agree(values, pt.DecimalType(5, 2), target)


_DAYS = st.integers(min_value=-200_000, max_value=200_000)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), _DAYS), max_size=20),
       st.sampled_from([pt.TimestampType(3), pt.TimestampType(6), pt.TimestampType(9), STRING]))
def test_date_casts_agree_with_arrow(days: list[int | None], target: pt.DataType) -> None:
    if target.root == "TIMESTAMP" and target.precision == 9:  # type: ignore[attr-defined]
        days = [d if d is None else max(min(d, 100_000), -100_000) for d in days]
    arr = pa.array(days, pa.int32()).view(pa.date32())
    assert cast_array(arr, pt.DateType(), target).equals(pc.cast(arr, pt.to_arrow_type(target)))


_MICROS = st.integers(min_value=-10**16, max_value=10**16)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), _MICROS), max_size=20),
       st.sampled_from([pt.DateType(), pt.TimestampType(9), pt.LocalZonedTimestampType(6), STRING]))
def test_timestamp_casts_agree_with_arrow(micros: list[int | None], target: pt.DataType) -> None:
    if target.root == "TIMESTAMP":
        micros = [m if m is None else max(min(m, 9 * 10**15), -9 * 10**15) for m in micros]
    arr = pa.array(micros, pa.int64()).view(pa.timestamp("us"))
    ours = cast_array(arr, pt.TimestampType(6), target)
    theirs = pc.cast(arr, pt.to_arrow_type(target), safe=False)
    assert ours.equals(theirs)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), max_size=20),
       st.sampled_from([pt.BigIntType(), pt.DoubleType(), pt.FloatType()]))
def test_canonical_number_strings_agree_with_arrow(values: list[int | None], target: pt.DataType) -> None:
    _agree([None if v is None else str(v) for v in values], STRING, target)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)), max_size=20))
def test_float_repr_strings_agree_with_arrow(values: list[float | None]) -> None:
    _agree([None if v is None else repr(v) for v in values], STRING, pt.DoubleType())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.datetimes(min_value=dt.datetime(1678, 1, 1),
                                                    max_value=dt.datetime(2261, 12, 31))), max_size=20),
       st.sampled_from(["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M", "%Y-%m-%d"]))
def test_canonical_timestamp_strings_agree_with_arrow_and_the_java_parser(
        values: list[dt.datetime | None], fmt: str) -> None:
    strings = [None if v is None else v.strftime(fmt) for v in values]
    arr = pa.array(strings, pa.string())
    ours = cast_array(arr, STRING, pt.TimestampType(6))
    assert ours.equals(pc.cast(arr, pa.timestamp("us")))
    # the per-value parser (used for the forms Arrow does not read) agrees with the fast path
    slow = [None if s is None else casting._java_parse_local_datetime(s, 6, STRING, pt.TimestampType(6)) for s in strings]
    micros = [None if p is None else p[0] * 1_000_000 + p[1] // 1000 for p in slow]
    assert ours.view(pa.int64()).to_pylist() == micros


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.dates(min_value=dt.date(1, 1, 1))), max_size=20))
def test_canonical_date_strings_agree_with_arrow_and_the_java_parser(values: list[dt.date | None]) -> None:
    strings = [None if v is None else v.isoformat() for v in values]
    arr = pa.array(strings, pa.string())
    ours = cast_array(arr, STRING, pt.DateType())
    assert ours.equals(pc.cast(arr, pa.date32()))
    slow = [None if s is None else casting._java_parse_date(s, STRING, pt.DateType()) for s in strings]
    assert ours.view(pa.int32()).to_pylist() == slow


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=8)), max_size=20))
def test_string_binary_round_trip_agrees_with_arrow(values: list[str | None]) -> None:
    _agree(values, STRING, pt.VarBinaryType())
    _agree([None if v is None else v.encode() for v in values], pt.VarBinaryType(), STRING)
