"""What parquet page checksums cost: writing and reading a 1M-row, 4-column file with and without
them (pyarrow, as the engine writes data files), best of 5. Not part of CI.

    .venv/bin/python bench/page_checksums.py
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from timing import best  # noqa: E402 - bench/ is on the path when run as a script


def main() -> None:
    n = 1_000_000
    rng = np.random.default_rng(1)
    table = pa.table({
        "id": pa.array(np.arange(n, dtype=np.int64)),
        "v": pa.array(rng.random(n)),
        "k": pa.array(rng.integers(0, 1000, n)),
        "s": pa.array([f"s{i % 5000}" for i in range(n)]),
    })
    for checksum in (False, True):
        buf = io.BytesIO()

        def write(checksum: bool = checksum) -> None:
            out = io.BytesIO()
            pq.write_table(table, out, compression="zstd", compression_level=1, write_page_checksum=checksum)

        pq.write_table(table, buf, compression="zstd", compression_level=1, write_page_checksum=checksum)
        data = buf.getvalue()

        def read(data: bytes = data, checksum: bool = checksum) -> None:
            pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=checksum).read(use_threads=False)

        print(f"checksums={checksum!s:5}  write {best(write):.3f} s  read {best(read):.3f} s  size {len(data)} B")


if __name__ == "__main__":
    main()
