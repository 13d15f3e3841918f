"""Reading and writing Paimon's metadata files (manifest lists, manifests, index manifests).

Paimon writes them in Avro by default and in ORC or Parquet when ``manifest.format`` says so; the
records have the same field names in every format. Records are read by field name: older writers
lack newer fields, which then read as null.
"""

from __future__ import annotations

import io
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.orc as paorc
import pyarrow.parquet as pq

from paimon_sql.errors import CorruptFileError, NotFoundError, UnsupportedError, ValidationError
from paimon_sql.format.avro_data import avro_codec
from paimon_sql.fs.file_io import FileIO
from paimon_sql.meta.record_types import arrow_schema_of, avro_schema_of
from paimon_sql.types import RowType


def read_records(file_io: FileIO, path: str) -> list[dict[str, Any]]:
    """Reads all records of a metadata file, detecting its format from its magic bytes."""
    data = file_io.read_bytes(path)
    try:
        if data[:4] == b"Obj\x01":
            return list(fastavro.reader(io.BytesIO(data)))  # type: ignore[arg-type]
        if data[:3] == b"ORC":
            table = paorc.ORCFile(pa.BufferReader(data)).read()
            return _arrow_to_records(table)
        if data[:4] == b"PAR1":
            return _arrow_to_records(pq.read_table(pa.BufferReader(data)))
    except NotFoundError:
        raise
    except Exception as e:  # noqa: BLE001 - any decoding failure is a corrupt file
        raise CorruptFileError(f"Corrupt metadata file {path}: {type(e).__name__}: {e}") from e
    raise CorruptFileError(f"Corrupt metadata file {path}: unknown format (not Avro, ORC or Parquet)")


def _arrow_to_records(table: pa.Table) -> list[dict[str, Any]]:
    table = pa.Table.from_arrays(
        [_timestamps_to_millis(c.combine_chunks()) for c in table.columns], names=table.column_names
    )
    return table.to_pylist()


def _timestamps_to_millis(arr: pa.Array) -> pa.Array:
    t = arr.type
    if pa.types.is_timestamp(t):
        return arr.cast(pa.timestamp("ms", t.tz), safe=False).cast(pa.int64())
    if pa.types.is_struct(t):
        children = [_timestamps_to_millis(arr.field(i)) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(
            children, names=[t.field(i).name for i in range(t.num_fields)], mask=arr.is_null()
        )
    if pa.types.is_list(t):
        return pa.ListArray.from_arrays(arr.offsets, _timestamps_to_millis(arr.values), mask=arr.is_null())
    return arr


def write_records(
    file_io: FileIO,
    path: str,
    records: list[dict[str, Any]],
    row_type: RowType,
    file_format: str = "avro",
    compression: str = "zstd",
) -> int:
    """Writes a new metadata file of records of ``row_type`` (see ``record_types``) and returns its
    size in bytes."""
    buf = io.BytesIO()
    fmt = file_format.lower()
    if fmt == "avro":
        try:
            codec = avro_codec(compression, "Avro manifests")
        except UnsupportedError as e:
            raise ValidationError(f"Invalid value {compression!r} for option 'manifest.compression': {e}") from None
        fastavro.writer(buf, fastavro.parse_schema(avro_schema_of(row_type)), records, codec=codec)
        data = buf.getvalue()
    elif fmt in ("orc", "parquet"):
        table = pa.Table.from_pylist(records, schema=arrow_schema_of(row_type))
        sink = pa.BufferOutputStream()
        comp = "uncompressed" if compression.lower() in ("none", "null") else compression.lower()
        if fmt == "orc":
            paorc.write_table(table, sink, compression=comp)
        else:
            pq.write_table(table, sink, compression=comp)
        data = sink.getvalue().to_pybytes()
    else:
        raise UnsupportedError(f"manifest.format {file_format!r} is not supported (avro, orc, parquet)")
    file_io.write_bytes(path, data)
    return len(data)
