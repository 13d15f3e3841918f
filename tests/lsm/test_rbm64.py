"""``rbm64`` (Paimon's FieldRoaringBitmap64Agg): the union of serialized ``Roaring64Bitmap`` values,
byte for byte what Java writes. The inputs are built by the RoaringBitmap jar Spark ships (a tiny
Java program compiled with javac: values added in random order, with and without runOptimize), folded
there as Paimon folds them (deserialize, ``or``, ``runOptimize``, serialize) and by paimon_sql, and
the bytes compared."""

from __future__ import annotations

import glob
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.agg_rbm64 import _RUN, Roaring64, _Container, rbm64_bytes, rbm64_values
from paimon_sql.lsm.aggregate import FieldAgg
from paimon_sql.lsm.merge import KIND, SEQ, MergeSpec, aggregation
from paimon_sql.types import VarBinaryType

KEY = "_KEY_k"

JAVA = """
import org.roaringbitmap.longlong.Roaring64Bitmap;
import java.io.*;
import java.util.HexFormat;
public class Rbm64 {
  static byte[] ser(Roaring64Bitmap b, boolean optimize) throws IOException {
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    DataOutputStream dos = new DataOutputStream(bos);
    if (optimize) b.runOptimize();
    b.serialize(dos);
    dos.flush();
    return bos.toByteArray();
  }
  static Roaring64Bitmap de(byte[] d) throws IOException {
    Roaring64Bitmap b = new Roaring64Bitmap();
    b.deserialize(new DataInputStream(new ByteArrayInputStream(d)));
    return b;
  }
  public static void main(String[] a) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    HexFormat hx = HexFormat.of();
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] p = line.trim().split(" ");
      if (p[0].equals("B")) {  // B <runOptimize 0|1> values (unsigned), added in this order
        Roaring64Bitmap b = new Roaring64Bitmap();
        for (int i = 2; i < p.length; i++) b.addLong(Long.parseUnsignedLong(p[i]));
        System.out.println(hx.formatHex(ser(b, p[1].equals("1"))));
      } else {  // F hex:hex:...: folded as Paimon's FieldRoaringBitmap64Agg / RoaringBitmap64 do
        byte[] acc = null;
        for (String h : p[1].split(":")) {
          byte[] x = hx.parseHex(h);
          if (acc == null) { acc = x; continue; }
          Roaring64Bitmap b = de(acc);
          b.or(de(x));
          acc = ser(b, true);
        }
        System.out.println(hx.formatHex(acc));
      }
    }
  }
}
"""


@pytest.fixture(scope="module")
def java(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import pyspark

    jars = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "RoaringBitmap-*.jar"))
    if not jars or shutil.which("javac") is None:
        pytest.skip("needs javac and the RoaringBitmap jar of pyspark")
    tmp = tmp_path_factory.mktemp("rbm64")
    (tmp / "Rbm64.java").write_text(JAVA)
    subprocess.run(["javac", "-cp", jars[0], "-d", str(tmp), str(tmp / "Rbm64.java")], check=True)

    def run(lines: list[str]) -> list[bytes]:
        out = subprocess.run(["java", "-cp", f"{jars[0]}{os.pathsep}{tmp}", "Rbm64"], check=True,
                             input="".join(line + "\n" for line in lines), capture_output=True, text=True)
        return [bytes.fromhex(h) for h in out.stdout.split()]

    return run


def _engine(groups: list[list[bytes | None]], kinds: list[list[int]] | None = None,
            ignore_retract: bool = False) -> dict[int, Any]:
    keys = [k for k, g in enumerate(groups) for _ in g]
    t = pa.table({
        KEY: pa.array(keys, pa.int64()),
        SEQ: pa.array(list(range(len(keys))), pa.int64()),
        KIND: pa.array([x for g in kinds for x in g] if kinds else [0] * len(keys), pa.int8()),
        "b": pa.array([b for g in groups for b in g], pa.binary()),
    })
    fa = FieldAgg("b", "rbm64", VarBinaryType(), ignore_retract=ignore_retract)
    spec = MergeSpec(key_columns=(KEY,), field_aggs=(fa,))
    return {r[KEY]: r["b"] for r in aggregation(t, spec).to_pylist()}


def _random_values(rnd: random.Random) -> list[int]:
    """Values over a few 48-bit high parts (small, above 2**32, above 2**63, shared prefixes that
    make the radix tree split and grow), each part sparse, dense, a range or runs; shuffled."""
    rng = np.random.default_rng(rnd.randrange(1 << 30))
    pool = [0, 1, 2, 7, 255, 256, 65536, 1 << 20, 1 << 32, (1 << 47) + 3, (1 << 48) - 1, 0xFFFF0000FFFF,
            rnd.randrange(1 << 48), *range(100, 100 + rnd.choice([1, 6, 20, 60]))]
    parts = []
    for high in rnd.sample(pool, rnd.randint(1, 10)):
        n = rnd.choice([1, 3, 200, 4096, 4097, 20000, 65535, 65536])
        shape = rnd.choice(["random", "range", "runs"])
        if shape == "random":
            lows = rng.choice(65536, n, replace=False)
        elif shape == "range":
            lows = np.arange(n) + rnd.randrange(65536 - n + 1)
        else:  # pairs of neighbours every 2, 3 or 50 values
            step = rnd.choice([2, 3, 50])
            lows = np.unique(np.add.outer(np.arange(0, 65535, step), [0, 1]).ravel())[:n]
        parts.append((np.uint64(high) << np.uint64(16)) | lows.astype(np.uint64))
    values = np.concatenate(parts)
    rng.shuffle(values)
    return [int(v) for v in values]


def test_unions_are_javas_bytes(java: Any) -> None:
    rnd = random.Random(11)
    specs = [(rnd.choice("01"), _random_values(rnd)) for _ in range(int(os.environ.get("RBM_CASES", "16")))]
    # 40 high parts each under one radix-tree node: their unions grow it from Node48 to Node256, and
    # high parts that share 3, 4 or 5 leading bytes split prefixes
    n = len(specs)
    specs += [("1", [(k << 16) | j for k in range(j, 120, 3)]) for j in range(3)]
    specs += [("1", [(base + d) << 16 for d in (0, 1, 0x100, 0x10000, 0x1000000)]) for base in (0, 0x5A5A5A000000)]
    built = java([f"B {opt} " + " ".join(map(str, v)) for opt, v in specs])
    groups = [[rnd.randrange(n) for _ in range(rnd.randint(2, 5))] for _ in range(30)]
    groups += [[0, 0], [1, 2, 1]]  # a bitmap with itself, twice
    groups += [[n, n + 1], [n + 1, n, n + 2], [n + 3, n + 4, n], [n + 4, n + 3]]
    want = java(["F " + ":".join(built[i].hex() for i in g) for g in groups])
    ours = _engine([[built[i] for i in g] for g in groups])
    assert [ours[k] for k in range(len(groups))] == want
    arrays = [np.array(v, dtype=np.uint64) for _, v in specs]
    for k, g in enumerate(groups):
        union = np.sort(np.concatenate([arrays[i] for i in g]))
        assert np.array_equal(rbm64_values(ours[k]), union[np.concatenate([[True], union[1:] != union[:-1]])])


def test_container_choices_at_the_size_ties(java: Any) -> None:
    """A run merge is kept as runs when they take no more bytes than an array (Java's
    toEfficientContainer), runOptimize makes runs only when strictly smaller: the unions below have
    exactly (or about) two values per run."""
    high = 7 << 16
    long_run = [high | v for v in range(100)]  # stored as a run container
    specs = []
    for singles in (96, 97, 98, 99, 100):
        spread = [high | (200 + 2 * i) for i in range(singles)] + [high | (600 + 3 * i + j) for i in range(5)
                                                                  for j in (0, 1)]
        specs += [long_run, spread]
    built = java(["B 1 " + " ".join(map(str, v)) for v in specs])
    groups = [[built[i], built[i + 1]] for i in range(0, len(specs), 2)]
    groups += [[b, a] for a, b in groups]
    # a wasteful run container (one run per value), which Java's 64-bit runOptimize keeps as it is
    wasteful = Roaring64()
    wasteful.put(bytes(6), _Container.of(_RUN, np.array([1, 5, 9, 13], dtype=np.uint16)))
    groups += [[wasteful.serialize(), rbm64_bytes([1 << 16])], [rbm64_bytes([1 << 16]), wasteful.serialize()],
               [wasteful.serialize(), rbm64_bytes([2])]]
    assert list(_engine(groups).values()) == java(["F " + ":".join(b.hex() for b in g) for g in groups])


def test_values_to_bytes_as_java_adds_them_in_order(java: Any) -> None:
    rnd = random.Random(5)
    cases = [[], [1], [1, 2, 3], [(1 << 64) - 1, 1 << 63, 5], [rnd.randrange(1 << 64) for _ in range(300)],
             *(_random_values(rnd) for _ in range(8))]
    want = java(["B 1 " + " ".join(map(str, sorted(set(c)))) for c in cases])
    assert [rbm64_bytes(c) for c in cases] == want
    assert [rbm64_values(b).tolist() for b in want] == [sorted(set(c)) for c in cases]
    assert rbm64_bytes([-1, 3]) == rbm64_bytes([(1 << 64) - 1, 3])  # a Java long is its two's complement


def test_paimons_cases() -> None:
    """FieldAggregatorTest.testFieldRoaringBitmap64Agg (bitmapOf adds in order, then serialize)."""
    one, acc1, acc2 = rbm64_bytes([1]), rbm64_bytes([2, 3]), rbm64_bytes([1, 2, 3])
    got = _engine([[None, None], [None, one], [acc1, None], [acc1, one], [acc2, one]])
    assert got == {0: None, 1: one, 2: acc1, 3: acc2, 4: acc2}


def test_lone_values_are_kept_and_bad_bytes_named() -> None:
    odd = b"\x07garbage"  # a lone value is never parsed, as in Paimon
    assert _engine([[odd]]) == {0: odd}
    with pytest.raises(ValidationError, match="roaring bitmap of field 'b'"):
        _engine([[rbm64_bytes([1]), odd]])


def test_retraction_is_refused_unless_ignored() -> None:
    a, b = rbm64_bytes([1]), rbm64_bytes([2])
    with pytest.raises(UnsupportedError, match="'rbm64' does not support retraction"):
        _engine([[a, b]], kinds=[[0, 1]])
    assert _engine([[a, b]], kinds=[[0, 1]], ignore_retract=True) == {0: a}


def test_table_column(tmp_path: Path) -> None:
    from paimon_sql import Catalog

    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    schema = pa.schema([("k", pa.int64()), ("users", pa.binary())])
    t = cat.create_table("db.r", schema, primary_keys=["k"], options={
        "bucket": "1", "merge-engine": "aggregation", "fields.users.aggregate-function": "rbm64"})
    big = [(1 << 63) + 9, 1 << 40]
    t.write(pa.table({"k": [1, 2], "users": [rbm64_bytes([1, 5, big[0]]), None]}, schema=schema))
    t.refresh().write(pa.table({"k": [1, 2], "users": [rbm64_bytes([5, 9, big[1]]), rbm64_bytes([3])]},
                               schema=schema))
    rows = {r["k"]: r["users"] for r in t.refresh().read().to_pylist()}
    assert rbm64_values(rows[1]).tolist() == [1, 5, 9, big[1], big[0]]
    assert rows[2] == rbm64_bytes([3])
    with pytest.raises(ValidationError, match="roaring bitmap column must be 'VarBinaryType'.*'n'.*rbm64"):
        cat.create_table("db.bad", pa.schema([("k", pa.int64()), ("n", pa.int64())]), primary_keys=["k"],
                         options={"merge-engine": "aggregation", "fields.n.aggregate-function": "rbm64"})
