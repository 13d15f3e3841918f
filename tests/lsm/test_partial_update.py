"""partial-update with sequence groups and aggregate functions against a row-at-a-time model of
Paimon's PartialUpdateMergeFunction."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.engines import build_merge_spec
from paimon_sql.lsm.merge import KIND, SEQ, partial_update
from paimon_sql.options import CoreOptions
from paimon_sql.types import BigIntType, DataField, IntType, VarBinaryType, VarCharType
from tests.helpers.aggregate_model import Col, Group, canon, partial_update_key

KEY = "_KEY_k"
COLUMNS: list[tuple[str, Any, pa.DataType]] = [
    ("k", BigIntType(nullable=False), pa.int64()),
    ("g1", IntType(), pa.int32()),
    ("a", VarCharType(), pa.string()),
    ("b", BigIntType(), pa.int64()),
    ("g2", IntType(), pa.int32()),
    ("g3", VarCharType(), pa.string()),
    ("c", VarCharType(), pa.string()),
    ("d", IntType(), pa.int32()),
    ("e", BigIntType(), pa.int64()),
    ("f", VarCharType(), pa.string()),
    ("p", BigIntType(), pa.int64()),
    ("x", BigIntType(), pa.int64()),
    ("y", BigIntType(), pa.int64()),
]
NAMES = [c[0] for c in COLUMNS]
FIELDS = [DataField(i, n, t) for i, (n, t, _) in enumerate(COLUMNS)]
OPTIONS = {
    "merge-engine": "partial-update",
    "fields.g1.sequence-group": "a,b",
    "fields.g2,g3.sequence-group": "c,d,e,f,p",
    "fields.b.aggregate-function": "sum",
    "fields.c.aggregate-function": "last_value",
    "fields.d.aggregate-function": "max",
    "fields.d.ignore-retract": "true",
    "fields.e.aggregate-function": "last_non_null_value",
    "fields.f.aggregate-function": "first_value",
    "fields.f.ignore-retract": "true",
    "fields.p.aggregate-function": "product",
    "fields.y.aggregate-function": "last_non_null_value",
}
GROUPS = [Group(["g1"], ["a", "b"]), Group(["g2", "g3"], ["c", "d", "e", "f", "p"])]


def model_aggs() -> dict[str, Col]:
    return {
        "b": Col("b", "sum", "int64"), "c": Col("c", "last_value", "string"),
        "d": Col("d", "max", "int32", ignore_retract=True), "e": Col("e", "last_non_null_value", "int64"),
        "f": Col("f", "first_value", "string", ignore_retract=True), "p": Col("p", "product", "int64"),
    }


def maybe(s: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), s)


VALUES: dict[str, st.SearchStrategy[Any]] = {
    "g1": maybe(st.integers(0, 3)), "a": maybe(st.sampled_from(["a1", "a2"])), "b": maybe(st.integers(-5, 5)),
    "g2": maybe(st.integers(0, 2)), "g3": maybe(st.sampled_from(["m", "n"])), "c": maybe(st.sampled_from(["c1", "c2"])),
    "d": maybe(st.integers(0, 9)), "e": maybe(st.integers(0, 9)), "f": maybe(st.sampled_from(["f1", "f2", "f3"])),
    "p": maybe(st.sampled_from([-2, -1, 1, 2, 3])), "x": maybe(st.integers(0, 9)), "y": maybe(st.integers(0, 9)),
}


@st.composite
def records(draw: Any) -> list[tuple[int, int, list[Any]]]:
    out = []
    for _ in range(draw(st.integers(0, 16))):
        key = draw(st.integers(0, 3))
        values = [key] + [draw(VALUES[n]) for n in NAMES[1:]]
        out.append((key, draw(st.sampled_from([0, 0, 2, 1, 3])), values))
    return out


def to_table(recs: list[tuple[int, int, list[Any]]], seqs: list[int]) -> pa.Table:
    data = {KEY: pa.array([r[0] for r in recs], pa.int64()), SEQ: pa.array(seqs, pa.int64()),
            KIND: pa.array([r[1] for r in recs], pa.int8())}
    for i, (n, _, t) in enumerate(COLUMNS):
        data[n] = pa.array([r[2][i] for r in recs], t)
    return pa.table(data)


@settings(max_examples=400, deadline=None)
@given(records(), st.randoms(use_true_random=False), st.booleans())
def test_sequence_groups_match_the_model(recs: list[tuple[int, int, list[Any]]], rnd: Any, ignore_delete: bool) -> None:
    seqs = list(range(len(recs)))
    rnd.shuffle(seqs)
    ordered = [r for _, r in sorted(zip(seqs, recs), key=lambda x: x[0])]
    by_key: dict[int, list[tuple[int, list[Any]]]] = {}
    for key, kind, values in ordered:
        by_key.setdefault(key, []).append((kind, values))
    model = {k: partial_update_key(rows, NAMES, GROUPS, model_aggs(), ["k"], ignore_delete)
             for k, rows in by_key.items()}
    options = dict(OPTIONS, **({"ignore-delete": "true"} if ignore_delete else {}))
    spec = build_merge_spec(CoreOptions(options), [KEY], FIELDS, ["k"])
    out = partial_update(to_table(recs, seqs), spec, keep_deletes=True).to_pylist()
    assert [r[KEY] for r in out] == sorted(model)
    for r in out:
        kind, values = model[r[KEY]]
        got = [canon(r[n]) for n in NAMES]
        want = [canon(v) for v in values]
        diff = {n: (g, w) for n, g, w in zip(NAMES, got, want) if g != w}
        assert r[KIND] == kind and not diff, (r[KEY], r[KIND], kind, diff, by_key[r[KEY]])
    read = partial_update(to_table(recs, seqs), spec).column(KEY).to_pylist()
    assert read == sorted(k for k, (kind, _) in model.items() if kind in (0, 2))


def spec_of(**options: str) -> Any:
    return build_merge_spec(CoreOptions({"merge-engine": "partial-update", **options}), [KEY], FIELDS, ["k"])


def test_sequence_group_options_are_checked_like_paimon() -> None:
    with pytest.raises(ValidationError, match="Must use sequence group for aggregation functions"):
        spec_of(**{"fields.x.aggregate-function": "sum"})
    with pytest.raises(ValidationError, match="Must use sequence group"):
        spec_of(**{"fields.default-aggregate-function": "max"})
    spec_of(**{"fields.default-aggregate-function": "last_non_null_value"})  # needs no group
    with pytest.raises(ValidationError, match="primary key field 'k'"):
        spec_of(**{"fields.g1.sequence-group": "k"})
    with pytest.raises(ValidationError, match="defined repeatedly"):
        spec_of(**{"fields.g1.sequence-group": "a", "fields.g2.sequence-group": "a"})
    with pytest.raises(ValidationError, match="can not be found"):
        spec_of(**{"fields.g1.sequence-group": "nope"})
    with pytest.raises(ValidationError, match="conflicting"):
        spec_of(**{"fields.g1.sequence-group": "a", "partial-update.remove-record-on-delete": "true"})
    remove = "partial-update.remove-record-on-sequence-group"
    assert spec_of(**{"fields.g1.sequence-group": "a", "fields.g2,g3.sequence-group": "c",
                      remove: "g1,g3"}).remove_record_on_sequence_group == ("g1", "g3")
    with pytest.raises(ValidationError, match=f"field 'a' defined in '{remove}' option must be part of sequence groups"):
        spec_of(**{"fields.g1.sequence-group": "a", remove: "a"})
    with pytest.raises(ValidationError, match=f"field 'g1' defined in '{remove}'"):
        spec_of(**{remove: "g1"})  # no sequence group at all
    with pytest.raises(ValidationError, match=f"ignore-delete and {remove} have conflicting behavior"):
        spec_of(**{"fields.g1.sequence-group": "a", remove: "g1", "ignore-delete": "true"})
    with pytest.raises(UnsupportedError, match="'listagg' of field 'a'"):
        spec_of(**{"fields.g1.sequence-group": "a", "fields.a.aggregate-function": "listagg"})
    binary = [*FIELDS, DataField(len(FIELDS), "bm", VarBinaryType())]
    with pytest.raises(UnsupportedError, match="'rbm64' of field 'bm' in a partial-update sequence group"):
        build_merge_spec(CoreOptions({"merge-engine": "partial-update", "fields.g1.sequence-group": "bm",
                                      "fields.bm.aggregate-function": "rbm64"}), [KEY], binary, ["k"])


# -- partial-update.remove-record-on-sequence-group --------------------------------------------------

REMOVE = "partial-update.remove-record-on-sequence-group"


@settings(max_examples=400, deadline=None)
@given(records(), st.randoms(use_true_random=False),
       st.sampled_from([("g1",), ("g3",), ("g2",), ("g1", "g2"), ("g2", "g3")]))
def test_remove_record_on_sequence_group_matches_the_model(
    recs: list[tuple[int, int, list[Any]]], rnd: Any, remove_on: tuple[str, ...]
) -> None:
    """Paimon's row-at-a-time function (the model): a -D record that is not older than the row in
    the group of a listed sequence field replaces the row by its values and is a -D; later records
    merge onto it."""
    seqs = list(range(len(recs)))
    rnd.shuffle(seqs)
    ordered = [r for _, r in sorted(zip(seqs, recs), key=lambda x: x[0])]
    by_key: dict[int, list[tuple[int, list[Any]]]] = {}
    for key, kind, values in ordered:
        by_key.setdefault(key, []).append((kind, values))
    model = {k: partial_update_key(rows, NAMES, GROUPS, model_aggs(), ["k"], False, remove_on)
             for k, rows in by_key.items()}
    spec = build_merge_spec(CoreOptions(dict(OPTIONS, **{REMOVE: ",".join(remove_on)})), [KEY], FIELDS, ["k"])
    out = partial_update(to_table(recs, seqs), spec, keep_deletes=True).to_pylist()
    assert [r[KEY] for r in out] == sorted(model)
    for r in out:
        kind, values = model[r[KEY]]
        diff = {n: (canon(r[n]), canon(v)) for n, v in zip(NAMES, values) if canon(r[n]) != canon(v)}
        assert r[KIND] == kind and not diff, (r[KEY], r[KIND], kind, diff, by_key[r[KEY]])


F_NAMES = [f"f{i}" for i in range(7)]
F_OPTIONS = {"merge-engine": "partial-update", "fields.f3.sequence-group": "f1,f2",
             "fields.f6.sequence-group": "f4,f5"}


def merge_f(rows: list[tuple[int, tuple[Any, ...]]], names: list[str] = F_NAMES, **options: str) -> tuple[int, list[Any]]:
    """The merge of the records ``rows`` (kind, values in ``names`` order) of key f0."""
    fields = [DataField(i, n, IntType(nullable=n != "f0")) for i, n in enumerate(names)]
    spec = build_merge_spec(CoreOptions({**F_OPTIONS, **options}), ["_KEY_f0"], fields, ["f0"])
    data = {"_KEY_f0": pa.array([v[names.index("f0")] for _, v in rows], pa.int32()),
            SEQ: pa.array(range(len(rows)), pa.int64()), KIND: pa.array([k for k, _ in rows], pa.int8())}
    for i, n in enumerate(names):
        data[n] = pa.array([v[i] for _, v in rows], pa.int32())
    out = partial_update(pa.table(data), spec, keep_deletes=True).to_pylist()
    assert len(out) == 1
    return out[0][KIND], [out[0][n] for n in names]


def test_sequence_group_partial_delete() -> None:
    """PartialUpdateMergeFunctionTest.testSequenceGroupPartialDelete, checked after every record."""
    records = [
        (0, (1, 1, 1, 1, 1, 1, 1)),
        (0, (1, 2, 2, 2, 2, 2, None)),
        (0, (1, 3, 3, 1, 3, 3, 3)),
        (3, (1, 1, 1, 3, 1, 1, None)),  # f6 group empty: only retracts the f3 group
        (3, (1, 1, 1, 3, 1, 1, 4)),  # the f6 group advances: the row becomes this record
        (0, (1, 4, 4, 4, 5, 5, 5)),
        (3, (1, 1, 1, 6, 1, 1, 6)),
    ]
    expected = [
        None,
        (0, [1, 2, 2, 2, 1, 1, 1]),
        (0, [1, 2, 2, 2, 3, 3, 3]),
        (0, [1, None, None, 3, 3, 3, 3]),
        (3, [1, 1, 1, 3, 1, 1, 4]),
        (0, [1, 4, 4, 4, 5, 5, 5]),
        (3, [1, 1, 1, 6, 1, 1, 6]),
    ]
    for n in range(2, len(records) + 1):
        assert merge_f(records[:n], **{REMOVE: "f6"}) == expected[n - 1], n
    # an older -D of the listed group retracts nothing and removes nothing
    assert merge_f([(0, (1, 1, 1, 5, 1, 1, 5)), (3, (1, 2, 2, 6, 2, 2, 4))], **{REMOVE: "f6"}) == (
        0, [1, None, None, 6, 1, 1, 5])
    # a -U never removes the row
    assert merge_f([(0, (1, 1, 1, 5, 1, 1, 5)), (1, (1, 2, 2, 6, 2, 2, 6))], **{REMOVE: "f6"}) == (
        0, [1, None, None, 6, None, None, 6])


def test_sequence_group_partial_delete_with_projection() -> None:
    """PartialUpdateMergeFunctionTest.testSequenceGroupPartialDeleteWithProjection: reordered fields."""
    names = ["f3", "f6", "f0", "f1", "f2", "f4", "f5"]
    values = (11, 22, 100, 200, 1, 12, 21)
    assert merge_f([(0, values), (3, values)], names, **{REMOVE: "f3,f6"}) == (3, list(values))


def test_a_leading_delete_of_a_listed_group_removes_the_row() -> None:
    """A key's first record, a -D, initialises the row and then removes it (its group ties)."""
    assert merge_f([(3, (1, 1, 1, 2, 1, 1, 2)), (0, (1, 9, 9, None, 8, 8, 1))], **{REMOVE: "f3"}) == (
        0, [1, 1, 1, 2, 1, 1, 2])
    assert merge_f([(0, (1, 5, 5, 5, 5, 5, 5)), (3, (1, 1, 1, 2, 1, 1, 9))], **{REMOVE: "f3"}) == (
        0, [1, 5, 5, 5, None, None, 9])


def test_first_value_keeps_its_state_across_a_removal() -> None:
    """Paimon's first_value is initialised by the first record that reaches it and stays so after a
    removal (the row is replaced, the aggregator is not reset): newer records keep the removal's
    value, an older one replaces it."""
    opts = {REMOVE: "f3", "fields.f1.aggregate-function": "first_value", "fields.f1.ignore-retract": "true"}
    rows = [(0, (1, 10, 1, 5, 1, 1, 1)), (3, (1, 20, 2, 6, 2, 2, 2)), (0, (1, 30, 3, 7, 3, 3, 3))]
    assert merge_f(rows, **opts) == (0, [1, 20, 3, 7, 3, 3, 3])
    assert merge_f([*rows, (0, (1, 40, 4, 1, 4, 4, 4))], **opts) == (0, [1, 40, 3, 7, 4, 4, 4])
    # no record before the removal: the first one after it initialises first_value, taking its value
    fresh = [(3, (1, 20, 2, 6, 2, 2, 2)), (0, (1, 30, 3, 7, 3, 3, 3))]
    assert merge_f(fresh, **opts) == (0, [1, 30, 3, 7, 3, 3, 3])


def test_a_removal_still_retracts_the_fields_before_it() -> None:
    """Paimon's field loop retracts the aggregated fields it meets before the removing sequence
    field: a function without retraction fails there, one after it is never reached."""
    rows = [(0, (1, 1, 1, 1, 1, 1, 1)), (3, (1, 1, 1, 2, 1, 1, 2))]
    with pytest.raises(UnsupportedError, match="'max' does not support retraction.*'f4'"):
        merge_f(rows, **{REMOVE: "f6", "fields.f4.aggregate-function": "max"})  # f4 before f6
    with pytest.raises(UnsupportedError, match="'max' does not support retraction.*'f1'"):
        merge_f(rows, **{REMOVE: "f3", "fields.f1.aggregate-function": "max"})  # f1 before f3
    assert merge_f(rows, **{REMOVE: "f3", "fields.f4.aggregate-function": "max"}) == (
        3, [1, 1, 1, 2, 1, 1, 2])  # f4 comes after f3, where the row is removed
    assert merge_f(rows, **{REMOVE: "f6", "fields.f4.aggregate-function": "max",
                            "fields.f4.ignore-retract": "true"})[0] == 3
    # a group whose sequence fields are null in the -D is skipped: its fields are not retracted
    assert merge_f([(0, (1, 1, 1, 1, 1, 1, 1)), (3, (1, 1, 1, None, 1, 1, 2))],
                   **{REMOVE: "f6", "fields.f1.aggregate-function": "max"})[0] == 3


def test_table_removes_rows_on_sequence_group_deletes(catalog: Any) -> None:
    """PrimaryKeySimpleTableTest.testPartialUpdateRemoveRecordOnSequenceGroup, one commit per step."""
    schema = pa.schema([("pt", pa.int32()), ("a", pa.int32()), ("b", pa.int32()), ("seq1", pa.int32()),
                        ("c", pa.int32()), ("d", pa.int32()), ("seq2", pa.int32()), ("op", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["pt", "a"], partition_keys=["pt"], options={
        "bucket": "1", "merge-engine": "partial-update", "rowkind.field": "op",
        "fields.seq1.sequence-group": "b", "fields.seq2.sequence-group": "c,d", REMOVE: "seq2"})
    with pytest.raises(ValidationError, match=f"field 'b' defined in '{REMOVE}'"):
        catalog.create_table("db.bad", schema, primary_keys=["pt", "a"], options={
            "merge-engine": "partial-update", "fields.seq1.sequence-group": "b",
            "fields.seq2.sequence-group": "c,d", REMOVE: "b"})

    def step(*rows: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        t.write(pa.Table.from_pylist([dict(zip(schema.names, r)) for r in rows], schema))
        return [tuple(r.values())[:7] for r in t.read().to_pylist()]

    assert step((1, 1, 10, 1, 20, 20, 1, "+I"), (1, 1, 11, 2, 25, 25, 0, "+I"),
                (1, 1, 12, 1, 29, 29, 2, "+I")) == [(1, 1, 11, 2, 29, 29, 2)]
    assert step((1, 1, 11, 2, 29, 29, 2, "-U")) == [(1, 1, None, 2, None, None, 2)]
    assert step((1, 1, 11, 2, 30, 30, 3, "+U")) == [(1, 1, 11, 2, 30, 30, 3)]
    assert step((1, 1, 12, 3, 30, 30, 2, "-D")) == [(1, 1, None, 3, 30, 30, 3)]
    assert step((1, 1, 12, 2, 30, 31, 5, "-D")) == []
    assert step((1, 1, 11, 2, 30, 31, 6, "+I")) == [(1, 1, 11, 2, 30, 31, 6)]
    t.compact()
    assert [tuple(r.values())[:7] for r in t.read().to_pylist()] == [(1, 1, 11, 2, 30, 31, 6)]


def test_table_delete_statement_and_group_deletes(catalog: Any) -> None:
    """PartialUpdateITCase.testRemoveRecordOnDeleteWithSequenceGroup (Flink): a -D of another group
    retracts it, one of the listed group removes the row, and DELETE statements are allowed."""
    schema = pa.schema([("pk", pa.int32()), ("a", pa.string()), ("seq_a", pa.int32()), ("b", pa.string()),
                        ("seq_b", pa.int32()), ("op", pa.string())])
    t = catalog.create_table("db.t", schema, primary_keys=["pk"], options={
        "bucket": "1", "merge-engine": "partial-update", "rowkind.field": "op",
        "fields.seq_a.sequence-group": "a", "fields.seq_b.sequence-group": "b", REMOVE: "seq_a"})

    def write(*rows: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        t.write(pa.Table.from_pylist([dict(zip(schema.names, r)) for r in rows], schema))
        return [tuple(r.values())[:5] for r in t.read().to_pylist()]

    write((1, "apple", 2, "a", 1, "+I"))
    assert write((1, "banana", 1, "b", 2, "+I")) == [(1, "apple", 2, "b", 2)]
    assert write((1, None, None, "b", 2, "-D")) == [(1, "apple", 2, None, 2)]
    assert write((1, "apple", 2, None, None, "-D")) == []
    write((2, "flink", 2, "paimon", 1, "+I"))
    t.delete("pk = 2")
    assert t.read().num_rows == 0


def test_sequence_group_refusals_follow_the_aggregators_capability() -> None:
    """A function is refused inside a sequence group exactly when its aggregator has no
    ``in_sequence_group`` merge (no list of names elsewhere)."""
    from paimon_sql.lsm.aggregate import AGGREGATORS

    refused = sorted(n for n, a in AGGREGATORS.items() if a.in_sequence_group is None)
    assert {"listagg", "collect", "first_non_null_value", "rbm64"} <= set(refused)
    assert not {"sum", "max", "min", "product", "last_value", "first_value"} & set(refused)
    assert all(AGGREGATORS[n].in_sequence_group == "fold" for n in AGGREGATORS if AGGREGATORS[n].commutative)
