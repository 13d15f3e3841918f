"""Micro-benchmarks of the hot per-type conversions (best of N, one process). Not part of CI.

    .venv/bin/python bench/type_conversions.py

Covers: ``to_arrow_type``/``to_arrow_schema`` over a wide schema, the Spark type JSON of a wide
schema, BinaryRow encode/decode (many rows, and one small row many times as partitions and keys
are), Avro data file write/read, and ``cast_array``/``normalize_array``.
"""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pyarrow as pa
from timing import best  # noqa: E402 - bench/ is on the path when run as a script

from paimon_sql import types as pt
from paimon_sql.casting import cast_array, normalize_array
from paimon_sql.format.avro_data import read_avro, write_avro
from paimon_sql.format.binary_row import decode_row, decode_rows, encode_row, encode_rows
from paimon_sql.spark.spark_types import spark_schema_json

_ATOMIC: list[pt.DataType] = [
    pt.BooleanType(), pt.TinyIntType(), pt.SmallIntType(), pt.IntType(), pt.BigIntType(), pt.FloatType(),
    pt.DoubleType(), pt.DecimalType(10, 2), pt.DecimalType(30, 5), pt.CharType(5), pt.VarCharType(),
    pt.BinaryType(4), pt.VarBinaryType(), pt.DateType(), pt.TimeType(3), pt.TimestampType(3),
    pt.TimestampType(6), pt.LocalZonedTimestampType(6),
]
_NESTED: list[pt.DataType] = [
    pt.ArrayType(pt.IntType()),
    pt.MapType(pt.VarCharType(), pt.BigIntType()),
    pt.RowType((pt.DataField(-1, "a", pt.IntType()), pt.DataField(-1, "b", pt.VarCharType()))),
]


def wide_fields(n: int = 1000) -> list[pt.DataField]:
    types = _ATOMIC + _NESTED
    fields, _ = pt.assign_field_ids([(f"c{i}", types[i % len(types)]) for i in range(n)])
    return fields


def row_columns(n: int) -> tuple[list[pt.DataType], list[pa.Array]]:
    rng = np.random.default_rng(1)
    types: list[pt.DataType] = [
        pt.BooleanType(), pt.IntType(), pt.BigIntType(), pt.DoubleType(), pt.DecimalType(10, 2),
        pt.DecimalType(30, 5), pt.VarCharType(), pt.DateType(), pt.TimestampType(3), pt.TimestampType(6),
    ]
    ints = rng.integers(0, 1_000_000, n)
    cols = [
        pa.array(ints % 2 == 0),
        pa.array(ints.astype(np.int32)),
        pa.array(ints.astype(np.int64) * 1000),
        pa.array(rng.random(n)),
        pa.array([decimal.Decimal(int(i)) / 100 for i in ints], pa.decimal128(10, 2)),
        pa.array([decimal.Decimal(int(i)) / 100000 for i in ints], pa.decimal128(30, 5)),
        pa.array([f"s{i % 5000}" for i in ints]),
        pa.array((ints % 20000).astype(np.int32)).cast(pa.date32()),
        pa.array(ints.astype(np.int64) * 1000).cast(pa.timestamp("ms")),
        pa.array(ints.astype(np.int64) * 1000).cast(pa.timestamp("us")),
    ]
    return types, cols


def main() -> None:
    fields = wide_fields()
    wide_types = [f.type for f in fields]

    def arrow_types() -> None:
        for t in wide_types:
            pt.to_arrow_type(t)

    results: list[tuple[str, float]] = []
    results.append(("to_arrow_type x 1000 cols x 20", best(lambda: [arrow_types() for _ in range(20)])))
    results.append(("to_arrow_schema 1000 cols x 20", best(lambda: [pt.to_arrow_schema(fields) for _ in range(20)])))
    results.append(("spark_schema_json 1000 cols x 20", best(lambda: [spark_schema_json(fields) for _ in range(20)])))

    n = 200_000
    types, cols = row_columns(n)
    blobs = encode_rows(cols, types)
    results.append((f"BinaryRow encode_rows {n} rows x 10 cols", best(lambda: encode_rows(cols, types))))
    results.append((f"BinaryRow decode_rows {n} rows x 10 cols", best(lambda: decode_rows(blobs, types))))

    small_types: list[pt.DataType] = [pt.VarCharType(), pt.IntType(), pt.DateType()]
    small_values = ["2024-01-01", 7, dt.date(2024, 1, 1)]
    blob = encode_row(small_values, small_types)
    results.append(("BinaryRow encode_row 3 cols x 2000", best(
        lambda: [encode_row(small_values, small_types) for _ in range(2000)])))
    results.append(("BinaryRow decode_row 3 cols x 2000", best(
        lambda: [decode_row(blob, small_types) for _ in range(2000)])))

    m = 100_000
    table = pa.Table.from_arrays(cols, names=[f"c{i}" for i in range(len(cols))]).slice(0, m)
    data = write_avro(table)
    results.append((f"Avro write_avro {m} rows x 10 cols", best(lambda: write_avro(table), runs=3)))
    results.append((f"Avro read_avro {m} rows x 10 cols", best(lambda: read_avro(data), runs=3)))

    ints = pa.array(np.arange(n, dtype=np.int32))
    results.append((f"cast_array INT->BIGINT {n}", best(lambda: cast_array(ints, pt.IntType(), pt.BigIntType()))))
    results.append((f"cast_array INT->STRING {n}", best(lambda: cast_array(ints, pt.IntType(), pt.VarCharType()))))
    results.append((f"normalize_array 10 cols {n}", best(
        lambda: [normalize_array(c, t) for c, t in zip(cols, types, strict=True)])))

    for name, secs in results:
        print(f"{name:45s} {secs * 1000:9.2f} ms")


if __name__ == "__main__":
    main()
