"""The vectorised merge engines against a plain row-by-row model of Paimon's semantics."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql.errors import UnsupportedError
from paimon_sql.lsm.merge import KIND, SEQ, MergeSpec, deduplicate, first_row, partial_update

KINDS = [0, 1, 2, 3]  # +I -U +U -D

records = st.lists(
    st.tuples(
        st.integers(0, 6),  # key
        st.sampled_from(KINDS),
        st.one_of(st.none(), st.integers(-5, 5)),  # value a
        st.one_of(st.none(), st.text(max_size=3)),  # value b
    ),
    max_size=60,
)


def to_table(recs: list[tuple[int, int, int | None, str | None]], seqs: list[int]) -> pa.Table:
    return pa.table({
        "_KEY_k": pa.array([r[0] for r in recs], pa.int64()),
        SEQ: pa.array(seqs, pa.int64()),
        KIND: pa.array([r[1] for r in recs], pa.int8()),
        "a": pa.array([r[2] for r in recs], pa.int64()),
        "b": pa.array([r[3] for r in recs], pa.string()),
    })


def result(t: pa.Table) -> dict[int, tuple[object, object]]:
    return {r["_KEY_k"]: (r["a"], r["b"]) for r in t.to_pylist()}


def ordered(recs, seqs):  # type: ignore[no-untyped-def]
    return [r for _, r in sorted(zip(seqs, recs), key=lambda x: x[0])]


SPEC = MergeSpec(key_columns=("_KEY_k",))


@settings(max_examples=200, deadline=None)
@given(records, st.randoms(use_true_random=False), st.booleans())
def test_deduplicate_matches_model(recs, rnd, ignore_delete) -> None:  # type: ignore[no-untyped-def]
    seqs = list(range(len(recs)))
    rnd.shuffle(seqs)  # files arrive in any order; the sequence number decides
    model: dict[int, tuple[object, object]] = {}
    for key, kind, a, b in ordered(recs, seqs):
        if kind in (1, 3):
            if not ignore_delete:
                model.pop(key, None)
        else:
            model[key] = (a, b)
    spec = MergeSpec(key_columns=("_KEY_k",), ignore_delete=ignore_delete)
    out = deduplicate(to_table(recs, seqs), spec)
    assert result(out) == model
    assert out.num_rows == len(model)
    keys = out.column("_KEY_k").to_pylist()
    assert keys == sorted(keys)


@settings(max_examples=200, deadline=None)
@given(records, st.randoms(use_true_random=False))
def test_first_row_matches_model(recs, rnd) -> None:  # type: ignore[no-untyped-def]
    seqs = list(range(len(recs)))
    rnd.shuffle(seqs)
    model: dict[int, tuple[object, object]] = {}
    for key, kind, a, b in ordered(recs, seqs):
        if kind in (0, 2) and key not in model:
            model[key] = (a, b)
    assert result(first_row(to_table(recs, seqs), SPEC)) == model


def partial_update_model(recs, ignore_delete: bool, remove: bool) -> dict[int, tuple[object, object]]:  # type: ignore[no-untyped-def]
    """Paimon's PartialUpdateMergeFunction behind its ReducerMergeFunctionWrapper, row by row."""
    by_key: dict[int, list[tuple[int, list[object]]]] = {}
    for key, kind, a, b in recs:
        by_key.setdefault(key, []).append((kind, [a, b]))
    out: dict[int, tuple[object, object]] = {}
    for key, rows in by_key.items():
        if len(rows) == 1:  # a single record is returned as it is; reads drop retractions
            if rows[0][0] in (0, 2):
                out[key] = (rows[0][1][0], rows[0][1][1])
            continue
        row: list[object] = [None, None]
        filled = meet_insert = deleted = False
        for kind, values in rows:
            deleted = False
            if kind in (1, 3):
                if not filled:
                    row, filled = list(values), True
                if ignore_delete:
                    continue
                assert remove
                if kind == 3:
                    deleted, row = True, list(values)
                continue
            for i, v in enumerate(values):
                if v is not None:
                    row[i] = v
            meet_insert = filled = True
        if not deleted and meet_insert:
            out[key] = (row[0], row[1])
    return out


@settings(max_examples=300, deadline=None)
@given(records, st.randoms(use_true_random=False), st.sampled_from(["ignore", "remove"]))
def test_partial_update_matches_model(recs, rnd, on_delete) -> None:  # type: ignore[no-untyped-def]
    seqs = list(range(len(recs)))
    rnd.shuffle(seqs)
    model = partial_update_model(ordered(recs, seqs), on_delete == "ignore", on_delete == "remove")
    spec = MergeSpec(key_columns=("_KEY_k",), ignore_delete=on_delete == "ignore",
                     remove_record_on_delete=on_delete == "remove")
    out = partial_update(to_table(recs, seqs), spec)
    assert result(out) == model


def test_partial_update_rejects_deletes_by_default() -> None:
    t = to_table([(1, 0, 1, "x"), (1, 3, None, None)], [0, 1])
    with pytest.raises(UnsupportedError, match="ignore-delete"):
        partial_update(t, SPEC)


def test_sequence_field_orders_before_sequence_number() -> None:
    t = to_table([(1, 0, 9, "new"), (1, 0, 1, "old")], [0, 1]).append_column("ts", pa.array([5, 1]))
    spec = MergeSpec(key_columns=("_KEY_k",), sequence_columns=("ts",))
    assert result(deduplicate(t, spec)) == {1: (9, "new")}


def test_dedup_two_million_rows_is_vectorised() -> None:
    n = 2_000_000
    rng = np.random.default_rng(0)
    t = pa.table({
        "_KEY_k": pa.array(rng.integers(0, n // 2, n)),
        SEQ: pa.array(np.arange(n)),
        KIND: pa.array(np.zeros(n, dtype=np.int8)),
        "a": pa.array(np.arange(n)),
    })
    out = deduplicate(t, SPEC)
    assert out.num_rows == len(np.unique(t.column("_KEY_k").to_numpy()))


def test_unique_key_order_is_a_sort_when_keys_are_distinct() -> None:
    import datetime as dt

    from paimon_sql.lsm.merge import unique_key_order

    rng = np.random.default_rng(3)
    ids = rng.permutation(10_000).astype(np.int64) * 3 - 5000
    t = pa.table({"id": ids, "v": np.arange(10_000)})
    perm = unique_key_order(t, ["id"])
    assert perm is not None
    assert (np.diff(ids[perm]) > 0).all()
    days = pa.array([dt.date(2024, 1, d) for d in (3, 1, 2)])
    assert list(unique_key_order(pa.table({"d": days}), ["d"])) == [1, 2, 0]  # type: ignore[arg-type]
    ts = pa.array([3_000, 1_000, 2_000], pa.timestamp("ms"))
    assert list(unique_key_order(pa.table({"t": ts}), ["t"])) == [1, 2, 0]  # type: ignore[arg-type]
    # duplicates, nulls, strings and composite keys take the stable sort
    assert unique_key_order(pa.table({"id": [2, 1, 2]}), ["id"]) is None
    assert unique_key_order(pa.table({"id": [2, None, 1]}), ["id"]) is None
    assert unique_key_order(pa.table({"s": ["b", "a"]}), ["s"]) is None
    assert unique_key_order(pa.table({"a": [1, 2], "b": [1, 2]}), ["a", "b"]) is None
