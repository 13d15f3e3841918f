"""The aggregation merge engine (vectorised) against a row-at-a-time model of Paimon's semantics."""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError
from paimon_sql.lsm.aggregate import FieldAgg, build_field_aggs
from paimon_sql.lsm.engines import build_merge_spec
from paimon_sql.lsm.merge import KIND, SEQ, MergeSpec, aggregation
from paimon_sql.options import CoreOptions
from paimon_sql.types import (
    ArrayType,
    BigIntType,
    BooleanType,
    DataField,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntType,
    MapType,
    RowType,
    SmallIntType,
    TimestampType,
    TinyIntType,
    VarCharType,
)
from tests.helpers.aggregate_model import Col, ModelError, canon, merge, visible

KEY = "_KEY_k"


def paimon_type(c: Col) -> DataType:
    return {
        "int8": TinyIntType(), "int16": SmallIntType(), "int32": IntType(), "int64": BigIntType(),
        "float32": FloatType(), "float64": DoubleType(), "bool": BooleanType(), "string": VarCharType(),
        "ts": TimestampType(6), "date": DateType(),
    }.get(c.kind) or DecimalType(c.precision, c.scale)


def arrow_type(c: Col) -> pa.DataType:
    return {
        "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
        "float32": pa.float32(), "float64": pa.float64(), "bool": pa.bool_(), "string": pa.string(),
        "ts": pa.timestamp("us"), "date": pa.date32(),
    }.get(c.kind) or pa.decimal128(c.precision, c.scale)


def field_aggs(cols: list[Col]) -> tuple[FieldAgg, ...]:
    return tuple(
        FieldAgg(c.name, c.function, paimon_type(c), c.ignore_retract, c.delimiter, c.distinct) for c in cols
    )


def to_table(records: list[tuple[Any, int, list[Any]]], seqs: list[int], cols: list[Col],
             extra: dict[str, pa.Array] | None = None) -> pa.Table:
    data: dict[str, pa.Array] = {
        KEY: pa.array([r[0] for r in records], pa.int64()),
        SEQ: pa.array(seqs, pa.int64()),
        KIND: pa.array([r[1] for r in records], pa.int8()),
    }
    for i, c in enumerate(cols):
        data[c.name] = pa.array([r[2][i] for r in records], arrow_type(c))
    data.update(extra or {})
    return pa.table(data)


def engine_result(out: pa.Table, cols: list[Col]) -> dict[Any, tuple[int, list[Any]]]:
    rows = out.to_pylist()
    keys = [r[KEY] for r in rows]
    assert keys == sorted(keys), "merge output must be in key order"
    return {r[KEY]: (r[KIND], [canon(r[c.name]) for c in cols]) for r in rows}


def canon_model(m: dict[Any, tuple[int, list[Any]]]) -> dict[Any, tuple[int, list[Any]]]:
    return {k: (kind, [canon(v) for v in vals]) for k, (kind, vals) in m.items()}


def check(records: list[tuple[Any, int, list[Any]]], seqs: list[int], cols: list[Col], remove_on_delete: bool,
          error: type[PaimonError] = ValidationError, seq_col: tuple[str, list[Any], bool] | None = None) -> None:
    """Engine (read and keep-deletes mode) == model, or both fail (the engine with ``error``)."""
    order = sorted(range(len(records)), key=lambda i: seqs[i])
    if seq_col is not None:
        name, svals, asc = seq_col
        order = sorted(order, key=lambda i: (svals[i] is not None, (svals[i] if asc else -svals[i]) if svals[i] is not None else 0))
    model_cols = [Col(c.name, c.function, c.kind, c.precision, c.scale, c.ignore_retract, c.delimiter, c.distinct)
                  for c in cols]
    try:
        model = canon_model(merge([records[i] for i in order], model_cols, remove_on_delete))
    except ModelError:
        model = None
    extra = {seq_col[0]: pa.array(seq_col[1], pa.int64())} if seq_col else None
    t = to_table(records, seqs, cols, extra)
    spec = MergeSpec(
        key_columns=(KEY,), field_aggs=field_aggs(cols), remove_record_on_delete=remove_on_delete,
        sequence_columns=(seq_col[0],) if seq_col else (), sequence_ascending=seq_col[2] if seq_col else True,
    )
    if model is None:
        with pytest.raises(error):
            aggregation(t, spec, keep_deletes=True)
        return
    got = engine_result(aggregation(t, spec, keep_deletes=True), cols)
    assert sorted(got) == sorted(model)
    for k, (kind, vals) in model.items():
        assert got[k][0] == kind, f"key {k}: kind {got[k][0]}, Paimon {kind}"
        diff = {c.name: (g, m) for c, g, m in zip(cols, got[k][1], vals) if g != m}
        if diff:
            names = {c.name for c in cols}
            idx = [i for i, c in enumerate(cols) if c.name in diff]
            recs = [(records[i][1], [records[i][2][j] for j in idx]) for i in order if records[i][0] == k]
            assert not diff, f"key {k}: (engine, Paimon) differ: {diff}; records {recs} {names & set(diff)}"
    read = engine_result(aggregation(t, spec), cols)
    assert {k: v for k, (_, v) in read.items()} == {k: v for k, v in visible(model).items()}


def maybe(s: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), s)


FLOATS = st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, -0.0, float("inf"), float("-inf"), float("nan")]))
FLOATS32 = st.one_of(st.floats(-1e4, 1e4, width=32), st.sampled_from([0.0, -0.0, float("nan")]))
TEXT = st.text(alphabet="ab ;,\t", max_size=5)

# (column, value strategy) for every supported function; product values are never 0 here
ALL_COLUMNS: list[tuple[Col, st.SearchStrategy[Any]]] = [
    (Col("kv", "primary-key", "int64"), st.none()),  # filled with the key below
    (Col("i_sum", "sum", "int32"), maybe(st.integers(-1000, 1000))),
    (Col("l_sum", "sum", "int64"), maybe(st.one_of(st.integers(-10**6, 10**6), st.sampled_from([2**62, -2**62])))),
    (Col("d_sum", "sum", "float64"), maybe(FLOATS)),
    (Col("f_sum", "sum", "float32"), maybe(FLOATS32)),
    (Col("dec_sum", "sum", "decimal", 12, 2), maybe(st.decimals(-10**6, 10**6, places=2))),
    (Col("wdec_sum", "sum", "decimal", 20, 2), maybe(st.decimals(-(10**17), 10**17, places=2))),
    (Col("l_prod", "product", "int64"), maybe(st.sampled_from([-3, -2, -1, 1, 2, 3, 7]))),
    (Col("d_prod", "product", "float64"), maybe(st.one_of(st.floats(-3, 3), st.sampled_from([0.0, -0.0])))),
    (Col("i_max", "max", "int32"), maybe(st.integers(-5, 5))),
    (Col("d_min", "min", "float64"), maybe(FLOATS)),
    (Col("f_max", "max", "float32"), maybe(FLOATS32)),
    (Col("s_max", "max", "string"), maybe(st.text(max_size=3))),
    (Col("dec_min", "min", "decimal", 25, 3), maybe(st.decimals(-1000, 1000, places=3))),
    (Col("ts_max", "max", "ts"), maybe(st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2100, 1, 1)))),
    (Col("b_min", "min", "bool"), maybe(st.booleans())),
    (Col("lv", "last_value", "string"), maybe(st.text(max_size=2))),
    (Col("lnn", "last_non_null_value", "int64"), maybe(st.integers(-5, 5))),
    (Col("fv", "first_value", "string"), maybe(st.text(max_size=2))),
    (Col("fnn", "first_non_null_value", "int64"), maybe(st.integers(-5, 5))),
    (Col("fnn_legacy", "first_not_null_value", "date"), maybe(st.dates())),
    (Col("band", "bool_and", "bool"), maybe(st.booleans())),
    (Col("bor", "bool_or", "bool"), maybe(st.booleans())),
    (Col("la", "listagg", "string"), maybe(TEXT)),
    (Col("la_d", "listagg", "string", delimiter=";", distinct=True), maybe(TEXT)),
    (Col("la_e", "listagg", "string", delimiter="", distinct=True), maybe(TEXT)),
]
RETRACTING = {"primary-key", "sum", "product", "last_value", "last_non_null_value"}


def columns(ignore_non_retracting: bool, retracting_only: bool = False) -> list[Col]:
    cols = []
    for c, _ in ALL_COLUMNS:
        if retracting_only and c.function not in RETRACTING:
            continue
        cols.append(Col(c.name, c.function, c.kind, c.precision, c.scale,
                        ignore_non_retracting and c.function not in RETRACTING, c.delimiter, c.distinct))
    return cols


@st.composite
def record_lists(draw: Any, cols: list[Col], kinds: list[int]) -> list[tuple[Any, int, list[Any]]]:
    strategies = {c.name: s for c, s in ALL_COLUMNS}
    n = draw(st.integers(0, 24))
    out = []
    for _ in range(n):
        key = draw(st.integers(0, 4))
        values = [key if c.function == "primary-key" else draw(strategies[c.name]) for c in cols]
        out.append((key, draw(st.sampled_from(kinds)), values))
    return out


@settings(max_examples=250, deadline=None)
@given(st.data(), st.sampled_from(["ignore-retract", "remove-on-delete", "retracting-only"]))
def test_every_function_matches_the_model(data: Any, mode: str) -> None:
    if mode == "ignore-retract":
        cols, kinds, remove = columns(True), [0, 1, 2, 3], False
    elif mode == "remove-on-delete":  # -D rows reset the row; no -U (max & co. cannot retract)
        cols, kinds, remove = columns(False), [0, 2, 3], True
    else:
        cols, kinds, remove = columns(False, retracting_only=True), [0, 1, 2, 3], data.draw(st.booleans())
    records = data.draw(record_lists(cols, kinds))
    seqs = data.draw(st.permutations(list(range(len(records)))))
    check(records, seqs, cols, remove)


@settings(max_examples=150, deadline=None)
@given(st.data(), st.booleans())
def test_sequence_field_orders_records_within_a_key(data: Any, ascending: bool) -> None:
    cols = [c for c in columns(True) if c.name in ("i_sum", "lv", "lnn", "fv", "la", "i_max")]
    records = data.draw(record_lists(cols, [0, 1, 2, 3]))
    seqs = data.draw(st.permutations(list(range(len(records)))))
    ts = [data.draw(maybe(st.integers(0, 5))) for _ in records]
    check(records, seqs, cols, False, seq_col=("ts", ts, ascending))


BOUNDS = {"int8": 127, "int16": 32767, "int32": 2**31 - 1, "int64": 2**63 - 1}


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(sorted(BOUNDS)), st.sampled_from(["sum", "product"]))
def test_integer_overflow_and_division_like_java(data: Any, kind: str, function: str) -> None:
    hi = BOUNDS[kind]
    if function == "sum":
        values = st.one_of(st.integers(-hi - 1, hi), st.sampled_from([hi, -hi - 1, 1, -1, 0]))
    else:
        values = st.one_of(st.integers(-6, 6), st.sampled_from([hi, -hi - 1, 2, -2, 0, 1, -1]),
                           st.integers(-hi - 1, hi))
    cols = [Col("v", function, kind)]
    n = data.draw(st.integers(0, 10))
    records = [(data.draw(st.integers(0, 2)), data.draw(st.sampled_from([0, 1, 2, 3])), [data.draw(maybe(values))])
               for _ in range(n)]
    seqs = data.draw(st.permutations(list(range(n))))
    check(records, seqs, cols, data.draw(st.booleans()))


# --------------------------------------------------------------------------------------------------
# examples


def run(cols: list[Col], rows: list[tuple[int, int, list[Any]]], remove: bool = False,
        keep_deletes: bool = False) -> dict[Any, Any]:
    t = to_table(rows, list(range(len(rows))), cols)
    spec = MergeSpec(key_columns=(KEY,), field_aggs=field_aggs(cols), remove_record_on_delete=remove)
    out = aggregation(t, spec, keep_deletes=keep_deletes)
    return {r[KEY]: ([r[KIND]] if keep_deletes else []) + [r[c.name] for c in cols] for r in out.to_pylist()}


def test_nulls_follow_paimon() -> None:
    cols = [Col("s", "sum", "int64"), Col("p", "product", "float64"), Col("m", "max", "int32"),
            Col("b", "bool_or", "bool"), Col("l", "listagg", "string"), Col("f", "first_non_null_value", "int64"),
            Col("fv", "first_value", "int64"), Col("lnn", "last_non_null_value", "int64"),
            Col("lv", "last_value", "int64")]
    nulls = [None] * len(cols)
    assert run(cols, [(1, 0, nulls), (1, 0, nulls)]) == {1: nulls}
    out = run(cols, [(1, 0, [None, None, None, None, None, None, None, 4, 4]),
                     (1, 0, [5, 2.0, 3, True, "x", 6, 6, None, None]),
                     (1, 0, [None, None, None, None, None, None, 7, None, None])])
    assert out == {1: [5, 2.0, 3, True, "x", 6, None, 4, None]}


def test_sum_retracts_and_negates_from_null() -> None:
    cols = [Col("s", "sum", "int32")]
    assert run(cols, [(1, 3, [5]), (1, 1, [2])]) == {1: [-7]}
    assert run(cols, [(1, 0, [10]), (1, 1, [3]), (1, 2, [4])]) == {1: [11]}
    # a key with a single retraction keeps it (and reads drop it), as Paimon's reducer does
    assert run(cols, [(1, 1, [3])]) == {}
    assert run(cols, [(1, 1, [3])], keep_deletes=True) == {1: [1, 3]}


def test_product_retraction_divides_like_java() -> None:
    cols = [Col("p", "product", "int64"), Col("d", "product", "float64")]
    assert run(cols, [(1, 0, [6, 6.0]), (1, 1, [4, 4.0]), (1, 0, [4, 4.0])]) == {1: [4, 6.0]}
    assert run(cols, [(1, 0, [-7, 1.0]), (1, 3, [2, 0.0])]) == {1: [-3, float("inf")]}
    assert run(cols, [(1, 3, [2, 2.0]), (1, 0, [5, 5.0])]) == {1: [5, 5.0]}  # retract from null: no-op
    with pytest.raises(ValidationError, match="'p'.*division by zero"):
        run(cols, [(1, 0, [6, 1.0]), (1, 1, [0, 1.0])])


def test_integer_overflow_names_the_field() -> None:
    with pytest.raises(ValidationError, match=r"'s' \(sum over TINYINT\) overflows"):
        run([Col("s", "sum", "int8")], [(1, 0, [100]), (1, 0, [100]), (1, 1, [100])])
    with pytest.raises(ValidationError, match=r"'s' \(sum over BIGINT\)"):
        run([Col("s", "sum", "int64")], [(1, 0, [2**63 - 1]), (1, 0, [1]), (1, 1, [1])])
    with pytest.raises(ValidationError, match="overflows"):  # -(MIN_VALUE) in Math.negateExact
        run([Col("s", "sum", "int64")], [(1, 1, [-(2**63)]), (1, 0, [0])])
    with pytest.raises(ValidationError, match="overflows"):
        run([Col("p", "product", "int32")], [(1, 0, [2**16]), (1, 0, [2**15]), (1, 0, [0])])
    # never past the bound: no error, even if a later zero hides how big it got
    assert run([Col("p", "product", "int32")], [(1, 0, [2**16]), (1, 0, [2**14]), (1, 0, [0])]) == {1: [0]}
    assert run([Col("p", "product", "int8")], [(1, 0, [-2]), (1, 0, [64])]) == {1: [-128]}
    with pytest.raises(ValidationError):
        run([Col("p", "product", "int8")], [(1, 0, [-128]), (1, 0, [-1]), (1, 0, [1])])


def test_decimals() -> None:
    d = [Col("c", "sum", "decimal", 5, 2), Col("w", "sum", "decimal", 19, 0), Col("p", "product", "decimal", 6, 2)]
    out = run(d, [(1, 0, [Decimal("1.25"), Decimal(9 * 10**18), Decimal("1.50")]),
                  (1, 0, [Decimal("2.50"), Decimal(9 * 10**18), Decimal("1.11")]),
                  (1, 0, [Decimal("-0.75"), Decimal(5), Decimal("1.00")])])
    # wide decimals become null when the sum no longer fits (then the next value starts over)
    assert out == {1: [Decimal("3.00"), Decimal(5), Decimal("1.67")]}  # 1.665 rounds half up
    big = [Col("b", "sum", "decimal", 38, 6), Col("m", "max", "decimal", 38, 6)]
    v = Decimal("12345678901234567890123456789012.345678")
    assert run(big, [(1, 0, [v, v]), (1, 0, [Decimal("0.000001"), -v])]) == {
        1: [Decimal("12345678901234567890123456789012.345679"), v]}
    with pytest.raises(ValidationError, match="DECIMAL\\(5, 2\\)"):
        run(d[:1], [(1, 0, [Decimal("999.99")]), (1, 0, [Decimal("0.01")])])
    assert run(d[2:], [(1, 0, [Decimal("6.00")]), (1, 1, [Decimal("4.00")])]) == {1: [Decimal("1.50")]}
    with pytest.raises(ValidationError, match="non-terminating"):
        run(d[2:], [(1, 0, [Decimal("1.00")]), (1, 1, [Decimal("3.00")])])


def test_min_max_compare_like_java() -> None:
    cols = [Col("mx", "max", "float64"), Col("mn", "min", "float64"), Col("s", "max", "string"),
            Col("b", "min", "string")]
    out = run(cols, [(1, 0, [0.0, 0.0, "é", "b"]), (1, 0, [-0.0, -0.0, "z", "a"]), (1, 0, [1.0, 1.0, None, "ab"])])
    assert out[1][1] == 0.0 and str(out[1][1]) == "-0.0"
    assert out == {1: [1.0, -0.0, "é", "a"]}
    out = run(cols[:2], [(1, 0, [float("nan"), float("nan")]), (1, 0, [float("inf"), float("-inf")])])
    assert np.isnan(out[1][0]) and out[1][1] == float("-inf")  # NaN is the largest double


def test_listagg() -> None:
    cols = [Col("l", "listagg", "string"), Col("d", "listagg", "string", delimiter="|", distinct=True)]
    out = run(cols, [(1, 0, ["a", "x|y|x"]), (1, 0, ["  ", "y| |z"]), (1, 0, [None, "z|w"]), (1, 0, ["b", ""])])
    assert out == {1: ["a,b", "x|y|x|z|w"]}
    # a single record is kept as it is, blank or not
    assert run(cols, [(1, 0, [" ", " "])]) == {1: [" ", " "]}
    assert run(cols, [(1, 0, [" ", " "]), (1, 0, [None, "\u00a0"])]) == {1: [None, "\u00a0"]}


def test_first_value_and_remove_record_on_delete() -> None:
    cols = [Col("f", "first_value", "int64"), Col("s", "sum", "int64"), Col("n", "first_non_null_value", "int64")]
    # -D replaces the row by its own values; a following +I aggregates onto them. first_value was
    # set before the -D (and stays set); first_non_null_value was not (its first value was null)
    assert run(cols, [(1, 0, [1, 1, None]), (1, 3, [9, 9, 9]), (1, 0, [5, 5, 5])], remove=True) == {1: [9, 14, 5]}
    # nothing aggregated before the -D: first_value is still free to take the next value
    assert run(cols, [(1, 3, [9, 9, None]), (1, 0, [5, 5, 5])], remove=True) == {1: [5, 14, 5]}
    assert run(cols, [(1, 0, [1, 1, 1]), (1, 3, [9, 9, 9])], remove=True) == {}
    assert run(cols, [(1, 0, [1, 1, 1]), (1, 3, [9, 9, 9])], remove=True, keep_deletes=True) == {1: [3, 9, 9, 9]}


def test_retraction_of_a_function_that_cannot_retract() -> None:
    cols = [Col("m", "max", "int32")]
    with pytest.raises(UnsupportedError, match=r"'max' does not support retraction.*'fields\.m\.ignore-retract'"):
        run(cols, [(1, 0, [1]), (1, 1, [1])])
    ignored = [Col("m", "max", "int32", ignore_retract=True)]
    assert run(ignored, [(1, 0, [1]), (1, 1, [5]), (1, 3, [7]), (1, 0, [0])]) == {1: [1]}
    # with remove-record-on-delete a -D is no retraction, but a -U still is
    assert run(cols, [(1, 0, [1]), (1, 3, [5]), (1, 0, [0])], remove=True) == {1: [5]}
    with pytest.raises(UnsupportedError, match="'m'"):
        run(cols, [(1, 0, [1]), (1, 1, [5])], remove=True)


def opts(**kv: str) -> CoreOptions:
    return CoreOptions({k.replace("__", ".").replace("_", "-"): v for k, v in kv.items()})


FIELDS = [DataField(0, "k", IntType(nullable=False)), DataField(1, "a", BigIntType()),
          DataField(2, "b", VarCharType()), DataField(3, "ts", BigIntType())]


def test_functions_resolve_like_paimon() -> None:
    o = CoreOptions({"fields.a.aggregate-function": "sum", "fields.k.aggregate-function": "max",
                     "fields.ts.aggregate-function": "sum", "sequence.field": "ts",
                     "fields.b.ignore-retract": "true", "fields.b.list-agg-delimiter": "/"})
    aggs = {fa.column: fa for fa in build_field_aggs(o, FIELDS, ["k"])}
    assert {c: fa.function for c, fa in aggs.items()} == {
        "k": "primary-key", "a": "sum", "b": "last_non_null_value", "ts": "last_value"}
    assert aggs["b"].ignore_retract and aggs["b"].delimiter == "/"
    o = CoreOptions({"fields.default-aggregate-function": "max", "fields.b.aggregate-function": "listagg"})
    aggs = {fa.column: fa for fa in build_field_aggs(o, FIELDS, ["k"])}
    assert (aggs["a"].function, aggs["b"].function, aggs["ts"].function) == ("max", "listagg", "max")


def test_unknown_function_names_field_and_function() -> None:
    o = CoreOptions({"fields.b.aggregate-function": "no_such_function"})
    with pytest.raises(ValidationError, match="'no_such_function' for option 'fields.b.aggregate-function'"):
        build_field_aggs(o, FIELDS, ["k"])


@pytest.mark.parametrize(("function", "field", "message"), [
    ("sum", "b", "must be 'NumericType'"),
    ("product", "b", "must be 'NumericType'"),
    ("bool_and", "a", "BooleanType"),
    ("bool_or", "a", "BooleanType"),
    ("listagg", "a", "VarCharType"),
    ("collect", "a", "must be 'Array'"),
    ("merge_map", "a", "must be 'MAP'"),
    ("rbm32", "a", "VarBinaryType"),
    ("rbm64", "a", "VarBinaryType"),
    ("merge_map_with_keytime", "a", "must be 'MAP'"),
    ("hll_sketch", "a", "hll sketch column must be 'VarBinaryType'.*'a'.*'hll_sketch'"),
    ("theta_sketch", "a", "theta sketch column must be 'VarBinaryType'.*'a'.*'theta_sketch'"),
])
def test_wrong_types_are_rejected(function: str, field: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        build_field_aggs(CoreOptions({f"fields.{field}.aggregate-function": function}), FIELDS, ["k"])


def test_option_conflicts_and_bad_names() -> None:
    with pytest.raises(ValidationError, match="conflicting"):
        build_field_aggs(CoreOptions({"aggregation.remove-record-on-delete": "true",
                                      "fields.a.ignore-retract": "true"}), FIELDS, ["k"])
    with pytest.raises(ValidationError):  # 'count' is no Paimon aggregate function
        build_field_aggs(CoreOptions({"fields.a.aggregate-function": "count"}), FIELDS, ["k"])
    with pytest.raises(ValidationError, match="STRING"):
        build_field_aggs(CoreOptions({"fields.v.aggregate-function": "listagg"}),
                         [DataField(0, "v", VarCharType(10))], [])
    with pytest.raises(ValidationError, match="comparable"):
        from paimon_sql.types import ArrayType
        build_field_aggs(CoreOptions({"fields.v.aggregate-function": "max"}),
                         [DataField(0, "v", ArrayType(IntType()))], [])


def test_merge_spec_of_an_aggregation_table() -> None:
    o = CoreOptions({"merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true",
                     "fields.a.aggregate-function": "sum", "sequence.field": "ts",
                     "sequence.field.sort-order": "descending", "ignore-delete": "true"})
    spec = build_merge_spec(o, ["_KEY_k"], FIELDS, ["k"])
    assert spec.remove_record_on_delete and spec.sequence_columns == ("ts",) and not spec.sequence_ascending
    assert [fa.function for fa in spec.field_aggs] == ["primary-key", "sum", "last_non_null_value", "last_value"]


def test_ignore_delete_does_not_apply_to_reads() -> None:
    # Paimon's AggregateMergeFunction has no ignore-delete: -D records already in files still retract
    cols = [Col("s", "sum", "int64")]
    t = to_table([(1, 0, [5]), (1, 3, [2])], [0, 1], cols)
    spec = MergeSpec(key_columns=(KEY,), field_aggs=field_aggs(cols), ignore_delete=True)
    assert aggregation(t, spec).column("s").to_pylist() == [3]


def test_two_million_rows_are_vectorised() -> None:
    n = 2_000_000
    rng = np.random.default_rng(0)
    keys = rng.integers(0, n // 4, n)
    t = pa.table({
        KEY: pa.array(keys), SEQ: pa.array(rng.permutation(n)), KIND: pa.array(np.zeros(n, dtype=np.int8)),
        "s": pa.array(rng.integers(-100, 100, n)), "d": pa.array(rng.random(n)),
        "m": pa.array(rng.integers(0, 10**6, n).astype(np.int32)),
        "l": pa.array(rng.integers(0, 1000, n)), "f": pa.array(rng.integers(0, 1000, n)),
    })
    cols = [Col("s", "sum", "int64"), Col("d", "sum", "float64"), Col("m", "max", "int32"),
            Col("l", "last_non_null_value", "int64"), Col("f", "first_value", "int64")]
    spec = MergeSpec(key_columns=(KEY,), field_aggs=field_aggs(cols))
    start = time.perf_counter()
    out = aggregation(t, spec)
    elapsed = time.perf_counter() - start
    assert out.num_rows == len(np.unique(keys))
    by_key = np.bincount(keys, weights=t.column("s").to_numpy(), minlength=n // 4)
    got = dict(zip(out.column(KEY).to_pylist(), out.column("s").to_pylist()))
    assert all(got[k] == int(by_key[k]) for k in list(got)[:1000])
    assert elapsed < 20, f"aggregation of {n} rows took {elapsed:.1f} s"


# --------------------------------------------------------------------------------------------------
# collect (Paimon's FieldCollectAgg and its FieldAggregatorTest cases)


def run_collect(element: DataType, arrow_element: pa.DataType, rows: list[tuple[int, int, Any]],
                distinct: bool = False, remove: bool = False) -> dict[Any, Any]:
    t = pa.table({
        KEY: pa.array([r[0] for r in rows], pa.int64()),
        SEQ: pa.array(list(range(len(rows))), pa.int64()),
        KIND: pa.array([r[1] for r in rows], pa.int8()),
        "c": pa.array([r[2] for r in rows], pa.list_(arrow_element)),
    })
    fa = FieldAgg("c", "collect", ArrayType(element), distinct=distinct)
    spec = MergeSpec(key_columns=(KEY,), field_aggs=(fa,), remove_record_on_delete=remove)
    return {r[KEY]: r["c"] for r in aggregation(t, spec).to_pylist()}


def test_collect_concatenates_in_sequence_order() -> None:
    rows = [(1, 0, [1, 1, 2]), (1, 0, None), (1, 0, [2, 3]), (2, 0, None), (2, 0, None), (3, 0, []),
            (3, 0, [None, 4])]
    assert run_collect(IntType(), pa.int32(), rows) == {1: [1, 1, 2, 2, 3], 2: None, 3: [None, 4]}


def test_collect_distinct_keeps_javas_hash_set_order() -> None:
    rows = [(1, 0, [1, 1, 2]), (1, 0, [2, 3, 17, 16])]
    # a HashSet of 16 buckets: 16 (bucket 0), 1 then 17 (bucket 1, insertion order), 2, 3
    assert run_collect(IntType(), pa.int32(), rows, distinct=True) == {1: [16, 1, 17, 2, 3]}
    # agg(null, array) deduplicates the array; a key's single record is kept as it is (Paimon's
    # reducer calls no aggregator for it); nulls stay null
    assert run_collect(IntType(), pa.int32(), [(1, 0, None), (1, 0, [1, 1, 2]), (2, 0, None), (2, 0, None),
                                               (3, 0, [1, 1])], distinct=True) == {1: [1, 2], 2: None, 3: [1, 1]}
    # BIGINT hashes as Long.hashCode: -1 -> 0 (bucket 0), 2^32 -> 1 (bucket 1), 5 (bucket 5)
    assert run_collect(BigIntType(), pa.int64(), [(1, 0, [2**32, -1, 5]), (1, 0, [5])], distinct=True) == {
        1: [-1, 2**32, 5]}
    # negative INTs hash as their two's complement, spread by h ^ h >>> 16: -1 -> 0xFFFF0000, bucket
    # 0, before 0 (same bucket, inserted later); 15 in bucket 15
    assert run_collect(IntType(), pa.int32(), [(1, 0, [-1, 0]), (1, 0, [15])], distinct=True) == {1: [-1, 0, 15]}
    # 13 elements: the set has grown to 32 buckets, so 16 no longer shares bucket 0 with 0
    big = [16, 0, *range(1, 12)]
    assert run_collect(IntType(), pa.int32(), [(1, 0, big), (1, 0, big)], distinct=True) == {1: [*range(0, 12), 16]}
    assert run_collect(IntType(), pa.int32(), [(1, 0, [16, 0]), (1, 0, [1])], distinct=True) == {1: [16, 0, 1]}


def test_collect_distinct_strings_and_rows_keep_arrival_order() -> None:
    rows = [(1, 0, ["b", "a", "b"]), (1, 0, ["c", "a"])]
    assert run_collect(VarCharType(), pa.string(), rows, distinct=True) == {1: ["b", "a", "c"]}
    row_t = RowType((DataField(1, "x", IntType()), DataField(2, "y", VarCharType())))
    arrow_row = pa.struct([("x", pa.int32()), ("y", pa.string())])
    rows = [(1, 0, [{"x": 1, "y": "a"}, {"x": 1, "y": "a"}]), (1, 0, [{"x": 2, "y": "b"}, {"x": 1, "y": "a"}])]
    assert run_collect(row_t, arrow_row, rows, distinct=True) == {1: [{"x": 1, "y": "a"}, {"x": 2, "y": "b"}]}


def test_collect_retracts_one_occurrence_per_element() -> None:
    rows = [(1, 0, [1, 2, 2, 3]), (1, 1, [2, 3, 9]), (1, 0, [4])]
    assert run_collect(IntType(), pa.int32(), rows) == {1: [1, 2, 4]}
    # -D under remove-record-on-delete replaces the row
    assert run_collect(IntType(), pa.int32(), [(1, 0, [1]), (1, 3, [7]), (1, 0, [8])], remove=True) == {1: [7, 8]}


def test_collect_distinct_of_unsupported_elements_says_so() -> None:
    with pytest.raises(UnsupportedError, match="collect with fields.<field>.distinct"):
        run_collect(DecimalType(10, 2), pa.decimal128(10, 2), [(1, 0, [Decimal("1.00")]), (1, 0, [Decimal("2.00")])],
                    distinct=True)


def test_collect_table_writes_compaction_and_bad_type(tmp_path: Any) -> None:
    from paimon_sql import Catalog

    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    schema = pa.schema([("k", pa.int64()), ("tags", pa.list_(pa.string())), ("ids", pa.list_(pa.int32())),
                        ("props", pa.map_(pa.int32(), pa.string()))])
    t = cat.create_table("db.c", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.tags.aggregate-function": "collect",
        "fields.ids.aggregate-function": "collect", "fields.ids.distinct": "true",
        "fields.props.aggregate-function": "merge_map"})
    t.write(pa.table({"k": [1], "tags": [["a"]], "ids": [[3, 1]], "props": [[(2, "x")]]}, schema=schema))
    t.refresh().write(pa.table({"k": [1], "tags": [["b", "a"]], "ids": [[1, 2]], "props": [[(1, "y"), (2, "z")]]},
                               schema=schema))
    expected = [{"k": 1, "tags": ["a", "b", "a"], "ids": [1, 2, 3], "props": [(1, "y"), (2, "z")]}]
    assert t.refresh().read().to_pylist() == expected
    t.refresh().compact()
    assert t.refresh().read().to_pylist() == expected
    with pytest.raises(ValidationError, match="collect column must be 'Array'.*'k'"):
        cat.create_table("db.bad", pa.schema([("id", pa.int64()), ("k", pa.int64())]), primary_keys=["id"],
                         options={"merge-engine": "aggregation", "fields.k.aggregate-function": "collect"})


# --------------------------------------------------------------------------------------------------
# merge_map (Paimon's FieldMergeMapAgg)


def run_map(key: DataType, arrow_key: pa.DataType, rows: list[tuple[int, int, Any]]) -> dict[Any, Any]:
    t = pa.table({
        KEY: pa.array([r[0] for r in rows], pa.int64()),
        SEQ: pa.array(list(range(len(rows))), pa.int64()),
        KIND: pa.array([r[1] for r in rows], pa.int8()),
        "m": pa.array([r[2] for r in rows], pa.map_(arrow_key, pa.string())),
    })
    fa = FieldAgg("m", "merge_map", MapType(key.copy(False), VarCharType()))
    spec = MergeSpec(key_columns=(KEY,), field_aggs=(fa,))
    return {r[KEY]: r["m"] for r in aggregation(t, spec).to_pylist()}


def test_merge_map_later_values_win_in_java_hash_map_order() -> None:
    rows = [(1, 0, [(17, "a"), (1, "b")]), (1, 0, [(1, "c"), (16, "d")]), (2, 0, None), (2, 0, [(5, "x")]),
            (3, 0, [(3, "q"), (2, "r")])]
    # HashMap of 16 buckets: 16 (0), 17 then 1 (bucket 1, insertion order); 1 keeps its place, takes "c";
    # a single record, and agg(null, m), keep the map as it is
    assert run_map(IntType(), pa.int32(), rows) == {
        1: [(16, "d"), (17, "a"), (1, "c")], 2: [(5, "x")], 3: [(3, "q"), (2, "r")]}
    # a retraction removes its keys
    assert run_map(IntType(), pa.int32(), [(1, 0, [(1, "a"), (2, "b")]), (1, 1, [(2, "zz")])]) == {1: [(1, "a")]}


def test_merge_map_string_keys_hash_as_binary_strings() -> None:
    from paimon_sql.format.murmur import murmur_hash_bytes

    keys = ["apple", "kiwi", "banana", "fig", "cherry"]
    out = run_map(VarCharType(), pa.string(), [(1, 0, [(k, k) for k in keys[:2]]), (1, 0, [(k, k) for k in keys[2:]])])

    def bucket(k: str) -> int:
        h = murmur_hash_bytes(k.encode()) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & 15

    assert [k for k, _ in out[1]] == sorted(keys, key=lambda k: (bucket(k), keys.index(k)))
