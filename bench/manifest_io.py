"""Manifest write and read times (best of N, one process) for each manifest.format. Not part of CI.

    .venv/bin/python bench/manifest_io.py [entries]

Run it against another checkout (``PYTHONPATH=<old>/ .venv/bin/python bench/manifest_io.py``) to
compare two versions of the metadata code on the same machine.
"""

from __future__ import annotations

import sys
import tempfile

from timing import best  # noqa: E402 - bench/ is on the path when run as a script

import paimon_sql
from paimon_sql.format.binary_row import encode_row
from paimon_sql.fs.file_io import FileIO
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.manifest_store import ManifestStore
from paimon_sql.meta.simple_stats import SimpleStats
from paimon_sql.types import IntType, VarCharType


def entries(n: int) -> list[ManifestEntry]:
    types = [VarCharType(), IntType()]
    out = []
    for i in range(n):
        stats = SimpleStats(encode_row([i, "a"], [IntType(), VarCharType()]), encode_row([i + 9, "z"], [IntType(), VarCharType()]), (0, 1))
        f = DataFileMeta(f"data-{i}.parquet", 1000 + i, 100, b"k", b"k", stats, stats, i, i + 10, 0, i % 6,
                         (), 1_700_000_000_000 + i, 0, None, 0, None, None, None, None)
        out.append(ManifestEntry(0, encode_row([f"p{i % 10}", i % 3], types), i % 4, 4, f))
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    es = entries(n)
    print(f"paimon_sql from {paimon_sql.__file__}; {n} entries")
    with tempfile.TemporaryDirectory() as d:
        fio, root = FileIO.for_uri(d)
        for fmt in ("avro", "orc", "parquet"):
            w, r = _time_format(ManifestStore(fio, root, [VarCharType(), IntType()], fmt, "zstd"), es)
            print(f"{fmt:8s} write {w * 1000:8.1f} ms   read {r * 1000:8.1f} ms")


def _time_format(ms: ManifestStore, es: list[ManifestEntry]) -> tuple[float, float]:
    names: list[str] = []
    w = best(lambda: names.append(ms.write_manifest(es, 0).file_name))

    def read() -> None:
        ms._entries_cache.clear()
        ms.read_manifest(names[-1])

    return w, best(read)

if __name__ == "__main__":
    main()
