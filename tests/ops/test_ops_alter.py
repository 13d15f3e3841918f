"""ALTER's type changes: only those every old value survives unchanged."""

from __future__ import annotations

import pytest

from paimon_sql import types as pt
from paimon_sql.ops.alter import is_safe_widening


@pytest.mark.parametrize(
    ("old", "new", "safe"),
    [
        (pt.IntType(), pt.BigIntType(), True),
        (pt.BigIntType(), pt.IntType(), False),
        (pt.TinyIntType(), pt.DecimalType(3, 0), True),
        (pt.TinyIntType(), pt.DecimalType(4, 2), False),  # 127 needs three integer digits
        (pt.SmallIntType(), pt.DecimalType(5, 0), True),
        (pt.IntType(), pt.DecimalType(10, 0), True),
        (pt.IntType(), pt.DecimalType(12, 3), False),
        (pt.BigIntType(), pt.DecimalType(5, 0), False),  # most BIGINT values do not fit
        (pt.BigIntType(), pt.DecimalType(19, 0), True),
        (pt.BigIntType(), pt.DecimalType(38, 18), True),
        (pt.DecimalType(10, 2), pt.DecimalType(12, 4), True),
        (pt.DecimalType(10, 2), pt.DecimalType(12, 1), False),
        (pt.FloatType(), pt.DoubleType(), True),
        (pt.VarCharType(10), pt.VarCharType(20), True),
        (pt.VarCharType(20), pt.VarCharType(10), False),
    ],
)
def test_safe_widening(old: pt.DataType, new: pt.DataType, safe: bool) -> None:
    assert is_safe_widening(old, new) is safe
