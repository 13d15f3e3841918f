"""ALTER's type changes: only those every old value survives unchanged."""

from __future__ import annotations

import pytest

from paimon_sql import types as pt
from paimon_sql.type_casts import alter_cast_exists, supports_cast

STRING = pt.VarCharType(pt.MAX_LENGTH)


@pytest.mark.parametrize(
    ("old", "new", "implicit", "explicit"),
    [  # Paimon's DataTypeCasts (implicit: widening; explicit: the SQL CAST specification)
        (pt.IntType(), pt.BigIntType(), True, True),
        (pt.BigIntType(), pt.IntType(), False, True),
        (pt.IntType(), pt.FloatType(), True, True),
        (pt.DecimalType(10, 2), pt.FloatType(), True, True),
        (pt.DoubleType(), pt.FloatType(), False, True),
        (pt.IntType(), STRING, False, True),
        (STRING, pt.IntType(), False, True),
        (pt.VarCharType(20), pt.VarCharType(10), True, True),  # same root: lengths are not compared
        (pt.DecimalType(10, 2), pt.DecimalType(5, 1), True, True),
        (pt.DateType(), pt.TimestampType(6), False, True),
        (pt.TimestampType(6), pt.DateType(), True, True),
        (pt.IntType(), pt.DateType(), False, False),
        (pt.BooleanType(), pt.IntType(), False, True),
        (pt.BinaryType(4), STRING, False, True),
        (pt.IntType(), pt.BinaryType(4), False, False),
        (pt.IntType(), pt.IntType(nullable=False), False, True),  # a nullable type never implicitly NOT NULL
    ],
)
def test_supports_cast(old: pt.DataType, new: pt.DataType, implicit: bool, explicit: bool) -> None:
    assert supports_cast(old, new, False) is implicit
    assert supports_cast(old, new, True) is explicit


@pytest.mark.parametrize(
    ("old", "new", "exists"),
    [
        (pt.IntType(), STRING, True),
        (STRING, pt.IntType(), True),
        (pt.TinyIntType(), pt.TimestampType(6), False),  # a rule without an executor for the pair
        (pt.ArrayType(pt.IntType()), pt.ArrayType(pt.BigIntType()), False),  # CastExecutors has no nested rule
        (pt.IntType(), pt.IntType(), True),
    ],
)
def test_alter_cast_exists(old: pt.DataType, new: pt.DataType, exists: bool) -> None:
    assert alter_cast_exists(old, new) is exists
