"""v2 deletion vectors (``deletion-vectors.bitmap64``, Paimon's ``Bitmap64DeletionVector``): the
bytes of (magic + bitmap) are what Java writes (each 32-bit bitmap run-optimized and serialized by
the RoaringBitmap jar Spark ships, in Paimon's ``OptimizedRoaringBitmap64`` layout), the length and
CRC frame it, and they decode back to the positions."""

from __future__ import annotations

import glob
import os
import random
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.format import deletion_vector
from paimon_sql.meta.index_file_meta import INDEX_TYPE_DELETION_VECTORS

JAVA = """
import org.roaringbitmap.RoaringBitmap;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
public class Dv64 {
  public static void main(String[] a) throws Exception {
    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      // positions joined by ',' (maybe none): Paimon's OptimizedRoaringBitmap64 + Bitmap64DeletionVector
      String[] parts = line.isEmpty() ? new String[0] : line.split(",");
      int n = 0;
      for (String p : parts) { n = Math.max(n, (int) (Long.parseLong(p) >> 32) + 1); }
      RoaringBitmap[] bms = new RoaringBitmap[n];
      for (int i = 0; i < n; i++) { bms[i] = new RoaringBitmap(); }
      for (String p : parts) { long v = Long.parseLong(p); bms[(int) (v >> 32)].add((int) v); }
      int size = 4 + 8;
      for (RoaringBitmap b : bms) { b.runOptimize(); size += 4 + b.serializedSizeInBytes(); }
      ByteBuffer buf = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
      buf.putInt(1681511377);
      buf.putLong(n);
      for (int i = 0; i < n; i++) { buf.putInt(i); bms[i].serialize(buf); }
      System.out.println(HexFormat.of().formatHex(buf.array()));
    }
  }
}
"""


def _cases() -> list[np.ndarray]:
    rng = random.Random(20261124)
    cases = [np.array([], dtype=np.int64), np.array([0], dtype=np.int64), np.arange(0, 70000, dtype=np.int64),
             np.array([5, 2**32 + 7, 3 * 2**32], dtype=np.int64)]
    for _ in range(20):
        n = rng.choice([1, 10, 500, 5000, 70000])
        hi = rng.choice([1000, 70000, 2**20, 2**34])
        pos = np.array(sorted({rng.randrange(hi) for _ in range(n)}), dtype=np.int64)
        if rng.random() < 0.3:  # long runs too
            start = rng.randrange(hi)
            pos = np.union1d(pos, np.arange(start, start + rng.randrange(1, 9000), dtype=np.int64))
        cases.append(pos)
    return cases


def test_round_trip_and_frame() -> None:
    for pos in _cases():
        data = deletion_vector.serialize_v2(pos)
        (length,) = struct.unpack_from(">i", data, 0)
        assert len(data) == 4 + length + 4
        assert struct.unpack_from(">I", data, 4 + length)[0] == zlib.crc32(data[4:4 + length])
        assert deletion_vector.deserialize(data).tolist() == pos.tolist()


def test_bytes_are_javas(tmp_path: Path) -> None:
    import pyspark

    jars = glob.glob(os.path.join(os.path.dirname(pyspark.__file__), "jars", "RoaringBitmap-*.jar"))
    if not jars or shutil.which("javac") is None:
        pytest.skip("needs javac and the RoaringBitmap jar of pyspark")
    (tmp_path / "Dv64.java").write_text(JAVA)
    subprocess.run(["javac", "-cp", jars[0], "-d", str(tmp_path), str(tmp_path / "Dv64.java")], check=True)
    cases = _cases()
    lines = "".join(",".join(str(v) for v in c.tolist()) + "\n" for c in cases)
    out = subprocess.run(["java", "-cp", f"{jars[0]}{os.pathsep}{tmp_path}", "Dv64"], input=lines, check=True,
                         capture_output=True, text=True).stdout.split("\n")
    for pos, java_hex in zip(cases, out):
        data = deletion_vector.serialize_v2(pos)
        (length,) = struct.unpack_from(">i", data, 0)
        assert data[4:4 + length].hex() == java_hex, len(pos)


def test_tables_with_bitmap64_write_v2_vectors(catalog: Catalog) -> None:
    for opts in ({"primary-key": "id", "bucket": "1"}, {"bucket": "-1"}):
        pk = opts.pop("primary-key", None)
        name = f"db.t{len(opts)}{pk or 'a'}"
        t = catalog.create_table(name, pa.schema([pa.field("id", pa.int64(), nullable=pk is None), ("v", pa.string())]),
                                 primary_keys=[pk] if pk else None,
                                 options={"deletion-vectors.enabled": "true", "deletion-vectors.bitmap64": "true", **opts})
        ids = list(range(500))
        t.write(pa.table({"id": ids, "v": ["a"] * 500}))
        t.delete("id in (" + ",".join(str(i) for i in ids if i % 7 == 0) + ")")
        t = catalog.get_table(name)
        assert sorted(t.read()["id"].to_pylist()) == [i for i in ids if i % 7]
        entries = [e for e in t.store.manifests.index_entries(t.latest_snapshot())
                   if e.index_file.index_type == INDEX_TYPE_DELETION_VECTORS]
        assert entries
        for e in entries:
            data = Path(t.store.index_file_path(e.index_file.file_name)).read_bytes()
            for r in e.index_file.dv_ranges.values():
                assert struct.unpack_from("<i", data, r.offset + 4)[0] == deletion_vector.MAGIC_V2
