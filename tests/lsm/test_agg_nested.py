"""nested_update / nested_partial_update (Paimon 1.4's FieldNestedUpdateAgg, FieldNestedPartialUpdateAgg).

The cases of Paimon's FieldAggregatorTest and NestedUpdateAggregationITCase as facts, a row-by-row
transcription of Paimon's fold (``model``: Java's agg/retract with a HashMap keyed by the BinaryRow
of the nested key, hashed through the scalar encode_row + Murmur path) that the vectorised engine
must match on random input, and tables written and read through the Python API."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.binary_row import encode_row
from paimon_sql.format.murmur import murmur_hash_bytes
from paimon_sql.lsm.aggregate import AGGREGATORS, FieldAgg, build_field_aggs
from paimon_sql.lsm.engines import build_merge_spec
from paimon_sql.lsm.merge import KIND, SEQ, MergeSpec, aggregation
from paimon_sql.options import CoreOptions
from paimon_sql.types import (
    ArrayType,
    BigIntType,
    DataField,
    IntType,
    MapType,
    RowType,
    VarCharType,
    to_arrow_type,
)

KEY = "_KEY_k"
INT_MAX = 2**31 - 1
ROW = RowType((DataField(1, "k0", IntType()), DataField(2, "k1", IntType()), DataField(3, "v", VarCharType())))
NESTED = ArrayType(ROW)


def r(k0: int | None, k1: int | None, v: str | None) -> dict[str, Any]:
    return {"k0": k0, "k1": k1, "v": v}


def run(function: str, records: list[tuple[int, int, Any]], key: tuple[str, ...] = (), limit: int = INT_MAX,
        remove: bool = False, ignore_retract: bool = False) -> dict[int, Any]:
    """Records (key, row kind, array) in sequence order, merged by the aggregation engine."""
    t = pa.table({
        KEY: pa.array([x[0] for x in records], pa.int64()),
        SEQ: pa.array(list(range(len(records))), pa.int64()),
        KIND: pa.array([x[1] for x in records], pa.int8()),
        "n": pa.array([x[2] for x in records], to_arrow_type(NESTED)),
    })
    fa = FieldAgg("n", function, NESTED, ignore_retract=ignore_retract, nested_key=key, count_limit=limit)
    spec = MergeSpec(key_columns=(KEY,), field_aggs=(fa,), remove_record_on_delete=remove)
    return {x[KEY]: x["n"] for x in aggregation(t, spec).to_pylist()}


# --------------------------------------------------------------------------------------------------
# Paimon's fold, row by row


def java_hash(row: dict[str, Any], key: tuple[str, ...]) -> tuple[bytes, int]:
    """The nested key's BinaryRow (its bytes: the HashMap's equality) and its hashCode()."""
    types = [ROW.field(k).type for k in key]
    data = encode_row([row[k] for k in key], types)[4:]
    return data, murmur_hash_bytes(data) & 0xFFFFFFFF


def hash_map_values(rows: list[dict[str, Any]], key: tuple[str, ...], partial: bool = False) -> list[dict[str, Any]]:
    """``new ArrayList<>(map.values())`` after putting the rows into a new HashMap<BinaryRow, row>
    (partial: merged field by field, non-null values winning)."""
    entries: dict[bytes, tuple[int, dict[str, Any]]] = {}
    for row in rows:
        data, h = java_hash(row, key)
        if partial:
            merged = dict(entries[data][1]) if data in entries else dict.fromkeys(row)
            merged.update({f: v for f, v in row.items() if v is not None})
            row = merged
        entries[data] = (entries[data][0] if data in entries else h, row)
    cap = 16
    while len(entries) > cap * 3 // 4:
        cap *= 2
    items = list(entries.values())
    order = sorted(range(len(items)), key=lambda i: ((items[i][0] ^ (items[i][0] >> 16)) & (cap - 1), i))
    return [items[i][1] for i in order]


def model_agg(acc: list[Any] | None, x: list[Any] | None, key: tuple[str, ...], limit: int,
              partial: bool) -> list[Any] | None:
    if acc is None or x is None:
        return x if acc is None else acc
    if partial:
        return hash_map_values([e for e in acc + x if e is not None], key, partial=True)
    if len(acc) >= limit:
        return acc
    rows = [e for e in acc if e is not None] + [e for e in x if e is not None][: limit - len(acc)]
    return hash_map_values(rows, key) if key else rows


def model_retract(acc: list[Any] | None, x: list[Any] | None, key: tuple[str, ...]) -> list[Any] | None:
    if acc is None or x is None:
        return acc
    rows = [e for e in acc if e is not None]
    gone = [e for e in x if e is not None]
    if not key:
        for g in gone:
            rows = [e for e in rows if e != g]
        return rows
    dropped = {java_hash(g, key)[0] for g in gone}
    return [e for e in hash_map_values(rows, key) if java_hash(e, key)[0] not in dropped]


def model(function: str, records: list[tuple[int, int, Any]], key: tuple[str, ...] = (), limit: int = INT_MAX,
          remove: bool = False, ignore_retract: bool = False, writer: bool = False) -> dict[int, Any]:
    """AggregateMergeFunction over each key's records (a key with one record keeps it), as a read
    returns them (``writer``: as a write buffer keeps them, lone retractions included)."""
    out: dict[int, Any] = {}
    for k in dict.fromkeys(x[0] for x in records):
        group = [(kind, v) for kk, kind, v in records if kk == k]
        if len(group) == 1:  # kept as it is; a read drops a lone retraction
            if group[0][0] in (0, 2) or writer:
                out[k] = group[0][1]
            continue
        acc = None
        for kind, v in group:
            if remove and kind == 3:
                acc = v
            elif kind in (1, 3):
                if not ignore_retract:
                    acc = model_retract(acc, v, key)
            else:
                acc = model_agg(acc, v, key, limit, function == "nested_partial_update")
        if not (remove and group[-1][0] == 3):
            out[k] = acc
    return out


# --------------------------------------------------------------------------------------------------
# FieldAggregatorTest


def test_nested_update_replaces_rows_of_a_key_and_retracts_keys() -> None:
    """testFieldNestedUpdateAgg (nested key k0, k1)."""
    key = ("k0", "k1")
    records = [(1, 0, [r(0, 0, "A")]), (1, 0, [r(0, 1, "B")])]
    assert sorted(run("nested_update", records, key)[1], key=str) == [r(0, 0, "A"), r(0, 1, "B")]
    records.append((1, 0, [r(0, 1, "b")]))
    assert sorted(run("nested_update", records, key)[1], key=str) == [r(0, 0, "A"), r(0, 1, "b")]
    records.append((1, 1, [r(0, 1, "b")]))
    assert run("nested_update", records, key) == {1: [r(0, 0, "A")]}
    # a retraction removes the key whatever the rest of the retracted row
    assert run("nested_update", records[:2] + [(1, 3, [r(0, 1, "other")])], key) == {1: [r(0, 0, "A")]}


def test_nested_update_without_key_appends_and_retracts_equal_rows() -> None:
    """testFieldNestedAppendAgg: no nested key, rows appended; a retraction removes every equal row."""
    records = [(1, 0, [r(0, 1, "B")]), (1, 0, [r(0, 1, "b")])]
    assert run("nested_update", records) == {1: [r(0, 1, "B"), r(0, 1, "b")]}
    assert run("nested_update", records + [(1, 1, [r(0, 1, "b")])]) == {1: [r(0, 1, "B")]}
    twice = [(1, 0, [r(0, 1, "b"), r(2, 2, "c")]), (1, 0, [r(0, 1, "b")]), (1, 1, [r(0, 1, "b")])]
    assert run("nested_update", twice) == {1: [r(2, 2, "c")]}


def test_nested_update_count_limit() -> None:
    """testFieldNestedAppendAggWithCountLimit: limit 2, the third row is dropped."""
    records = [(1, 0, [r(0, 1, "B")]), (1, 0, [r(0, 1, "b")]), (1, 0, [r(0, 1, "C")])]
    assert run("nested_update", records, limit=2) == {1: [r(0, 1, "B"), r(0, 1, "b")]}
    # the budget is cut inside an array; a first array at the limit is kept as it is, null elements
    # counted (agg(null, x) keeps x), later ones are not looked at
    assert run("nested_update", [(1, 0, [r(1, 1, "a")]), (1, 0, [r(2, 2, "b"), r(3, 3, "c")])], limit=2) == {
        1: [r(1, 1, "a"), r(2, 2, "b")]}
    assert run("nested_update", [(1, 0, [None, r(1, 1, "a")]), (1, 0, [r(2, 2, "b")])], limit=2) == {
        1: [None, r(1, 1, "a")]}
    # a first array below the limit loses its nulls when merged; the next array's budget counts
    # them, the later arrays' budget no longer does
    out = run("nested_update", [(1, 0, [None, r(1, 1, "a")]), (1, 0, [r(2, 2, "b"), r(3, 3, "c")]),
                                (1, 0, [r(4, 4, "d"), r(5, 5, "e")])], limit=3)
    assert out == {1: [r(1, 1, "a"), r(2, 2, "b"), r(4, 4, "d")]}
    # a single array over the limit is kept whole (agg(null, x) does not cut)
    assert run("nested_update", [(1, 0, None), (1, 0, [r(1, 1, "a"), r(2, 2, "b")])], limit=1) == {
        1: [r(1, 1, "a"), r(2, 2, "b")]}


def test_nested_partial_update_merges_fields_of_a_key() -> None:
    """testFieldNestedPartialUpdateAgg (nested key k)."""
    key = ("k0",)
    records = [(1, 0, [r(0, 0, None)]), (1, 0, [r(0, None, "A")])]
    assert run("nested_partial_update", records, key) == {1: [r(0, 0, "A")]}
    records.append((1, 0, [r(0, 1, "B")]))
    assert run("nested_partial_update", records, key) == {1: [r(0, 1, "B")]}
    records.append((1, 0, [r(1, 2, "C")]))
    assert sorted(run("nested_partial_update", records, key)[1], key=str) == [r(0, 1, "B"), r(1, 2, "C")]


# --------------------------------------------------------------------------------------------------
# Java's HashMap order and the rules around nulls


def test_keyed_rows_come_in_java_hash_map_order() -> None:
    key = ("k0",)
    rows = [r(i, i, f"v{i}") for i in range(40)]  # 40 keys: the map grows to 64 buckets
    records = [(1, 0, rows[:15]), (1, 0, rows[15:] + [r(3, 99, "new")])]
    out = run("nested_update", records, key)[1]
    assert out == model("nested_update", records, key)[1]
    assert len(out) == 40 and r(3, 99, "new") in out and r(3, 3, "v3") not in out
    hashes = [java_hash(row, key)[1] for row in out]
    buckets = [(h ^ (h >> 16)) & 63 for h in hashes]
    assert buckets == sorted(buckets) and len(set(buckets)) > 16
    # the same keys, partially updated, in the same order
    assert [row["k0"] for row in run("nested_partial_update", records, key)[1]] == [row["k0"] for row in out]


def test_a_key_with_one_array_keeps_it_as_it_is() -> None:
    """agg(null, x) returns x: duplicate keys and null elements stay until a second array comes."""
    dup = [r(1, 1, "a"), None, r(1, 2, "b")]
    assert run("nested_update", [(1, 0, None), (1, 0, dup), (1, 0, None)], ("k0",)) == {1: dup}
    assert run("nested_partial_update", [(1, 0, dup), (1, 0, None)], ("k0",)) == {1: dup}
    assert run("nested_update", [(1, 0, dup), (1, 0, [])], ("k0",)) == {1: [r(1, 2, "b")]}
    assert run("nested_partial_update", [(1, 0, dup), (1, 0, [])], ("k0",)) == {1: [r(1, 2, "b")]}
    assert run("nested_update", [(1, 0, None), (1, 0, None)], ("k0",)) == {1: None}
    assert run("nested_update", [(1, 0, [None]), (1, 0, [None])]) == {1: []}


def test_null_keys_are_keys() -> None:
    """Paimon 1.4 has no nested-key-null-strategy: a null key field is part of the key."""
    out = run("nested_update", [(1, 0, [r(None, 1, "a"), r(1, 1, "b")]), (1, 0, [r(None, 2, "c")])], ("k0",))
    assert sorted(out[1], key=str) == [r(1, 1, "b"), r(None, 2, "c")]
    out = run("nested_partial_update", [(1, 0, [r(None, 1, "a")]), (1, 0, [r(None, None, "c")])], ("k0",))
    assert out == {1: [r(None, 1, "c")]}


def test_hash_map_order_ignores_rows_not_folded_in() -> None:
    """Keys (k1, v) = (null, null) and (0, null) share a bucket of a 16-bucket HashMap, so they come
    in the order of their first put; an ignored retraction carrying the second key earlier in the
    sequence does not move it ahead."""
    key = ("k1", "v")
    assert len({(java_hash(x, key)[1] ^ (java_hash(x, key)[1] >> 16)) & 15 for x in (r(None, None, None),
                                                                                    r(None, 0, None))}) == 1
    records = [(1, 1, [r(None, 0, None)]), (1, 0, None), (1, 0, [r(None, None, None)]), (1, 0, [r(None, 0, None)])]
    for function in ("nested_update", "nested_partial_update"):
        out = run(function, records, key, ignore_retract=True)
        assert out == {1: [r(None, None, None), r(None, 0, None)]}
        assert out == model(function, records, key, ignore_retract=True)


def test_retraction_details() -> None:
    key = ("k0",)
    # retracting from nothing leaves nothing; a null retraction changes nothing
    assert run("nested_update", [(1, 1, [r(1, 1, "a")]), (1, 0, [r(2, 2, "b")])], key) == {1: [r(2, 2, "b")]}
    assert run("nested_update", [(1, 0, [r(1, 1, "a"), None]), (1, 1, None)], key) == {1: [r(1, 1, "a"), None]}
    # retracting from a verbatim first array drops its nulls and duplicate keys (a HashMap is built)
    out = run("nested_update", [(1, 0, [r(1, 1, "a"), None, r(1, 2, "b"), r(2, 2, "c")]), (1, 1, [r(2, 0, "x")])],
              key)
    assert out == {1: [r(1, 2, "b")]}
    # -D under remove-record-on-delete replaces the array; a -U still retracts
    records = [(1, 0, [r(1, 1, "a")]), (1, 3, [r(5, 5, "e"), None]), (1, 0, [r(6, 6, "f")]), (1, 1, [r(5, 0, "")])]
    assert run("nested_update", records, key, remove=True) == {1: [r(6, 6, "f")]}
    assert run("nested_update", records[:2], key, remove=True) == {}
    # ignore-retract skips retractions
    assert run("nested_update", [(1, 0, [r(1, 1, "a")]), (1, 1, [r(1, 1, "a")])], key, ignore_retract=True) == {
        1: [r(1, 1, "a")]}


def test_nested_partial_update_cannot_retract() -> None:
    with pytest.raises(UnsupportedError, match="'nested_partial_update' does not support retraction"):
        run("nested_partial_update", [(1, 0, [r(1, 1, "a")]), (1, 1, [r(1, 1, "a")])], ("k0",))
    assert run("nested_partial_update", [(1, 0, [r(1, 1, "a")]), (1, 1, [r(1, 1, "a")])], ("k0",),
               ignore_retract=True) == {1: [r(1, 1, "a")]}


# --------------------------------------------------------------------------------------------------
# the engine against Paimon's fold on random input

ELEMENTS = st.one_of(
    st.none(),
    st.builds(r, st.one_of(st.none(), st.integers(0, 3)), st.one_of(st.none(), st.integers(-1, 1)),
              st.one_of(st.none(), st.sampled_from(["a", "b", "a long string value"]))),
)
ARRAYS = st.one_of(st.none(), st.lists(ELEMENTS, max_size=4))
KEYS = st.sampled_from([(), ("k0",), ("k0", "k1"), ("v",), ("k1", "v")])


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_engine_matches_paimons_fold(data: Any) -> None:
    function = data.draw(st.sampled_from(["nested_update", "nested_partial_update"]))
    partial = function == "nested_partial_update"
    key = data.draw(KEYS.filter(bool) if partial else KEYS)
    limit = INT_MAX if partial else data.draw(st.sampled_from([INT_MAX, INT_MAX, 0, 1, 2, 3, 5]))
    remove = data.draw(st.booleans())
    ignore_retract = not remove and (partial or data.draw(st.booleans()))
    kinds = [0, 2] + ([1, 3] if not partial or ignore_retract else [3] if remove else [])
    records = []
    for k in range(data.draw(st.integers(1, 4))):
        for _ in range(data.draw(st.integers(1, 6))):
            records.append((k, data.draw(st.sampled_from(kinds)), data.draw(ARRAYS)))
    expected = model(function, records, key, limit, remove, ignore_retract)
    assert run(function, records, key, limit, remove, ignore_retract) == expected


# --------------------------------------------------------------------------------------------------
# NestedUpdateAggregationITCase (Flink), replayed on the engine

SUB = RowType((DataField(1, "daily_id", IntType()), DataField(2, "today", VarCharType()),
               DataField(3, "product_name", VarCharType()), DataField(4, "price", BigIntType())))


def sub(daily_id: int, today: str, product: str, price: int) -> dict[str, Any]:
    return {"daily_id": daily_id, "today": today, "product_name": product, "price": price}


WIDE = pa.schema([("order_id", pa.int32()), ("user_name", pa.string()), ("address", pa.string()),
                  ("sub_orders", to_arrow_type(ArrayType(SUB)))])


def wide_table(catalog: Catalog, name: str, options: dict[str, str]) -> Any:
    return catalog.create_table(name, WIDE, primary_keys=["order_id"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.sub_orders.aggregate-function": "nested_update",
        **options})


def widen(t: Any, orders: list[tuple[int, str, str]], sub_orders: list[tuple[int, int, str, str, int]]) -> None:
    """The ITCase's INSERT ... SELECT ... UNION ALL: one record per order, one per sub-order."""
    rows = [{"order_id": o, "user_name": u, "address": a, "sub_orders": None} for o, u, a in orders]
    rows += [{"order_id": o, "user_name": None, "address": None, "sub_orders": [sub(d, day, p, price)]}
             for o, d, day, p, price in sub_orders]
    t.write(pa.Table.from_pylist(rows, schema=WIDE))


@pytest.fixture
def catalog(tmp_path: Any) -> Catalog:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    return cat


def by_order(t: Any) -> dict[int, Any]:
    return {row["order_id"]: row for row in t.refresh().read().to_pylist()}


def sorted_subs(subs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(subs, key=lambda s: (s["daily_id"], s["today"]))


SUB_ORDERS = [(1, 1, "12-20", "Apple", 8000), (1, 2, "12-20", "Tesla", 400000), (1, 1, "12-21", "Sangsung", 5000),
              (2, 1, "12-20", "Tea", 40), (2, 2, "12-20", "Pot", 60), (3, 1, "12-25", "Bat", 15),
              (3, 1, "12-26", "Cup", 30)]
ORDERS = [(1, "Wang", "HangZhou"), (2, "Zhao", "ChengDu"), (3, "Liu", "NanJing")]


def test_use_case(catalog: Catalog) -> None:
    """testUseCase: a wide table of orders with their sub-orders keyed by (daily_id, today)."""
    t = wide_table(catalog, "db.order_wide", {"fields.sub_orders.nested-key": "daily_id,today"})
    widen(t, ORDERS, SUB_ORDERS)
    rows = by_order(t)
    assert {o: (r["user_name"], r["address"]) for o, r in rows.items()} == {o: (u, a) for o, u, a in ORDERS}
    assert sorted_subs(rows[1]["sub_orders"]) == [sub(1, "12-20", "Apple", 8000), sub(1, "12-21", "Sangsung", 5000),
                                                  sub(2, "12-20", "Tesla", 400000)]
    assert sorted_subs(rows[2]["sub_orders"]) == [sub(1, "12-20", "Tea", 40), sub(2, "12-20", "Pot", 60)]
    assert sorted_subs(rows[3]["sub_orders"]) == [sub(1, "12-25", "Bat", 15), sub(1, "12-26", "Cup", 30)]
    # testUpdateWithIgnoreRetract: a new sub-order of a known nested key replaces it
    widen(t, [], [(1, 2, "12-20", "Benz", 380000)])
    assert sorted_subs(by_order(t)[1]["sub_orders"]) == [
        sub(1, "12-20", "Apple", 8000), sub(1, "12-21", "Sangsung", 5000), sub(2, "12-20", "Benz", 380000)]


def test_use_case_with_null_value(catalog: Catalog) -> None:
    """testUseCaseWithNullValue: an array of one null row stays so; the next array replaces it."""
    t = wide_table(catalog, "db.order_wide", {"fields.sub_orders.nested-key": "daily_id,today"})
    t.write(pa.Table.from_pylist([{"order_id": 6, "user_name": None, "address": None, "sub_orders": [None]}],
                                 schema=WIDE))
    assert by_order(t)[6] == {"order_id": 6, "user_name": None, "address": None, "sub_orders": [None]}
    t.write(pa.Table.from_pylist([{"order_id": 6, "user_name": "Sun", "address": None,
                                   "sub_orders": [sub(1, "01-01", "Apple", 6999)]}], schema=WIDE))
    assert by_order(t)[6] == {"order_id": 6, "user_name": "Sun", "address": None,
                              "sub_orders": [sub(1, "01-01", "Apple", 6999)]}


def test_use_case_append(catalog: Catalog) -> None:
    """testUseCaseAppend: without a nested key the sub-orders are appended in sequence order."""
    t = wide_table(catalog, "db.order_append_wide", {})
    subs = [(1, 1, "12-20", "Apple", 8000), (2, 1, "12-20", "Tesla", 400000), (3, 1, "12-25", "Bat", 15),
            (3, 1, "12-26", "Cup", 30)]
    widen(t, ORDERS, subs)
    rows = by_order(t)
    assert rows[1]["sub_orders"] == [sub(1, "12-20", "Apple", 8000)]
    assert rows[3]["sub_orders"] == [sub(1, "12-25", "Bat", 15), sub(1, "12-26", "Cup", 30)]
    assert rows[3]["user_name"] == "Liu"


# --------------------------------------------------------------------------------------------------
# tables through the Python API


def test_table_commits_compaction_and_retraction(catalog: Catalog) -> None:
    """Several commits of an ARRAY<ROW> column merged on read and by compaction exactly as Paimon's
    fold gives them (the write buffer merges each commit's records of a key first), and a retraction
    written through rowkind.field."""
    schema = pa.schema([("id", pa.int64()), ("op", pa.string()), ("n", to_arrow_type(NESTED)),
                        ("p", to_arrow_type(NESTED)), ("a", to_arrow_type(NESTED))])
    t = catalog.create_table("db.nested", schema, primary_keys=["id"], options={
        "bucket": "1", "merge-engine": "aggregation", "rowkind.field": "op",
        "fields.n.aggregate-function": "nested_update", "fields.n.nested-key": "k0",
        "fields.p.aggregate-function": "nested_partial_update", "fields.p.nested-key": " k0 , k1 ",
        "fields.p.ignore-retract": "true", "fields.op.ignore-retract": "true",
        "fields.a.aggregate-function": "nested_update", "fields.a.count-limit": "3"})
    commits = [
        [(1, "+I", [r(i, 0, f"n{i}") for i in range(20)], [r(1, 1, "x")], [r(1, 1, "a")]),
         (2, "+I", [r(1, 1, "only")], None, [None])],
        [(1, "+I", [r(3, 3, "three"), r(30, 0, "thirty")], [r(1, 1, None), r(2, 2, "y")], [r(2, 2, "b")]),
         (1, "+I", [r(4, 4, "four")], [r(1, None, "z")], [r(3, 3, "c"), r(4, 4, "d")])],
        [(1, "-U", [r(5, 0, "")], [r(9, 9, "ignored")], [r(1, 1, "a")]),
         (2, "+I", [r(1, 2, "two"), None], [r(7, 7, "p")], [r(8, 8, "e")])],
    ]
    for c in commits:
        t.refresh().write(pa.Table.from_pylist(
            [{"id": i, "op": op, "n": n, "p": p, "a": a} for i, op, n, p, a in c], schema=schema))

    def expected(col: str, key: tuple[str, ...], function: str, limit: int = INT_MAX,
                 ignore: bool = False) -> dict[int, Any]:
        idx = {"n": 2, "p": 3, "a": 4}[col]
        kinds = {"+I": 0, "-U": 1}
        # each commit's records of a key are merged in the write buffer, then the files on read
        per_commit: list[tuple[int, int, Any]] = []
        for c in commits:
            recs = [(x[0], kinds[x[1]], x[idx]) for x in c]
            merged = model(function, recs, key, limit, ignore_retract=ignore, writer=True)
            for k, v in merged.items():
                kind = [x[1] for x in recs if x[0] == k]
                per_commit.append((k, kind[0] if len(kind) == 1 else 0, v))
        return model(function, per_commit, key, limit, ignore_retract=ignore)

    want = {"n": expected("n", ("k0",), "nested_update"),
            "p": expected("p", ("k0", "k1"), "nested_partial_update", ignore=True),
            "a": expected("a", (), "nested_update", limit=3)}
    assert 5 not in [row["k0"] for row in want["n"][1]] and len(want["n"][1]) == 20
    assert r(1, 1, "x") in want["p"][1] and r(1, None, "z") in want["p"][1]
    assert want["a"] == {1: [r(2, 2, "b"), r(3, 3, "c")], 2: [r(8, 8, "e")]}
    for _ in range(2):  # read, then compact and read again
        rows = {row["id"]: row for row in t.refresh().read().to_pylist()}
        for col in ("n", "p", "a"):
            assert {i: row[col] for i, row in rows.items()} == want[col], col
        t.refresh().compact()


def test_types_and_nested_keys_are_checked_at_create(catalog: Catalog) -> None:
    def create(col: pa.DataType, **options: str) -> None:
        catalog.create_table("db.bad", pa.schema([("id", pa.int64()), ("n", col)]), primary_keys=["id"],
                             options={"bucket": "1", "merge-engine": "aggregation", **options})

    nested = to_arrow_type(NESTED)
    with pytest.raises(ValidationError, match=r"must be 'Array<Row>' but was 'ARRAY<INT>'.*'n'.*nested_update"):
        create(pa.list_(pa.int32()), **{"fields.n.aggregate-function": "nested_update"})
    with pytest.raises(ValidationError, match=r"'Array<Row>' but was 'BIGINT'.*nested_partial_update"):
        create(pa.int64(), **{"fields.n.aggregate-function": "nested_partial_update", "fields.n.nested-key": "k0"})
    with pytest.raises(ValidationError, match=r"Nested key 'kx' of 'fields.n.nested-key'.*'n'"):
        create(nested, **{"fields.n.aggregate-function": "nested_update", "fields.n.nested-key": "k0,kx"})
    with pytest.raises(ValidationError, match=r"nested_partial_update of field 'n' needs 'fields.n.nested-key'"):
        create(nested, **{"fields.n.aggregate-function": "nested_partial_update"})
    with pytest.raises(ValidationError, match="count-limit"):
        create(nested, **{"fields.n.aggregate-function": "nested_update", "fields.n.count-limit": "many"})
    # Paimon 2.0's options change the semantics: refused, not silently ignored ('merge' is 2.0's default)
    with pytest.raises(UnsupportedError, match=r"fields.n.nested-sequence-field.*Paimon 2.0"):
        create(nested, **{"fields.n.aggregate-function": "nested_update", "fields.n.nested-key": "k0",
                          "fields.n.nested-sequence-field": "v"})
    with pytest.raises(UnsupportedError, match=r"fields.n.nested-key-null-strategy"):
        create(nested, **{"fields.n.aggregate-function": "nested_update", "fields.n.nested-key": "k0",
                          "fields.n.nested-key-null-strategy": "ignore"})
    assert not catalog.table_exists("db.bad")
    create(nested, **{"fields.n.aggregate-function": "nested_update", "fields.n.nested-key-null-strategy": "MERGE"})


def test_field_aggs_carry_the_nested_options() -> None:
    fields = [DataField(0, "id", BigIntType(nullable=False)), DataField(1, "n", NESTED),
              DataField(2, "m", MapType(IntType(nullable=False), NESTED))]
    o = CoreOptions({"fields.n.aggregate-function": "nested_update", "fields.n.nested-key": "k1, v",
                     "fields.n.count-limit": "7"})
    fa = {f.column: f for f in build_field_aggs(o, fields, ["id"])}["n"]
    assert (fa.nested_key, fa.count_limit) == (("k1", "v"), 7)
    assert AGGREGATORS["nested_update"].retracts and not AGGREGATORS["nested_partial_update"].retracts
    with pytest.raises(ValidationError, match="'Array<Row>' but was 'MAP<INT NOT NULL, ARRAY<ROW<"):
        build_field_aggs(CoreOptions({"fields.m.aggregate-function": "nested_update"}), fields, ["id"])


def test_not_in_partial_update_sequence_groups() -> None:
    fields = [DataField(0, "id", BigIntType(nullable=False)), DataField(1, "n", NESTED),
              DataField(2, "ts", BigIntType())]
    for function in ("nested_update", "nested_partial_update"):
        o = CoreOptions({"merge-engine": "partial-update", "fields.ts.sequence-group": "n",
                         "fields.n.aggregate-function": function, "fields.n.nested-key": "k0"})
        with pytest.raises(UnsupportedError, match=f"'{function}' of field 'n' in a partial-update sequence group"):
            build_merge_spec(o, ["_KEY_id"], fields, ["id"])
