"""The merge of sorted runs (``merge_runs.sorted_view``) against the reference: the stable sort of
every row by (key, sequence) (``merge.reference_view``), for random run layouts, key types, merge
engines, sequence fields, retractions and null keys; the engines' merges (``merge_gather``'s
partial-update and aggregation) against the reference merges of ``merge`` over the reference order."""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql.errors import PaimonError
from paimon_sql.lsm import merge as reference
from paimon_sql.lsm.agg_base import KeyGroups
from paimon_sql.lsm.engines import build_merge_spec, engine
from paimon_sql.lsm.merge import KIND, SEQ, group_last_mask, reference_view, sort_indices
from paimon_sql.lsm.merge_runs import (
    composite_codes,
    encode_keys,
    fixed_width_keys,
    prefix_codes,
    sorted_view,
)
from paimon_sql.options import CoreOptions
from paimon_sql.types import BigIntType, DataField, DoubleType, IntType, VarCharType

BIG = 2**63 - 1
# strings whose byte order is easy to get wrong: "" < "\0" < "\0\0" < "a" < "a\0" < "a\0b" < "ab", a
# shared prefix, bytes above 0x7f
TRICKY_STRINGS = ["", "\x00", "\x00\x00", "a", "a\x00", "a\x00b", "ab", "user-1", "user-10", "user-2", "\u00e9", "\u00ff"]
# key layouts: the Arrow type of each key column and the values drawn for it (small domains, so runs overlap)
KEY_LAYOUTS: dict[str, list[tuple[pa.DataType, st.SearchStrategy[Any]]]] = {
    "int": [(pa.int64(), st.integers(0, 30))],
    "sparse_int": [(pa.int64(), st.integers(0, 2_000))],  # runs mostly disjoint: few keys in two runs
    "nullable_int": [(pa.int32(), st.one_of(st.none(), st.integers(-10, 10)))],
    "wide_int": [(pa.int64(), st.sampled_from([-BIG - 1, -1, 0, 5, BIG]))],
    "double": [(pa.float64(), st.sampled_from([None, float("nan"), -0.0, 0.0, 1.5, -2.0, float("inf"),
                                                float("-inf")]))],
    "date_short": [(pa.date32(), st.one_of(st.none(), st.dates(datetime.date(2024, 1, 1),
                                                                 datetime.date(2024, 1, 5)))),
                   (pa.int16(), st.integers(-3, 3))],
    "string": [(pa.string(), st.one_of(st.none(), st.text("ab\u00e9", max_size=3)))],
    # not null: numpy's fixed-width bytes (``fixed_width_keys``); values of 0-12 bytes (one or two
    # 8-byte words, shared prefixes); a zero byte or a 65-byte value: the Arrow sort
    "string_not_null": [(pa.string(), st.text("ab\u00e9", max_size=6))],
    "string_words": [(pa.string(), st.text("ab", min_size=6, max_size=12))],
    "binary": [(pa.binary(), st.binary(max_size=3).filter(lambda b: b"\x00" not in b))],
    "binary_zero_byte": [(pa.binary(), st.sampled_from([b"", b"\x00", b"a", b"a\x00", b"a\x01", b"\xff"]))],
    "large_string_long": [(pa.large_string(), st.sampled_from(["", "a", "a" * 64, "a" * 65, "b" * 65]))],
    "int_string": [(pa.int32(), st.integers(0, 4)), (pa.string(), st.text("xy", max_size=2))],
    "two_wide": [(pa.int64(), st.sampled_from([-BIG - 1, 0, BIG])), (pa.int64(), st.sampled_from([-BIG - 1, 3, BIG]))],
    # composites with strings (``composite_codes``): nulls, empty strings, zero bytes, common prefixes
    "string_bigint": [(pa.string(), st.one_of(st.none(), st.sampled_from(TRICKY_STRINGS))),
                      (pa.int64(), st.one_of(st.none(), st.integers(-3, 3)))],
    "string_string": [(pa.string(), st.text("a\x00b", max_size=3)),
                      (pa.string(), st.one_of(st.none(), st.text("\x00x\u00ff", max_size=2)))],
    "bigint_binary": [(pa.int64(), st.integers(0, 3)), (pa.binary(), st.one_of(st.none(), st.binary(max_size=2)))],
    # wider than 63 bits: the bytes form (``S<w>``); a value over 64 bytes: the Arrow sort
    "binary_wide_int": [(pa.binary(), st.binary(min_size=0, max_size=9)), (pa.int64(), st.sampled_from([-BIG - 1, 0, BIG]))],
    "nullable_int_long_string": [(pa.int32(), st.one_of(st.none(), st.integers(0, 2))),
                                 (pa.large_string(), st.sampled_from(["", "a", "a" * 64, "a" * 65]))],
}

VALUE_FIELDS = [DataField(10, "a", BigIntType()), DataField(11, "b", VarCharType()), DataField(12, "g", IntType()),
                DataField(13, "sf", IntType()), DataField(14, "d", DoubleType())]
DOUBLES = st.one_of(st.none(), st.sampled_from([float("nan"), -0.0, 0.0, 1.5, -2.25, float("inf")]))

ENGINES: dict[str, dict[str, str]] = {
    "deduplicate": {},
    "deduplicate_ignore_delete": {"ignore-delete": "true"},
    "first_row": {"merge-engine": "first-row"},
    "partial_update": {"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"},
    "partial_update_ignore_delete": {"merge-engine": "partial-update", "ignore-delete": "true"},
    "partial_update_groups": {"merge-engine": "partial-update", "fields.g.sequence-group": "a,b",
                              "ignore-delete": "true"},
    "aggregation": {"merge-engine": "aggregation", "fields.a.aggregate-function": "sum",
                    "fields.b.aggregate-function": "last_non_null_value"},
    "aggregation_remove": {"merge-engine": "aggregation", "fields.a.aggregate-function": "max",
                           "aggregation.remove-record-on-delete": "true"},
    "aggregation_last_value": {"merge-engine": "aggregation", "fields.a.aggregate-function": "last_value",
                               "fields.b.aggregate-function": "max", "fields.g.aggregate-function": "first_value"},
    "aggregation_double": {"merge-engine": "aggregation", "fields.d.aggregate-function": "sum",
                           "fields.a.aggregate-function": "max", "fields.g.aggregate-function": "sum",
                           "fields.sf.aggregate-function": "min"},
    "aggregation_double_max": {"merge-engine": "aggregation", "fields.d.aggregate-function": "max",
                               "fields.a.aggregate-function": "min", "fields.d.ignore-retract": "true",
                               "fields.a.ignore-retract": "true"},
    "aggregation_ignore_retract": {"merge-engine": "aggregation", "fields.a.aggregate-function": "sum",
                                   "fields.a.ignore-retract": "true", "fields.b.ignore-retract": "true",
                                   "fields.g.aggregate-function": "min", "fields.g.ignore-retract": "true"},
}
# the merge each engine's result must equal (over the reference order)
REFERENCE_MERGE = {"deduplicate": reference.deduplicate, "first-row": reference.first_row,
                   "partial-update": reference.partial_update, "aggregation": reference.aggregation}
SEQUENCE_FIELD = {"": {}, "asc": {"sequence.field": "sf"},
                  "desc": {"sequence.field": "sf", "sequence.field.sort-order": "descending"}}


@st.composite
def layouts(draw: st.DrawFn, shared_nulls: bool = False) -> tuple[str, list[list[tuple[Any, ...]]], bool]:
    """A key layout, 1-6 runs of (key values..., kind, a, b, g, sf, d) records, and whether sequence
    numbers grow run by run (as writers give them) or are random. ``shared_nulls``: always keys
    from a small pool (records of one key in several runs) and nulls in the values."""
    layout = draw(st.sampled_from(sorted(KEY_LAYOUTS)))
    cols = KEY_LAYOUTS[layout]
    # records: any kind and nulls; only +I/+U (nulls); only +I/+U and no null (the merges' fast path:
    # every key takes its newest record)
    mode = draw(st.sampled_from(["any", "no_retraction"] if shared_nulls else ["any", "no_retraction", "plain"]))
    kinds = ([0, 0, 2, 1, 3] if shared_nulls else [0, 0, 0, 0, 2, 1, 3]) if mode == "any" else [0, 0, 2]
    # each value column never, sometimes or mostly null (a column without nulls beside columns with
    # them: the partial-update merges' per-column paths)
    nulls = [draw(st.sampled_from(["never", "sometimes", "mostly"])) for _ in range(5)]

    def value(s: st.SearchStrategy[Any], column: int) -> st.SearchStrategy[Any]:
        if mode == "plain" or nulls[column] == "never":
            return s
        return st.one_of(st.none(), s) if nulls[column] == "sometimes" else st.one_of(st.none(), st.none(), st.none(), s)

    key = st.tuples(*(s for _, s in cols))
    if shared_nulls or draw(st.booleans()):  # keys from a pool of 1-4 keys: most records share their key
        key = st.sampled_from(draw(st.lists(key, min_size=1, max_size=4)))
    record = st.tuples(
        key,
        st.sampled_from(kinds),
        value(st.integers(-5, 5), 0),
        value(st.text("pq", max_size=2), 1),
        value(st.integers(0, 3), 2),
        value(st.integers(0, 3), 3),
        value(st.sampled_from([float("nan"), -0.0, 0.0, 1.5, -2.25, float("inf")]), 4),
    )
    runs = draw(st.lists(st.lists(record, max_size=25), min_size=1, max_size=6))
    return layout, [[(*k, *rest) for k, *rest in run] for run in runs], draw(st.booleans())


def build(layout: str, runs: list[list[tuple[Any, ...]]], run_seq: bool, seed: int, shuffle: bool = True) -> pa.Table:
    """The runs' rows, each run in key order (as a data file is), concatenated in a random run order
    (``shuffle=False``: in the order drawn)."""
    cols = KEY_LAYOUTS[layout]
    keys = [f"_KEY_k{i}" for i in range(len(cols))]
    rng = np.random.default_rng(seed)
    total = sum(len(r) for r in runs)
    seqs = np.arange(total, dtype=np.int64) if run_seq else rng.permutation(total).astype(np.int64)
    tables, at = [], 0
    for run in runs:
        data: dict[str, pa.Array] = {k: pa.array([r[i] for r in run], t) for i, (k, (t, _)) in enumerate(zip(keys, cols))}
        nk = len(cols)
        data[SEQ] = pa.array(seqs[at:at + len(run)])
        data[KIND] = pa.array([r[nk] for r in run], pa.int8())
        for j, (name, typ) in enumerate((("a", pa.int64()), ("b", pa.string()), ("g", pa.int32()),
                                         ("sf", pa.int32()), ("d", pa.float64()))):
            data[name] = pa.array([r[nk + 1 + j] for r in run], typ)
        at += len(run)
        t = pa.table(data)
        spec = build_merge_spec(CoreOptions({}), keys, VALUE_FIELDS, [k[5:] for k in keys])
        tables.append(t.take(sort_indices(t, spec, with_sequence_number=False)))
    order = rng.permutation(len(tables)) if shuffle else range(len(tables))
    return pa.concat_tables([tables[i] for i in order])


def rows(t: pa.Table) -> str:
    return repr(t.to_pylist())  # NaN and -0.0 keys compare as they print


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts(), st.sampled_from(sorted(ENGINES)), st.sampled_from(sorted(SEQUENCE_FIELD)), st.booleans(),
       st.integers(0, 2**16))
def test_merge_of_sorted_runs_equals_the_sort_based_merge(
    case: tuple[str, list[list[tuple[Any, ...]]], bool], engine_name: str, seq_field: str, keep_deletes: bool,
    seed: int,
) -> None:
    layout, runs, run_seq = case
    table = build(layout, runs, run_seq, seed)
    keys = [f"_KEY_k{i}" for i in range(len(KEY_LAYOUTS[layout]))]
    options = CoreOptions({**ENGINES[engine_name], **SEQUENCE_FIELD[seq_field]})
    try:
        spec = build_merge_spec(options, keys, VALUE_FIELDS, [k[5:] for k in keys])
    except PaimonError:
        return  # a combination Paimon refuses (the same for both merges)
    assert_merges_as_the_reference(table, table, spec, options, keep_deletes, sorted_view(table, spec))


def assert_merges_as_the_reference(table: pa.Table, reference_table: pa.Table, spec: Any, options: CoreOptions,
                                   keep_deletes: bool, ours: Any) -> None:
    """``ours``, a merge order of ``table``, is the reference order of ``reference_table`` (the same
    rows, perhaps with more columns), and the engine's merge over it gives the reference merge's
    rows (without the columns ``table`` lacks), or the same error."""
    ref = reference_view(reference_table, spec)
    assert ours.order.tolist() == ref.order.tolist()
    assert ours.starts.tolist() == ref.starts.tolist()
    merge = engine(options.merge_engine).merge
    try:
        expected = REFERENCE_MERGE[options.merge_engine](reference_table, spec, keep_deletes, view=ref)
    except PaimonError as e:
        with pytest.raises(type(e)):
            merge(table, spec, keep_deletes, view=ours)
        return
    missing = [c for c in expected.column_names if c not in table.column_names]
    assert rows(merge(table, spec, keep_deletes, view=ours)) == rows(expected.drop_columns(missing))


PARTIAL_UPDATE_ENGINES = sorted(e for e in ENGINES if e.startswith("partial_update"))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts(shared_nulls=True), st.sampled_from(PARTIAL_UPDATE_ENGINES), st.sampled_from(sorted(SEQUENCE_FIELD)),
       st.booleans(), st.integers(0, 2**16))
def test_partial_update_of_shared_keys_with_nulls_equals_the_sort_based_merge(
    case: tuple[str, list[list[tuple[Any, ...]]], bool], engine_name: str, seq_field: str, keep_deletes: bool,
    seed: int,
) -> None:
    """The merge test above, drawn where partial-update bugs hide: keys that several records
    share, value columns never, sometimes or mostly null, retractions or none."""
    test_merge_of_sorted_runs_equals_the_sort_based_merge.hypothesis.inner_test(  # type: ignore[attr-defined]
        case, engine_name, seq_field, keep_deletes, seed)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts(), st.sampled_from(sorted(ENGINES)), st.booleans(), st.integers(0, 2**16), st.integers(-3, 3))
def test_runs_oldest_first_merge_without_sequence_numbers_as_the_reference(
    case: tuple[str, list[list[tuple[Any, ...]]], bool], engine_name: str, keep_deletes: bool, seed: int,
    shift: int,
) -> None:
    """The reads' shortcut for runs whose sequence ranges do not overlap, concatenated oldest first
    (``sorted_view(..., oldest_first=True)``): no ``_SEQUENCE_NUMBER`` column and no check of each
    key's record order, and key codes computed over more rows than the merge's (the codes of every
    run of a section, sliced) give the reference's order and rows."""
    layout, runs, _ = case
    table = build(layout, runs, True, seed, shuffle=False)  # sequence numbers grow run by run
    keys = [f"_KEY_k{i}" for i in range(len(KEY_LAYOUTS[layout]))]
    options = CoreOptions(ENGINES[engine_name])
    try:
        spec = build_merge_spec(options, keys, VALUE_FIELDS, [k[5:] for k in keys])
    except PaimonError:
        return
    if spec.sequence_groups:
        return  # reads keep _SEQUENCE_NUMBER for sequence groups (never ordered by file)
    # codes over the table with rows of other runs around it (rolled by ``shift``), then sliced
    before = table.slice(0, max(0, shift))
    all_codes = encode_keys(pa.concat_tables([before, table, table.slice(0, max(0, -shift))]), keys)
    codes = None if all_codes is None else all_codes[before.num_rows:before.num_rows + table.num_rows]
    no_seq = table.drop_columns([SEQ])
    ours = sorted_view(no_seq, spec, codes, oldest_first=True)
    assert_merges_as_the_reference(no_seq, table, spec, options, keep_deletes, ours)


def test_keys_are_encoded_as_one_ordered_integer_when_they_fit() -> None:
    t = pa.table({"d": pa.array([datetime.date(2024, 1, 2), None, datetime.date(2024, 1, 1)], pa.date32()),
                  "n": pa.array([5, 7, -1], pa.int16()), "s": pa.array(["a", "b", "c"])})
    codes = encode_keys(t, ["d", "n"])
    assert codes is not None
    assert np.argsort(codes).tolist() == [1, 2, 0]  # null first, then by date, then by short
    assert encode_keys(t, ["s"]) is None  # strings: the Arrow sort
    wide = pa.table({"x": pa.array([-(2**63), 2**63 - 1]), "y": pa.array([0, 2**62])})
    assert encode_keys(wide, ["x", "y"]) is None  # more than 63 bits
    assert encode_keys(wide, ["x"]).tolist() == [-(2**63), 2**63 - 1]  # type: ignore[union-attr]


def test_a_large_run_and_small_runs_merge_without_a_full_sort() -> None:
    """A bucket's common shape: one large run and a few small ones; the merged order is the reference's."""
    rng = np.random.default_rng(3)
    big = pa.table({"_KEY_k": np.arange(0, 20_000, dtype=np.int64), SEQ: np.arange(20_000, dtype=np.int64),
                    KIND: np.zeros(20_000, dtype=np.int8)})
    parts = [big]
    for i in range(4):
        k = np.sort(rng.choice(25_000, 300, replace=False)).astype(np.int64)
        parts.append(pa.table({"_KEY_k": k, SEQ: np.full(300, 20_000 + i, dtype=np.int64),
                               KIND: np.where(k % 7 == 0, 3, 0).astype(np.int8)}))
    table = pa.concat_tables(parts[::-1])  # newest run first: records of a key arrive newest first
    spec = build_merge_spec(CoreOptions({}), ["_KEY_k"], [], ["k"])
    assert sorted_view(table, spec).order.tolist() == reference_view(table, spec).order.tolist()
    merge = engine("deduplicate").merge
    assert merge(table, spec).equals(merge(table, spec, view=reference_view(table, spec)))


@pytest.mark.parametrize("engine_name", ["partial_update", "partial_update_ignore_delete", "aggregation",
                                         "aggregation_remove", "aggregation_last_value", "aggregation_double",
                                         "aggregation_double_max",
                                         "aggregation_ignore_retract"])
@pytest.mark.parametrize("shape", ["retractions", "no_retraction", "plain"])
def test_an_upsert_bucket_merges_as_the_reference(engine_name: str, shape: str) -> None:
    """A bucket's common shape at some size (a large run, a few small ones, nulls in the values,
    some retractions; or no retraction; or neither retraction nor null, where every key takes its
    newest record): the engines' merges (``merge_gather``) give the reference merges' rows."""
    rng = np.random.default_rng(11)
    null = 0.0 if shape == "plain" else 1.0  # scales the null rates
    parts = []
    for i, (n, domain) in enumerate(((6_000, 6_000), (900, 8_000), (400, 8_000))):
        k = np.sort(rng.choice(domain, n, replace=False)).astype(np.int64)
        deletes = 0.05 if i and shape == "retractions" else 0.0
        kinds = np.where(rng.random(n) < deletes, 3, np.where(rng.random(n) < 0.1, 2, 0))
        parts.append(pa.table({
            "_KEY_k0": k, SEQ: np.arange(n, dtype=np.int64) + 10_000 * i, KIND: kinds.astype(np.int8),
            "a": pa.array(rng.integers(-5, 5, n), mask=rng.random(n) < 0.2 * null),
            "b": pa.array([f"s{x}" for x in rng.integers(0, 50, n)], mask=rng.random(n) < 0.3 * null),
            "g": pa.array(rng.integers(0, 3, n).astype(np.int32), mask=rng.random(n) < 0.1 * null),
            "sf": pa.array(rng.integers(0, 3, n).astype(np.int32)),
            "d": pa.array(rng.random(n) - 0.5, mask=rng.random(n) < 0.15 * null),
        }))
    table = pa.concat_tables(parts)
    options = CoreOptions(ENGINES[engine_name])
    spec = build_merge_spec(options, ["_KEY_k0"], VALUE_FIELDS, ["k0"])
    view = sorted_view(table, spec)
    for keep_deletes in (False, True):
        try:
            expected = REFERENCE_MERGE[options.merge_engine](table, spec, keep_deletes, view=reference_view(table, spec))
        except PaimonError as e:
            with pytest.raises(type(e)):
                engine(options.merge_engine).merge(table, spec, keep_deletes, view=view)
            continue
        assert engine(options.merge_engine).merge(table, spec, keep_deletes, view=view).equals(expected)


@pytest.mark.parametrize("records", [2, 5, KeyGroups.MAX_STEPS + 3])  # the last: the segments' folds
@pytest.mark.parametrize("values", ["plain", "nulls", "nan", "near_overflow"])
def test_an_aggregation_without_retraction_folds_the_key_groups_as_the_reference(records: int, values: str) -> None:
    """Every record aggregates (no retraction): integer sums and min / max of numbers fold each key
    group by rows (``KeyGroups``) or fall back to the segments' folds (a key of many records, NaNs,
    sums that might overflow); the rows are the reference merge's, errors included."""
    rng = np.random.default_rng(records)
    parts = []
    for i in range(records):  # run i holds every key up to a bound: keys of 1..records records
        k = np.arange(0, 200 + 60 * (records - i), dtype=np.int64)
        n = len(k)
        null = rng.random(n) < (0.3 if values == "nulls" else 0.0)
        doubles = rng.choice(np.array([-0.0, 0.0, 1.5, -2.25, np.inf, -np.inf, 3.0]), n)
        if values == "nan":
            doubles[rng.random(n) < 0.05] = np.nan
        big = 2**62 if values == "near_overflow" else 1_000
        parts.append(pa.table({
            "_KEY_k0": k, SEQ: np.arange(n, dtype=np.int64) + 10_000 * i,
            KIND: np.where(rng.random(n) < 0.2, 2, 0).astype(np.int8),
            "a": pa.array(rng.integers(-big, big, n), mask=null),
            "b": pa.array([f"s{x}" for x in rng.integers(0, 50, n)]),
            "g": pa.array(rng.integers(-(2**20), 2**20, n).astype(np.int32), mask=null),
            "sf": pa.array(rng.integers(-5, 5, n).astype(np.int32)),
            "d": pa.array(doubles, mask=null),
        }))
    table = pa.concat_tables(parts)
    for options in ({"merge-engine": "aggregation", "fields.a.aggregate-function": "sum",
                     "fields.g.aggregate-function": "sum", "fields.d.aggregate-function": "max",
                     "fields.sf.aggregate-function": "min"},
                    {"merge-engine": "aggregation", "fields.a.aggregate-function": "max",
                     "fields.g.aggregate-function": "min", "fields.d.aggregate-function": "min",
                     "fields.sf.aggregate-function": "max"}):
        spec = build_merge_spec(CoreOptions(options), ["_KEY_k0"], VALUE_FIELDS, ["k0"])
        try:
            expected = reference.aggregation(table, spec, view=reference_view(table, spec))
        except PaimonError as e:
            with pytest.raises(type(e)):
                engine("aggregation").merge(table, spec)
            continue
        assert rows(engine("aggregation").merge(table, spec)) == rows(expected)


@pytest.mark.parametrize("key_type", [pa.string(), pa.binary(), pa.large_string()])
@pytest.mark.parametrize("engine_name", ["deduplicate", "first_row", "partial_update", "aggregation"])
@pytest.mark.parametrize("keys", ["mixed", "prefixed"])
def test_string_keys_merge_their_sorted_runs_as_the_reference(key_type: pa.DataType, engine_name: str,
                                                               keys: str) -> None:
    """String and binary keys as numpy fixed-width bytes (``fixed_width_keys``; ``prefixed``: as the
    int64 of the bytes after their common prefix, ``prefix_codes``): runs of keys with shared
    prefixes longer than a word, multi-byte characters and bytes above 0x7f (unsigned order), a key
    in several runs; the order, the key groups and the merges are the reference's."""
    rng = np.random.default_rng(5)
    alphabet = ["a", "b", "\u00e9", "\u00ff", "~", "ab"]
    if keys == "mixed":
        domain = sorted({"".join(rng.choice(alphabet, rng.integers(0, 7))) + ("x" * int(rng.integers(0, 11)))
                         for _ in range(3_000)})
    else:  # "user-" and up to 8 more bytes: "user-", "user-0", "user-10", "user-\u00e9\u00e9a" ...
        domain = sorted({"user-" + "".join(rng.choice([*alphabet, "0", "1"], rng.integers(0, 5)))[:8]
                         for _ in range(3_000)} | {"user-"})
    parts = []
    for i, n in enumerate((2_000, 400, 150)):
        picked = rng.choice(len(domain), min(n, len(domain)), replace=False)
        values = [domain[j].encode() if pa.types.is_binary(key_type) else domain[j] for j in picked]
        m = len(values)
        t = pa.table({"_KEY_k0": pa.array(values, key_type), SEQ: np.arange(m, dtype=np.int64) + 10_000 * i,
                      KIND: np.where(rng.random(m) < 0.1, 2, 0).astype(np.int8),
                      "a": pa.array(rng.integers(-5, 5, m)), "b": pa.array([f"s{x}" for x in rng.integers(0, 9, m)]),
                      "g": pa.array(rng.integers(0, 3, m).astype(np.int32)),
                      "sf": pa.array(rng.integers(0, 3, m).astype(np.int32)), "d": pa.array(rng.random(m))})
        parts.append(t.take(pa.compute.sort_indices(t, [("_KEY_k0", "ascending")])))  # a run: by key (bytes)
    table = pa.concat_tables(parts)
    fixed = fixed_width_keys(table.column("_KEY_k0"))
    assert fixed is not None  # the fixed-width path, not Arrow's sort
    assert (prefix_codes(table.column("_KEY_k0")) is not None) == (keys == "prefixed")
    options = CoreOptions(ENGINES[engine_name])
    spec = build_merge_spec(options, ["_KEY_k0"], VALUE_FIELDS, ["k0"])
    ours, ref = sorted_view(table, spec), reference_view(table, spec)
    assert ours.order.tolist() == ref.order.tolist()
    assert ours.starts.tolist() == ref.starts.tolist()
    expected = REFERENCE_MERGE[options.merge_engine](table, spec, view=ref)
    assert engine(options.merge_engine).merge(table, spec, view=ours).equals(expected)


def test_string_keys_outside_the_fixed_width_form_are_left_to_the_arrow_sort() -> None:
    assert fixed_width_keys(pa.array(["a", None])) is None  # a null key
    assert fixed_width_keys(pa.array([b"a", b"a\x00"])) is None  # "a" padded would equal "a\0"
    assert fixed_width_keys(pa.array(["a" * 65])) is None  # wider than 64 bytes
    assert fixed_width_keys(pa.array([1, 2])) is None
    fixed = fixed_width_keys(pa.chunked_array([pa.array(["b", "\u00e9"]), pa.array(["", "a" * 9])]))
    assert fixed is not None and fixed.dtype == np.dtype("S16")
    assert np.argsort(fixed, kind="stable").tolist() == [2, 3, 0, 1]  # "" < "a..." < "b" < "\xc3\xa9"


def test_string_keys_after_a_common_prefix_become_integers_ordering_like_their_bytes() -> None:
    keys = ["user-9", "user-10", "user-", "user-\u00e9", "user-~~~~~~~~", "user-a\x01"]
    codes = prefix_codes(pa.array(keys))
    assert codes is not None
    assert [keys[i] for i in np.argsort(codes)] == sorted(keys, key=lambda k: k.encode())
    long_prefix = ["x" * 20 + "b", "x" * 20, "x" * 20 + "a" * 8]  # the prefix spans words
    codes = prefix_codes(pa.array(long_prefix, pa.large_string()))
    assert codes is not None and np.argsort(codes).tolist() == [1, 2, 0]
    assert prefix_codes(pa.array(["a" * 10, "b"])) is None  # 10 bytes after the (empty) common prefix


def _python_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A key as Paimon's comparator orders it, in Python: column by column, nulls first, strings by
    their UTF-8 bytes (unsigned, a prefix first: Python's ``bytes`` order)."""
    return tuple((0,) if v is None else (1, v.encode() if isinstance(v, str) else v) for v in row)


COMPOSITE_COLUMNS: list[tuple[pa.DataType, st.SearchStrategy[Any]]] = [
    (pa.string(), st.one_of(st.none(), st.sampled_from(TRICKY_STRINGS), st.text("a\x00\u00e9", max_size=4))),
    (pa.large_string(), st.text("\x00ab", max_size=10)),
    (pa.binary(), st.one_of(st.none(), st.binary(max_size=3))),
    (pa.int64(), st.one_of(st.none(), st.integers(-3, 3))),
    (pa.int64(), st.sampled_from([-BIG - 1, -1, 0, BIG])),
    (pa.int8(), st.integers(-128, 127)),
    (pa.date32(), st.one_of(st.none(), st.dates(datetime.date(2024, 1, 1), datetime.date(2024, 1, 3)))),
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(len(COMPOSITE_COLUMNS))), min_size=1, max_size=4).flatmap(
    lambda picked: st.tuples(st.just(picked), st.lists(st.tuples(*(COMPOSITE_COLUMNS[i][1] for i in picked)),
                                                        max_size=40))))
def test_composite_codes_order_and_compare_like_the_keys(case: tuple[list[int], list[tuple[Any, ...]]]) -> None:
    """``composite_codes`` of any mix of string, binary and integer columns (nulls, zero bytes,
    shared prefixes, the int64 bounds): sorting the codes sorts the rows as Paimon compares keys,
    and two rows have equal codes exactly when their keys are equal."""
    picked, rows_ = case
    names = [f"k{j}" for j in range(len(picked))]
    table = pa.table({name: pa.array([r[j] for r in rows_], COMPOSITE_COLUMNS[i][0])
                      for j, (name, i) in enumerate(zip(names, picked))})
    codes = composite_codes(table, names)
    assert codes is not None  # every column here has a digits form, none is over 64 bytes
    assert codes.dtype == np.int64 or (codes.dtype.kind == "S" and codes.dtype.itemsize % 8 == 0)
    keys = [_python_key(r) for r in rows_]
    order = np.argsort(codes, kind="stable").tolist()
    assert order == sorted(range(len(keys)), key=lambda i: keys[i])
    for i in range(len(keys) - 1):
        assert (codes[i] == codes[i + 1]) == (keys[i] == keys[i + 1])


def test_composite_codes_take_an_integer_when_they_fit_else_bytes_else_nothing() -> None:
    users = pa.array(["user-1", "user-10", None, "user-2", "user-10"])
    items = pa.array([3, 1, 2, 2, 0], pa.int64())
    codes = composite_codes(pa.table({"u": users, "i": items}), ["u", "i"])
    assert codes is not None and codes.dtype == np.int64
    assert np.argsort(codes, kind="stable").tolist() == [2, 0, 4, 1, 3]  # null first; "user-10" < "user-2"
    wide = pa.table({"u": users, "i": pa.array([-(2**63), 2**63 - 1, 0, 5, 7], pa.int64())})
    codes = composite_codes(wide, ["u", "i"])
    # a null flag, two bytes of the users (after "user-"), the 64 bits of the items: the bytes form
    assert codes is not None and codes.dtype == np.dtype("S16")
    assert np.argsort(codes, kind="stable").tolist() == [2, 0, 4, 1, 3]
    zero = pa.table({"s": pa.array([b"a\x00", b"a", b"ab", b"a\x00"])})
    codes = composite_codes(zero, ["s"])
    assert codes is not None and np.argsort(codes, kind="stable").tolist() == [1, 0, 3, 2]
    assert codes[0] == codes[3] and codes[0] != codes[1]  # "a" and "a\0" stay apart
    assert composite_codes(pa.table({"s": pa.array(["a" * 65, "b"])}), ["s"]) is None  # over 64 bytes
    assert composite_codes(pa.table({"s": pa.array(["a" * 40, "b" * 40]), "t": pa.array(["c" * 30, "d"])}),
                           ["s", "t"]) is None  # 70 bytes
    assert composite_codes(pa.table({"d": pa.array([1.5, 2.5])}), ["d"]) is not None  # doubles: ordered ints
    decimals = pa.table({"d": pa.array([1, 2], pa.decimal128(5, 2)), "s": pa.array(["a", "b"])})
    assert composite_codes(decimals, ["s", "d"]) is None  # decimals: the Arrow sort


@pytest.mark.parametrize("layout", ["string_bigint", "string_string", "nullable_string"])
@pytest.mark.parametrize("engine_name", ["deduplicate", "first_row", "partial_update", "aggregation"])
def test_composite_keys_merge_their_sorted_runs_as_the_reference(layout: str, engine_name: str) -> None:
    """Composite keys with strings and nullable string keys (``composite_codes``) at some size:
    three runs of (user, item) keys ("user-<n>" of variable length, zero bytes, nulls), a key in
    several runs; the order, the key groups and the merges are the reference's."""
    rng = np.random.default_rng(9)
    users = ["", "\x00", "a\x00", "a", "ab", "\u00e9"] + [f"user-{i}" for i in range(300)]
    parts = []
    for i, n in enumerate((2_000, 400, 150)):
        m = n
        u = pa.array([users[j] for j in rng.integers(0, len(users), m)], mask=rng.random(m) < 0.05)
        if layout == "string_bigint":
            keys = {"_KEY_k0": u, "_KEY_k1": pa.array(rng.integers(-3, 30, m), mask=rng.random(m) < 0.05)}
        elif layout == "string_string":
            keys = {"_KEY_k0": u, "_KEY_k1": pa.array([f"item-{x}" for x in rng.integers(0, 12, m)])}
        else:
            keys = {"_KEY_k0": u}
        t = pa.table({**keys, SEQ: np.arange(m, dtype=np.int64) + 10_000 * i,
                      KIND: np.where(rng.random(m) < 0.1, 2, 0).astype(np.int8),
                      "a": pa.array(rng.integers(-5, 5, m)), "b": pa.array([f"s{x}" for x in rng.integers(0, 9, m)]),
                      "g": pa.array(rng.integers(0, 3, m).astype(np.int32)),
                      "sf": pa.array(rng.integers(0, 3, m).astype(np.int32)), "d": pa.array(rng.random(m))})
        key_names = list(keys)
        spec = build_merge_spec(CoreOptions({}), key_names, VALUE_FIELDS, [k[5:] for k in key_names])
        run = t.take(sort_indices(t, spec, with_sequence_number=False))
        # a run holds each key once (its newest record), as a data file does
        parts.append(run.filter(pa.array(group_last_mask(run, key_names))))
    table = pa.concat_tables(parts)
    assert composite_codes(table, key_names) is not None  # the codes, not Arrow's sort
    options = CoreOptions(ENGINES[engine_name])
    spec = build_merge_spec(options, key_names, VALUE_FIELDS, [k[5:] for k in key_names])
    ours, ref = sorted_view(table, spec), reference_view(table, spec)
    assert ours.order.tolist() == ref.order.tolist()
    assert ours.starts.tolist() == ref.starts.tolist()
    expected = REFERENCE_MERGE[options.merge_engine](table, spec, view=ref)
    assert engine(options.merge_engine).merge(table, spec, view=ours).equals(expected)
