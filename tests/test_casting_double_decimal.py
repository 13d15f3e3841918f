"""DOUBLE / FLOAT -> DECIMAL (NumericPrimitiveToDecimalCastRule, ``DecimalUtils.castFrom(double)``):
the vectorised cast against a per-value reference of Paimon's semantics (``BigDecimal.valueOf``:
the shortest decimal digits; ``Decimal.fromBigDecimal``: HALF_UP to the scale, null when the
precision is exceeded; NaN / infinity have no BigDecimal)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal, localcontext

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql import types as pt
from paimon_sql.casting import cast_array
from paimon_sql.errors import ValidationError


def reference(x: float | None, p: int, s: int) -> Decimal | None:
    """Paimon's castFrom(double, p, s) one value at a time (BigDecimal arithmetic via decimal)."""
    if x is None:
        return None
    d = Decimal(repr(float(x)))
    with localcontext() as ctx:
        ctx.prec = 400
        q = d.quantize(Decimal(1).scaleb(-s), rounding=ROUND_HALF_UP)
    if q != 0 and q.adjusted() >= p - s:
        return None
    return q


def cast(values: list[float | None], p: int, s: int, source: pt.DataType | None = None) -> list[Decimal | None]:
    src = source or pt.DoubleType()
    out = cast_array(pa.array(values, pt.to_arrow_type(src)), src, pt.DecimalType(p, s))
    assert out.type == pa.decimal128(p, s)
    return out.to_pylist()


def test_rounding_ties_half_up_on_the_shortest_digits() -> None:
    # 1.005 is 1.00499999999999989... in binary; BigDecimal.valueOf sees "1.005" and rounds up
    assert cast([1.005, 2.675, 1.255, -1.005, -0.125, 0.125, 0.5, -0.5, 2.5], 5, 2) == [
        Decimal("1.01"), Decimal("2.68"), Decimal("1.26"), Decimal("-1.01"), Decimal("-0.13"), Decimal("0.13"),
        Decimal("0.50"), Decimal("-0.50"), Decimal("2.50")]
    assert cast([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999999999999994], 3, 0) == [
        Decimal(1), Decimal(2), Decimal(3), Decimal(-1), Decimal(-3), Decimal(0)]
    # digits beyond scale + 1 do not matter to HALF_UP: 0.0449999 rounds down, 0.045 up
    assert cast([0.0449999, 0.045, -0.0449999, -0.045], 4, 2) == [
        Decimal("0.04"), Decimal("0.05"), Decimal("-0.04"), Decimal("-0.05")]


def test_overflow_is_null() -> None:
    # DECIMAL(4, 2) holds |x| < 100; 99.995 rounds to 100.00: null
    assert cast([99.99, 99.994, 99.995, -99.995, 100.0, -100.0, 1e300, -1e300, 1.7976931348623157e308], 4, 2) == [
        Decimal("99.99"), Decimal("99.99"), None, None, None, None, None, None, None]
    # DECIMAL(2, 2): only |x| < 1
    assert cast([0.994, 0.995, 1.0, -0.999], 2, 2) == [Decimal("0.99"), None, None, None]
    # 1e38 needs 39 digits; the double just below it is 9.999999999999998e37
    assert cast([1e37, 9.999999999999998e37, 1e38], 38, 0) == [Decimal(10**37), Decimal("9999999999999998" + "0" * 22),
                                                               None]


def test_tiny_zero_negative_zero_and_nulls() -> None:
    assert cast([5e-324, -5e-324, 1e-300, 0.0, -0.0, None, 0.004, 0.005], 5, 2) == [
        Decimal("0.00"), Decimal("0.00"), Decimal("0.00"), Decimal("0.00"), Decimal("0.00"), None,
        Decimal("0.00"), Decimal("0.01")]
    assert cast([None, None], 5, 2) == [None, None]
    assert cast([], 5, 2) == []


def test_large_values_with_exponents() -> None:
    assert cast([1e20, 1.2345e22, -3e25], 38, 2) == [Decimal(10**20), Decimal("12345" + "0" * 18), Decimal(-3 * 10**25)]
    assert cast([123456789.12345679], 38, 10) == [Decimal("123456789.1234567900")]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_not_finite_refused_naming_the_value_and_types(bad: float) -> None:
    with pytest.raises(ValidationError, match=r"Cannot cast .* from DOUBLE to DECIMAL\(5, 2\): not a finite number"):
        cast([1.0, None, bad], 5, 2)


def test_float_widens_to_double_first() -> None:
    # 3.1f is 3.0999999046325684 as a double; 0.1f is 0.10000000149011612
    assert cast([3.1, 0.1, None], 10, 8, pt.FloatType()) == [Decimal("3.09999990"), Decimal("0.10000000"), None]
    assert cast([0.1], 20, 17, pt.FloatType()) == [Decimal("0.10000000149011612")]


def test_chunked_and_sliced_input() -> None:
    arr = pa.array([1.5, None, 2.25, -7.125], pa.float64()).slice(1)
    out = cast_array(arr, pt.DoubleType(), pt.DecimalType(6, 2))
    assert out.to_pylist() == [None, Decimal("2.25"), Decimal("-7.13")]


@pytest.mark.parametrize(("p", "s"), [(5, 2), (10, 0), (18, 6), (19, 4), (30, 28), (36, 36), (38, 10), (38, 0), (3, 3), (38, 37)])
def test_random_values_match_the_reference(p: int, s: int) -> None:
    rng = np.random.default_rng(p * 100 + s)
    bits = rng.integers(0, 2**63, 3000, dtype=np.int64).view(np.float64)
    bits = bits[np.isfinite(bits)]
    scaled = (rng.random(3000) - 0.5) * 10.0 ** rng.integers(-8, p - s + 2, 3000)
    ties = np.round(rng.random(3000) * 100, s + 1) - 50
    values = np.concatenate([bits, -bits, scaled, ties]).tolist()
    assert cast(values, p, s) == [reference(v, p, s) for v in values]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)), max_size=20),
       st.integers(1, 38).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, p))))
def test_property_matches_the_reference(values: list[float | None], ps: tuple[int, int]) -> None:
    p, s = ps
    assert cast(values, p, s) == [reference(v, p, s) for v in values]


def test_two_million_values_vectorised() -> None:
    """The cast is Arrow kernels, not a Python call per value (was 26 s for 2M distinct values)."""
    import time

    values = pa.array(np.random.default_rng(3).random(2_000_000) * 1000, pa.float64())
    start = time.process_time()
    out = cast_array(values, pt.DoubleType(), pt.DecimalType(10, 2))
    assert time.process_time() - start < 5.0
    sample = values.slice(0, 1000).to_pylist()
    assert out.slice(0, 1000).to_pylist() == [reference(v, 10, 2) for v in sample]


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**9), 10**9), st.integers(0, 9), st.integers(-40, 40))
def test_property_near_ties_match_the_reference(k: int, s: int, nudge: int) -> None:
    """Doubles at and a few ulps around k.5 / 10^s: where the rounded product and the shortest digits
    could disagree (the fast path hands these to the digits)."""
    tie = (k + 0.5) / 10**s
    values = [float(np.nextafter(tie, math.copysign(math.inf, nudge)) if nudge else tie)]
    for _ in range(abs(nudge) - 1):
        values.append(float(np.nextafter(values[-1], math.copysign(math.inf, nudge))))
    values += [float(f"{tie:.{s + 1}f}"), -values[0]]
    p = 30
    assert cast(values, p, s) == [reference(v, p, s) for v in values]
