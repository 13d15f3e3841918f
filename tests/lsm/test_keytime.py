"""``merge_map_with_keytime`` (Paimon's FieldMergeMapWithKeyTimeAgg): Paimon's own test cases and
documented rules as facts, the result's Java ``HashMap`` order (checked against ``java.util.HashMap``
itself through javac + java), type checks at CREATE TABLE and a table written through the API."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.agg_keytime import JavaHashMap
from paimon_sql.lsm.aggregate import FieldAgg
from paimon_sql.lsm.merge import KIND, SEQ, MergeSpec, aggregation
from paimon_sql.types import DataField, IntType, MapType, RowType, VarBinaryType, VarCharType

KEY = "_KEY_k"
STRING = pa.string()
ROW = RowType((DataField(0, "actual_value", VarCharType()), DataField(1, "dbsync_ts", VarCharType())))


def _arrow(key: pa.DataType = STRING) -> pa.DataType:
    return pa.map_(key, pa.struct([("actual_value", pa.string()), ("dbsync_ts", pa.string())]))


def _engine(groups: list[list[Any]], key_type: Any = None, kinds: list[list[int]] | None = None,
            ignore_retract: bool = False, arrow_key: pa.DataType = STRING) -> dict[int, Any]:
    keys = [k for k, g in enumerate(groups) for _ in g]
    t = pa.table({
        KEY: pa.array(keys, pa.int64()),
        SEQ: pa.array(list(range(len(keys))), pa.int64()),
        KIND: pa.array([x for g in kinds for x in g] if kinds else [0] * len(keys), pa.int8()),
        "m": pa.array([m for g in groups for m in g], _arrow(arrow_key)),
    })
    fa = FieldAgg("m", "merge_map_with_keytime", MapType(key_type or VarCharType(), ROW),
                  ignore_retract=ignore_retract)
    spec = MergeSpec(key_columns=(KEY,), field_aggs=(fa,))
    return {r[KEY]: r["m"] for r in aggregation(t, spec).to_pylist()}


def _m(*entries: tuple[Any, str | None, str | None] | tuple[Any, None]) -> list[tuple[Any, Any]]:
    return [(e[0], None if len(e) == 2 else {"actual_value": e[1], "dbsync_ts": e[2]}) for e in entries]


def _content(m: list[tuple[Any, Any]]) -> dict[Any, Any]:
    return {k: None if v is None else v["actual_value"] for k, v in m}


def test_paimons_case() -> None:
    """FieldAggregatorTest.testFieldMergeMapWithKeyTimeAgg: each fold's result."""
    map1 = _m(("key1", "A", "17682882903686900100"), ("key2", "B", "17682882903686900100"))
    map2 = _m(("key1", "A1", "17682882903686900200"), ("key3", "C", "17682882903686900200"))
    map3 = _m(("key2", "B2", "17682882903686900050"))
    got = _engine([[map1], [map1, map2], [map1, map2, map3]])
    assert _content(got[0]) == {"key1": "A", "key2": "B"}
    assert _content(got[1]) == {"key1": "A1", "key2": "B", "key3": "C"}
    assert _content(got[2]) == {"key1": "A1", "key2": "B", "key3": "C"}


def test_paimons_binary_key_case() -> None:
    """FieldAggregatorTest.testFieldMergeMapWithKeyTimeAggWithBinaryKey: binary keys compare by value."""
    k = b"\x01\x02"
    first = _m((k, "A", "100"))
    steps = [first, _m((k, "A1", "200")), _m((k, "A0", "050")), _m((k, None))]
    got = _engine([steps[:2], steps[:3], steps], key_type=VarBinaryType(10), arrow_key=pa.binary())
    assert got[0] == _m((k, "A1", "200")) and got[1] == _m((k, "A1", "200")) and got[2] == []


def test_time_is_compared_as_a_string() -> None:
    """The example of Paimon's docs, folded as Paimon's code does: the times are strings, so "50" is
    greater than "100" and the later color wins (the docs say it does not)."""
    got = _engine([[
        _m(("product_name", "iPhone", "100"), ("color", "Black", "100")),
        _m(("product_name", "iPad", "200"), ("price", "999", "200")),
        _m(("color", "White", "50")),
    ]])
    assert _content(got[0]) == {"product_name": "iPad", "color": "White", "price": "999"}
    # UTF-16 code units, as Java compares: U+FF5E sorts above U+1F600 (a surrogate pair)
    got = _engine([[_m(("k", "old", "\U0001F600")), _m(("k", "new", "\uff5e"))]])
    assert _content(got[0]) == {"k": "new"}


def test_nulls() -> None:
    first = _m(("a", "A", "1"), ("b", "B", None), ("c", None), ("d", "D", "5"))
    got = _engine([
        [first],  # the first map is kept as it is
        [first, _m(("a", "A2", None), ("b", "B2", "0"), ("c", "C2", "0"), ("d", None), ("e", "E", "1"))],
        [first, None, _m(("x", None))],  # a null map is skipped; removing an absent key does nothing
        [None, None],
        [_m(("a", "A", "2")), _m(("a", "A1", "2"))],  # an equal time keeps the older row
    ])
    assert got[0] == first
    # a null time is skipped; a stored null time or null row is replaced; a null row removes
    assert _content(got[1]) == {"a": "A", "b": "B2", "c": "C2", "e": "E"}
    assert _content(got[2]) == {"a": "A", "b": "B", "c": None, "d": "D"}
    assert got[3] is None
    assert _content(got[4]) == {"a": "A"}


def test_retraction_is_refused_unless_ignored() -> None:
    a, b = _m(("a", "A", "1")), _m(("a", "B", "2"))
    with pytest.raises(UnsupportedError, match="'merge_map_with_keytime' does not support retraction"):
        _engine([[a, b]], kinds=[[0, 1]])
    assert _engine([[a, b]], kinds=[[0, 1]], ignore_retract=True) == {0: a}


JAVA = """
import java.util.*;
public class Hm {
  static final class K {
    final int id, h;
    K(int id, int h) { this.id = id; this.h = h; }
    @Override public int hashCode() { return h; }
    @Override public boolean equals(Object o) { return o instanceof K && ((K) o).id == id; }
  }
  public static void main(String[] a) throws Exception {
    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      Map<K, Integer> m = new HashMap<>();  // ops: p<id>:<hash> puts, r<id>:<hash> removes
      for (String op : line.trim().split(" ")) {
        String[] p = op.substring(1).split(":");
        K k = new K(Integer.parseInt(p[0]), Integer.parseUnsignedInt(p[1]));
        if (op.charAt(0) == 'p') { m.put(k, 0); } else { m.remove(k); }
      }
      StringBuilder sb = new StringBuilder("=");
      for (K k : m.keySet()) sb.append(' ').append(k.id);
      System.out.println(sb);
    }
  }
}
"""


def test_hash_map_order_is_javas(tmp_path: Path) -> None:
    if shutil.which("javac") is None:
        pytest.skip("needs javac")
    (tmp_path / "Hm.java").write_text(JAVA)
    subprocess.run(["javac", "-d", str(tmp_path), str(tmp_path / "Hm.java")], check=True)
    rnd = random.Random(3)
    cases = []
    for _ in range(int(os.environ.get("HASHMAP_CASES", "300"))):
        n = rnd.choice([3, 12, 13, 40, 100, 300])
        # hash codes: random, or multiples of 16 / 64 so that many keys share a bucket
        spread = rnd.choice([1 << 32, 64, 16 * 8, 1 << 12])
        step = rnd.choice([1, 16, 64])
        hashes = {i: (rnd.randrange(spread) * step) & 0xFFFFFFFF for i in range(n)}
        ops = [("p" if rnd.random() < 0.75 else "r", rnd.randrange(n)) for _ in range(rnd.randint(1, 2 * n))]
        model = JavaHashMap(lambda i, hs=hashes: hs[i], "test")
        try:
            for op, i in ops:
                if op == "p":
                    model.put(i, None)
                else:
                    model.remove(i)
        except UnsupportedError:
            continue  # a tree bin: refused
        cases.append((" ".join(f"{op}{i}:{hashes[i]}" for op, i in ops), [k for k, _ in model.items()]))
    assert len(cases) > 200
    out = subprocess.run(["java", "-cp", str(tmp_path), "Hm"], input="".join(c + "\n" for c, _ in cases),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert [[int(x) for x in line.split()[1:]] for line in out] == [order for _, order in cases]


def test_key_order_of_a_table(tmp_path: Path) -> None:
    from paimon_sql import Catalog
    from paimon_sql.format.java_hash import java_int_hash

    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    value = pa.struct([("v", pa.string()), ("t", pa.string()), ("note", pa.int32())])
    schema = pa.schema([("k", pa.int64()), ("m", pa.map_(pa.int32(), value))])
    t = cat.create_table("db.t", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.m.aggregate-function": "merge_map_with_keytime",
        "fields.m.ts-field": "t"})
    keys = [40, 7, 1000, 3, 16, 99, 12, 64, 5, 31, 70000, 8, 2, 48]  # 14 keys: the map grows to 32 buckets

    def row(v: str, ts: str | None) -> dict[str, Any]:
        return {"v": v, "t": ts, "note": 1}

    t.write(pa.table({"k": [1], "m": [[(k, row("a", "1")) for k in keys[:8]]]}, schema=schema))
    t.refresh().write(pa.table({"k": [1], "m": [[(k, row("b", "2")) for k in keys[6:]] + [(40, None)]]},
                               schema=schema))
    t.refresh().write(pa.table({"k": [1], "m": [[(7, row("c", "0")), (3, row("c", "3"))]]}, schema=schema))
    (got,) = t.refresh().read().to_pylist()
    want = {**{k: "a" for k in keys[1:6]}, **{k: "b" for k in keys[6:]}, 3: "c"}
    assert {k: v["v"] for k, v in got["m"]} == want
    # a Java HashMap of 13 Integer keys has 32 buckets (the order inside a bucket: test_hash_map_order_is_javas)
    buckets = [(java_int_hash(k) ^ (java_int_hash(k) >> 16)) & 31 for k, _ in got["m"]]
    assert buckets == sorted(buckets) and buckets[0] == 0 and max(buckets) > 15
    bad = {"merge-engine": "aggregation", "fields.m.aggregate-function": "merge_map_with_keytime"}
    cases = [
        (pa.map_(pa.int32(), pa.string()), {}, ValidationError, "Value type of MAP for field 'm' must be ROW"),
        (pa.int32(), {}, ValidationError, "Data type for field 'm' must be 'MAP'"),
        (pa.map_(pa.int32(), pa.struct([("t", pa.string())])), {}, ValidationError, "at least 2 fields, but found 1"),
        (pa.map_(pa.int32(), value), {"fields.m.ts-field": "x"}, ValidationError,
         r"Timestamp field 'x' not found in ROW type for field 'm'. Available fields: \[v, t, note\]"),
        (pa.map_(pa.int32(), value), {}, UnsupportedError, "time field 'note' of field 'm' is INT"),
        (pa.map_(pa.timestamp("us"), value), {"fields.m.ts-field": "t"}, UnsupportedError, "map keys of type TIMESTAMP"),
    ]
    for i, (typ, opts, err, msg) in enumerate(cases):
        with pytest.raises(err, match=msg):
            cat.create_table(f"db.bad{i}", pa.schema([("k", pa.int64()), ("m", typ)]), primary_keys=["k"],
                             options={**bad, **opts})


def test_int_keys_with_one_bucket_per_key() -> None:
    """Integer keys below 16 in a 16-bucket map come out ascending, whatever the arrival order."""
    got = _engine([[[(9, {"actual_value": "x", "dbsync_ts": "1"})], [(k, {"actual_value": "y", "dbsync_ts": "2"})
                                                                     for k in (5, 1, 14, 9, 0)]]],
                  key_type=IntType(), arrow_key=pa.int32())
    assert [k for k, _ in got[0]] == [0, 1, 5, 9, 14]
