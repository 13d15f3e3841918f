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
from paimon_sql.fs.file_io import FileIO

_AVRO_CODECS = {"zstd": "zstandard", "zstandard": "zstandard", "snappy": "snappy", "none": "null",
                "null": "null", "deflate": "deflate", "gzip": "deflate", "lz4": "lz4", "bzip2": "bzip2",
                "xz": "xz"}


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


# Fields Paimon declares TINYINT: Avro has no 8-bit int, but ORC and Parquet manifests keep it.
_TINYINT_FIELDS = {"_KIND", "_FILE_SOURCE"}


def _avro_to_arrow_type(t: Any, name: str = "") -> tuple[pa.DataType, bool]:
    """Arrow type and nullability for an Avro schema node (only the shapes our metadata uses)."""
    if name in _TINYINT_FIELDS:
        inner, nullable = _avro_to_arrow_type(t)
        return pa.int8(), nullable
    if isinstance(t, list):
        non_null = [x for x in t if x != "null"]
        inner, _ = _avro_to_arrow_type(non_null[0])
        return inner, True
    if isinstance(t, str):
        return {"int": pa.int32(), "long": pa.int64(), "string": pa.string(), "bytes": pa.binary(),
                "boolean": pa.bool_()}[t], False
    if t.get("logicalType") == "timestamp-millis":
        return pa.timestamp("ms"), False
    if t["type"] == "array":
        item, item_null = _avro_to_arrow_type(t["items"])
        return pa.list_(pa.field("element", item, nullable=item_null)), False
    if t["type"] == "record":
        fields = []
        for f in t["fields"]:
            ft, fn = _avro_to_arrow_type(f["type"], f["name"])
            fields.append(pa.field(f["name"], ft, nullable=fn))
        return pa.struct(fields), False
    return _avro_to_arrow_type(t["type"])


def write_records(
    file_io: FileIO,
    path: str,
    records: list[dict[str, Any]],
    avro_schema: dict[str, Any],
    file_format: str = "avro",
    compression: str = "zstd",
) -> int:
    """Writes a new metadata file and returns its size in bytes."""
    buf = io.BytesIO()
    fmt = file_format.lower()
    if fmt == "avro":
        codec = _AVRO_CODECS.get(compression.lower())
        if codec is None:
            raise ValidationError(f"Invalid value {compression!r} for option 'manifest.compression'")
        fastavro.writer(buf, fastavro.parse_schema(avro_schema), records, codec=codec)
        data = buf.getvalue()
    elif fmt in ("orc", "parquet"):
        struct, _ = _avro_to_arrow_type(avro_schema)
        schema = pa.schema(list(struct))
        table = pa.Table.from_pylist(records, schema=schema)
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
