"""Parquet data files: dictionary encoding only for columns that repeat values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from paimon_sql.format.data_files import dictionary_columns, read_file, write_file
from paimon_sql.fs.file_io import FileIO


def test_dictionary_only_for_repeating_columns() -> None:
    n = 50_000
    t = pa.table({
        "id": np.arange(n, dtype=np.int64),
        "dt": pa.array(["2024-01-01", "2024-01-02"] * (n // 2)),
        "v": np.random.default_rng(1).random(n),
        "flag": pa.array([True, False] * (n // 2)),
        "few": pa.array(np.arange(n) % 7, pa.int32()),
    })
    assert dictionary_columns(t) == ["dt", "flag", "few"]
    assert dictionary_columns(t.slice(0, 0)) is True
    nested = t.append_column("xs", pa.array([[1]] * n, pa.list_(pa.int32())))
    assert dictionary_columns(nested) is True


def test_written_file_encodings_and_round_trip(tmp_path: Any) -> None:
    io, root = FileIO.for_uri(str(tmp_path))
    n = 30_000
    t = pa.table({"id": np.arange(n, dtype=np.int64), "k": pa.array(["a", "b", "c"] * (n // 3))})
    path = f"{root}/f.parquet"
    write_file(io, path, t, "parquet")
    col_encodings = {}
    meta = pq.ParquetFile(path).metadata
    for i in range(meta.num_columns):
        c = meta.row_group(0).column(i)
        col_encodings[c.path_in_schema] = c.encodings
    assert "RLE_DICTIONARY" in col_encodings["k"] or "PLAIN_DICTIONARY" in col_encodings["k"]
    assert not any("DICTIONARY" in e for e in col_encodings["id"])
    assert read_file(io, path, "parquet", ["id", "k"]).equals(t)


def test_read_file_columns_in_the_order_asked(tmp_path: Any) -> None:
    # read in the file's order (faster in Arrow), returned in the order asked
    fio, root = FileIO.for_uri(str(tmp_path))
    path = f"{root}/f.parquet"
    data = pa.table({"id": [1, 2, 3], "v": [10, 20, 30], "name": ["a", None, "c"], "amount": [0.5, 1.5, None]})
    pq.write_table(data, path)
    for cols in (["amount", "id", "name", "v"], ["name", "id"], ["v"], ["id", "v", "name", "amount"]):
        got = read_file(fio, path, "parquet", cols, 3)
        assert got.column_names == cols and got.equals(data.select(cols))
    assert read_file(fio, path, "parquet", None).equals(data)
