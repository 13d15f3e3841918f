"""partial-update with sequence groups and aggregate functions against a row-at-a-time model of
Paimon's PartialUpdateMergeFunction."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.merge import KIND, SEQ, build_merge_spec, partial_update
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
    with pytest.raises(UnsupportedError, match="remove-record-on-sequence-group"):
        spec_of(**{"fields.g1.sequence-group": "a", "partial-update.remove-record-on-sequence-group": "g1"})
    with pytest.raises(UnsupportedError, match="'listagg' of field 'a'"):
        spec_of(**{"fields.g1.sequence-group": "a", "fields.a.aggregate-function": "listagg"})
    binary = [*FIELDS, DataField(len(FIELDS), "bm", VarBinaryType())]
    with pytest.raises(UnsupportedError, match="'rbm64' of field 'bm' in a partial-update sequence group"):
        build_merge_spec(CoreOptions({"merge-engine": "partial-update", "fields.g1.sequence-group": "bm",
                                      "fields.bm.aggregate-function": "rbm64"}), [KEY], binary, ["k"])
