"""``rbm32`` (Paimon's FieldRoaringBitmap32Agg): the union of serialized 32-bit Roaring bitmaps,
byte for byte what Paimon writes: each case is also folded by the RoaringBitmap jar Spark ships (a tiny
Java program compiled with javac doing what Paimon's fold does: deserialize, ``or``, then
``RoaringBitmap32.serialize``, which calls ``runOptimize`` first), and the bytes compared."""

from __future__ import annotations

import glob
import os
import random
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyroaring import BitMap

from paimon_sql.lsm.aggregate import FieldAgg
from paimon_sql.lsm.merge import KIND, SEQ, MergeSpec, aggregation
from paimon_sql.types import VarBinaryType

KEY = "_KEY_k"

JAVA = """
import org.roaringbitmap.RoaringBitmap;
import java.nio.ByteBuffer;
import java.util.HexFormat;
public class Rbm {
  public static void main(String[] a) throws Exception {
    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
    for (String group = in.readLine(); group != null; group = in.readLine()) {
      // a line: hex bitmaps joined by ':', folded with or() as Paimon's agg does
      RoaringBitmap acc = null;
      for (String hex : group.split(":")) {
        RoaringBitmap b = new RoaringBitmap();
        b.deserialize(ByteBuffer.wrap(HexFormat.of().parseHex(hex)));
        if (acc == null) { acc = b; } else { acc.or(b); acc.runOptimize(); }
      }
      ByteBuffer buf = ByteBuffer.allocate(acc.serializedSizeInBytes());
      acc.serialize(buf);
      System.out.println(HexFormat.of().formatHex(buf.array()));
    }
  }
}
"""


def _java_unions(tmp: Path, groups: list[list[bytes]]) -> list[bytes]:
    import pyspark

    jars = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "RoaringBitmap-*.jar"))
    if not jars or shutil.which("javac") is None:
        pytest.skip("needs javac and the RoaringBitmap jar of pyspark")
    (tmp / "Rbm.java").write_text(JAVA)
    subprocess.run(["javac", "-cp", jars[0], "-d", str(tmp), str(tmp / "Rbm.java")], check=True)
    lines = "".join(":".join(b.hex() for b in g) + "\n" for g in groups)
    out = subprocess.run(["java", "-cp", f"{jars[0]}{os.pathsep}{tmp}", "Rbm"], input=lines, check=True,
                         capture_output=True, text=True).stdout.split()
    return [bytes.fromhex(h) for h in out]


def _engine(groups: list[list[bytes | None]]) -> dict[int, Any]:
    keys = [k for k, g in enumerate(groups) for _ in g]
    t = pa.table({
        KEY: pa.array(keys, pa.int64()),
        SEQ: pa.array(list(range(len(keys))), pa.int64()),
        KIND: pa.array([0] * len(keys), pa.int8()),
        "b": pa.array([b for g in groups for b in g], pa.binary()),
    })
    spec = MergeSpec(key_columns=(KEY,), field_aggs=(FieldAgg("b", "rbm32", VarBinaryType()),))
    return {r[KEY]: r["b"] for r in aggregation(t, spec).to_pylist()}


def _bm(values: Any, optimize: bool = False) -> bytes:
    b = BitMap(list(values), optimize=False)  # arrays and bitmaps only (pyroaring makes runs of ranges)
    if optimize:
        b.run_optimize()
    return bytes(b.serialize())


def _one_run_container(lows: list[int]) -> bytes:
    """A bitmap of key 0 stored as a run container, however wasteful (one run per value here)."""
    head = (12347).to_bytes(4, "little") + b"\x01" + struct.pack("<HH", 0, len(lows) - 1)
    return head + struct.pack("<H", len(lows)) + b"".join(struct.pack("<HH", v, 0) for v in lows)


def test_unions_are_javas_bytes(tmp_path: Path) -> None:
    rnd = random.Random(7)
    groups = [
        [_bm([1, 2, 3]), _bm([3, 4, 100000])],
        [_bm(range(0, 5000)), _bm([7, 70000])],  # a bitmap container
        [_bm(range(0, 100000, 3)), _bm(range(1, 100000, 3)), _bm(range(2, 100000, 3))],
        [_bm(range(10, 20000), optimize=True), _bm([5, 30000, 1 << 31])],  # run containers
        [_bm(rnd.sample(range(1 << 20), 3000)), _bm(rnd.sample(range(1 << 20), 3000))],
        [_bm(range(0, 4000)), _bm(range(4000, 4200))],  # an array container grows into a bitmap
        # full keys become one-run containers in Java's or(), with offsets from 4 containers on
        [_bm(range(0, 65536, 2)), _bm(range(1, 65536, 2)), _bm(range(3 << 16, (3 << 16) + 10)),
         _bm([5 << 16, 7 << 16])],
        [_bm(x for x in range(65536) if x != 5), _bm([5, 1 << 20])],  # bitmap | array fills a key
        [_bm(rnd.sample(range(1 << 24), 20000)) for _ in range(4)],
        # run merges with two values per run (Java keeps them as runs) and runOptimize's strict rule
        *([_bm(range(100), optimize=True), _bm([200 + 2 * i for i in range(s)] + [600 + 3 * i + j for i in range(5)
                                                                             for j in (0, 1)])]
          for s in (96, 97, 98, 99, 100)),
        # wasteful run containers: runOptimize turns them into arrays (and bitmaps)
        [_one_run_container([1, 5, 9, 13]), _bm([2])],
        [_bm([1 << 16]), _one_run_container([1, 5, 9, 13])],  # a key of one side only
        [_one_run_container(list(range(0, 20000, 4))), _bm([70000])],
    ]
    for _ in range(int(os.environ.get("RBM_CASES", "25"))):  # random densities per key: arrays, bitmaps, full keys, in 2 to 5 folds
        group = []
        for _ in range(rnd.randint(2, 5)):
            keys = rnd.sample(range(6), rnd.randint(1, 4))
            vals = []
            for k in keys:
                n = rnd.choice([10, 3000, 4100, 30000, 65000, 65536])
                start = rnd.randrange(65537 - n)
                lows = rnd.choice([rnd.sample(range(1 << 16), n), range(start, start + n),
                                   [y for x in range(0, 65535, 3) for y in (x, x + 1)][:n]])
                vals += [(k << 16) | v for v in lows]
            group.append(_bm(vals, optimize=rnd.random() < 0.5))  # inputs as Paimon writes them have runs
        groups.append(group)
    ours = _engine([list(g) for g in groups])
    assert [ours[k] for k in range(len(groups))] == _java_unions(tmp_path, groups)
    for k, g in enumerate(groups):  # and the union is right
        assert set(BitMap.deserialize(ours[k])) == set().union(*(set(BitMap.deserialize(b)) for b in g))


def test_nulls_and_single_values_are_kept() -> None:
    one = _bm([1, 2])
    odd = b"\x3a\x30\x00\x00"  # kept as it is: a lone value is never parsed, as in Paimon
    assert _engine([[None, one], [None, None], [odd]]) == {0: one, 1: None, 2: odd}
    from paimon_sql.errors import ValidationError

    for bad in (odd, b"\x3a\x30\x00\x00\x01\x00\x00\x00\x00\x00\x05\x00", b"xyz"):  # short, truncated, no cookie
        with pytest.raises(ValidationError, match="roaring bitmap of field 'b'"):
            _engine([[one, bad]])


def test_table_column(tmp_path: Path) -> None:
    from paimon_sql import Catalog
    from paimon_sql.errors import ValidationError

    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    schema = pa.schema([("k", pa.int64()), ("users", pa.binary())])
    t = cat.create_table("db.r", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.users.aggregate-function": "rbm32"})
    t.write(pa.table({"k": [1], "users": [_bm([1, 5])]}, schema=schema))
    t.refresh().write(pa.table({"k": [1], "users": [_bm([5, 9])]}, schema=schema))
    (row,) = t.refresh().read().to_pylist()
    assert set(BitMap.deserialize(row["users"])) == {1, 5, 9}
    with pytest.raises(ValidationError, match="roaring bitmap column must be 'VarBinaryType'.*'n'"):
        cat.create_table("db.bad", pa.schema([("k", pa.int64()), ("n", pa.int64())]), primary_keys=["k"],
                         options={"merge-engine": "aggregation", "fields.n.aggregate-function": "rbm32"})
