"""Avro data files (``file.format`` = avro) as Apache Paimon writes them, to and from Arrow.

Facts from Paimon's ``paimon-format/.../format/avro`` (``AvroSchemaConverter``, ``FieldWriterFactory``,
``FieldReaderFactory``, ``AvroFileFormat``):

* The file schema is a record named ``record`` in namespace ``org.apache.paimon.avro.generated``.
  A nested ROW in field ``f`` of a record named ``R`` is a record named ``R_f``; array elements and
  string-keyed map values keep the enclosing name; the entry record of a non-string-keyed map takes the
  enclosing name, its key ``<name>_key`` and its value ``<name>_value``.
* A nullable type is the union ``["null", T]`` and its record field has ``"default": null``; a NOT
  NULL type is plain ``T`` without default. No field ids are stored (they are only written for the
  Iceberg compatibility mode).
* BOOLEAN boolean; TINYINT/SMALLINT/INT int; BIGINT long; FLOAT float; DOUBLE double; CHAR/VARCHAR
  string; BINARY/VARBINARY/BLOB bytes; DECIMAL(p, s) bytes with logical type ``decimal`` holding the
  unscaled value as minimal big-endian two's complement (``BigInteger.toByteArray``); DATE int
  ``date``; TIME(p <= 3) int ``time-millis``; TIMESTAMP(p) long ``timestamp-millis`` (p <= 3) or
  ``timestamp-micros`` (p <= 6); TIMESTAMP_LTZ(p) the same with ``local-timestamp-millis/micros``
  (values are epoch-based, as in Arrow's UTC timestamps); ARRAY/VECTOR array; MAP with a CHAR/VARCHAR
  key a ``map``; any other MAP or MULTISET (value INT) an ``array`` of ``{key, value}`` records
  carrying ``"logicalType": "map"``. TIMESTAMP/TIMESTAMP_LTZ with precision > 6, TIME with precision
  > 3 and VARIANT are rejected, as Paimon rejects them.
* Codec: ``file.compression`` zstd becomes Avro ``zstandard`` at ``file.compression.zstd-level``;
  other names go to Avro as they are (``null``, ``deflate``, ``snappy``, ``bzip2``, ``xz``). Blocks
  are cut at 64000 bytes (Avro Java's default sync interval). The header holds ``avro.schema`` (the
  compact JSON Avro Java prints) then ``avro.codec``.

Rows are encoded and decoded by fastavro (the format is row-at-a-time); everything around it is
column-wise: one ``to_pylist`` per column on the way out, typed Arrow arrays built per column on the
way in, decimals converted with numpy. Logical types are decoded from the raw integers (the file is
read through a copy of its header whose schema has the logical types removed), so timestamps keep
their full precision and no datetime objects are made.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from decimal import Context, Decimal
from itertools import chain
from typing import Any

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql import types as pt
from paimon_sql.errors import CorruptFileError, PaimonError, UnsupportedError, ValidationError
from paimon_sql.types import DataField, DataType, from_arrow_type

__all__ = [
    "RECORD_NAME", "RECORD_NAMESPACE", "avro_codec", "avro_columns", "avro_schema", "read_avro", "row_avro_schema",
    "write_avro",
]

RECORD_NAMESPACE = "org.apache.paimon.avro.generated"
RECORD_NAME = "record"
_TOP_ROW_NAME = RECORD_NAMESPACE + "." + RECORD_NAME

SYNC_INTERVAL = 64000
"""Avro Java's ``DataFileConstants.DEFAULT_SYNC_INTERVAL``: a block is flushed past this many bytes."""

_MAGIC = b"Obj\x01"
_SYNC_SIZE = 16
_SCHEMA_KEY = "avro.schema"
_CODEC_KEY = "avro.codec"

_CODECS = {
    "zstd": "zstandard",
    "zstandard": "zstandard",
    "none": "null",
    "null": "null",
    "": "null",
    "uncompressed": "null",
    "deflate": "deflate",
    "snappy": "snappy",
    "bzip2": "bzip2",
    "xz": "xz",
}

# ----------------------------------------------------------------------------------------------
# Container header (written and parsed here so the schema text is exactly Avro Java's)
# ----------------------------------------------------------------------------------------------


def _long(n: int) -> bytes:
    """Avro long: zig-zag varint."""
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z & ~0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _encode_header(meta: Sequence[tuple[str, bytes]], sync: bytes) -> bytes:
    out = bytearray(_MAGIC)
    if meta:
        out += _long(len(meta))
        for key, value in meta:
            kb = key.encode()
            out += _long(len(kb)) + kb + _long(len(value)) + value
    out += _long(0)
    out += sync
    return bytes(out)


class _HeaderReader:
    def __init__(self, data: bytes | memoryview) -> None:
        self.data = data
        self.pos = 0

    def long(self) -> int:
        shift = 0
        z = 0
        while True:
            if self.pos >= len(self.data):
                raise CorruptFileError("Avro data file header is truncated")
            b = self.data[self.pos]
            self.pos += 1
            z |= (b & 0x7F) << shift
            if not b & 0x80:
                break
            shift += 7
            if shift > 63:
                raise CorruptFileError("Avro data file header has a malformed varint")
        return (z >> 1) ^ -(z & 1)

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise CorruptFileError("Avro data file header is truncated")
        out = bytes(self.data[self.pos : self.pos + n])
        self.pos += n
        return out


def _parse_header(data: bytes | memoryview) -> tuple[list[tuple[str, bytes]], bytes, int]:
    """(metadata entries in file order, sync marker, offset of the first block)."""
    if bytes(data[:4]) != _MAGIC:
        raise CorruptFileError("Not an Avro data file (bad magic bytes)")
    r = _HeaderReader(data)
    r.pos = 4
    meta: list[tuple[str, bytes]] = []
    while True:
        count = r.long()
        if count == 0:
            break
        if count < 0:
            count = -count
            r.long()  # block size in bytes
        for _ in range(count):
            key = r.take(r.long())
            value = r.take(r.long())
            try:
                meta.append((key.decode(), value))
            except UnicodeDecodeError as e:
                raise CorruptFileError(f"Avro data file header has a non-UTF-8 key: {e}") from None
    sync = r.take(_SYNC_SIZE)
    return meta, sync, r.pos


def _schema_text(schema: Any) -> bytes:
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False).encode()


def _file_schema(meta: Sequence[tuple[str, bytes]]) -> Any:
    for key, value in meta:
        if key == _SCHEMA_KEY:
            try:
                return json.loads(value)
            except ValueError as e:
                raise CorruptFileError(f"Avro data file has an unreadable schema: {e}") from None
    raise CorruptFileError("Avro data file has no avro.schema in its header")


# ----------------------------------------------------------------------------------------------
# Paimon type -> Avro schema (AvroSchemaConverter.convertToSchema)
# ----------------------------------------------------------------------------------------------


def _split_name(full: str) -> tuple[str | None, str]:
    ns, dot, name = full.rpartition(".")
    return (ns if dot else None), name


def _nullable(schema: Any, nullable: bool) -> Any:
    return ["null", schema] if nullable else schema


def _is_string_key(t: DataType) -> bool:
    return t.is_family("CHARACTER_STRING")


_MULTISET_COUNT = pt.IntType()
"""The value type of a MULTISET: the (nullable) INT count of each element."""


def _record_schema(fields: Sequence[DataField], full_name: str, enclosing_ns: str | None) -> dict[str, Any]:
    ns, name = _split_name(full_name)
    rec: dict[str, Any] = {"type": "record", "name": name}
    if ns is not None and ns != enclosing_ns:
        rec["namespace"] = ns
    out_fields = []
    for f in fields:
        field: dict[str, Any] = {"name": f.name, "type": _avro_type(f.type, full_name + "_" + f.name, ns)}
        if f.type.nullable:
            field["default"] = None
        out_fields.append(field)
    rec["fields"] = out_fields
    return rec


def _avro_type(t: DataType, row_name: str, ns: str | None) -> Any:
    """The Avro schema of a Paimon type; ``row_name`` is the full name a ROW here would get and
    ``ns`` the namespace of the record being written (for Avro Java's relative names)."""
    return _nullable(t.accept(_AvroSchema(row_name, ns)), t.nullable)


class _AvroSchema(pt.TypeVisitor[Any]):
    """The Avro schema of the non-null values of a Paimon type (``AvroSchemaConverter``)."""

    def __init__(self, row_name: str, ns: str | None) -> None:
        self.row_name = row_name
        self.ns = ns

    def visit_boolean(self, t: pt.BooleanType) -> Any:
        return "boolean"

    def visit_tinyint(self, t: pt.TinyIntType) -> Any:
        return "int"

    def visit_smallint(self, t: pt.SmallIntType) -> Any:
        return "int"

    def visit_int(self, t: pt.IntType) -> Any:
        return "int"

    def visit_bigint(self, t: pt.BigIntType) -> Any:
        return "long"

    def visit_float(self, t: pt.FloatType) -> Any:
        return "float"

    def visit_double(self, t: pt.DoubleType) -> Any:
        return "double"

    def visit_char(self, t: pt.CharType) -> Any:
        return "string"

    def visit_varchar(self, t: pt.VarCharType) -> Any:
        return "string"

    def visit_binary(self, t: pt.BinaryType) -> Any:
        return "bytes"

    def visit_varbinary(self, t: pt.VarBinaryType) -> Any:
        return "bytes"

    def visit_blob(self, t: pt.BlobType) -> Any:
        return "bytes"

    def visit_decimal(self, t: pt.DecimalType) -> Any:
        return {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}

    def visit_date(self, t: pt.DateType) -> Any:
        return {"type": "int", "logicalType": "date"}

    def visit_time(self, t: pt.TimeType) -> Any:
        if t.precision > 3:
            raise UnsupportedError(
                f"Avro data files do not support {t.to_string()}: TIME precision must be at most 3"
            )
        return {"type": "int", "logicalType": "time-millis"}

    def _timestamp(self, t: DataType, precision: int, prefix: str) -> Any:
        if precision > 6:
            raise UnsupportedError(
                f"Avro data files do not support {t.to_string()}: timestamp precision must be at most 6 "
                f"(Paimon rejects TIMESTAMP(7..9) with file.format avro; use parquet or orc)"
            )
        unit = "millis" if precision <= 3 else "micros"
        return {"type": "long", "logicalType": f"{prefix}timestamp-{unit}"}

    def visit_timestamp(self, t: pt.TimestampType) -> Any:
        return self._timestamp(t, t.precision, "")

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> Any:
        return self._timestamp(t, t.precision, "local-")

    def visit_variant(self, t: pt.VariantType) -> Any:
        raise UnsupportedError(f"Avro data files do not support the type {t.to_string()}")

    def visit_row(self, t: pt.RowType) -> Any:
        return _record_schema(t.fields, self.row_name, self.ns)

    def _map(self, key: DataType, value: DataType) -> Any:
        row_name, ns = self.row_name, self.ns
        if _is_string_key(key):
            return {"type": "map", "values": _avro_type(value, row_name, ns)}
        entry_ns, entry_name = _split_name(row_name)
        entry: dict[str, Any] = {"type": "record", "name": entry_name}
        if entry_ns is not None and entry_ns != ns:
            entry["namespace"] = entry_ns
        value_field: dict[str, Any] = {
            "name": "value",
            "type": _avro_type(value, row_name + "_value", entry_ns),
        }
        if value.nullable:
            value_field["default"] = None
        entry["fields"] = [
            {"name": "key", "type": _avro_type(key, row_name + "_key", entry_ns)},
            value_field,
        ]
        return {"type": "array", "items": entry, "logicalType": "map"}

    def visit_map(self, t: pt.MapType) -> Any:
        return self._map(t.key, t.value)

    def visit_multiset(self, t: pt.MultisetType) -> Any:
        return self._map(t.element, _MULTISET_COUNT)

    def visit_array(self, t: pt.ArrayType) -> Any:
        return {"type": "array", "items": _avro_type(t.element, self.row_name, self.ns)}

    def visit_vector(self, t: pt.VectorType) -> Any:
        return {"type": "array", "items": _avro_type(t.element, self.row_name, self.ns)}


def _paimon_fields(schema: pa.Schema) -> list[DataField]:
    try:
        return [DataField(i, f.name, from_arrow_type(f.type, f.nullable)) for i, f in enumerate(schema)]
    except PaimonError as e:
        raise UnsupportedError(f"Cannot write an avro data file for Arrow schema {schema}: {e}") from e


def avro_schema(schema: pa.Schema) -> dict[str, Any]:
    """The Avro schema Paimon writes for a data file of this Arrow schema (as a JSON object)."""
    return _record_schema(_paimon_fields(schema), _TOP_ROW_NAME, None)


def row_avro_schema(fields: Sequence[DataField]) -> dict[str, Any]:
    """The Avro schema Paimon writes for records of these fields (data and metadata files alike:
    Paimon's ``AvroSchemaConverter`` names the top record ``org.apache.paimon.avro.generated.record``
    and a nested ROW after its path, e.g. ``record__FILE__KEY_STATS``)."""
    return _record_schema(fields, _TOP_ROW_NAME, None)


# ----------------------------------------------------------------------------------------------
# Arrow -> Avro datums (column-wise, then zipped into records)
# ----------------------------------------------------------------------------------------------


def _decimal_to_unscaled_bytes(arr: pa.Array) -> list[Any]:
    """Minimal big-endian two's complement of each unscaled value (Java ``BigInteger.toByteArray``)."""
    t = arr.type
    if not pa.types.is_decimal128(t):
        arr = arr.cast(pa.decimal128(t.precision, t.scale))
    n = len(arr)
    if n == 0:
        return []
    le = np.frombuffer(arr.buffers()[1], dtype=np.uint8, count=16 * n, offset=16 * arr.offset).reshape(n, 16)
    be = le[:, ::-1]
    neg = be[:, 0] >= 0x80
    sign = np.where(neg, np.uint8(0xFF), np.uint8(0))
    is_sign = be == sign[:, None]
    all_sign = is_sign.all(axis=1)
    run = np.where(all_sign, 16, np.argmin(is_sign, axis=1))
    nxt = be[np.arange(n), np.minimum(run, 15)]
    drop = np.where(all_sign, 15, np.where((nxt >= 0x80) == neg, run, run - 1))
    keep = np.arange(16)[None, :] >= drop[:, None]
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(16 - drop, out=offsets[1:])
    body = np.ascontiguousarray(be[keep])
    validity = arr.is_valid().buffers()[1] if arr.null_count else None
    out = pa.Array.from_buffers(
        pa.binary(), n, [validity, pa.py_buffer(offsets), pa.py_buffer(body)], null_count=arr.null_count
    )
    return out.to_pylist()


def _not_null_error(path: str) -> ValidationError:
    return ValidationError(f"Field {path!r} expected not null but found null value (avro data file)")


class _Branch(pt.DefaultTypeVisitor[str]):
    """The name fastavro's tuple notation uses for the non-null branch of ``["null", T]``."""

    def __init__(self, row_name: str) -> None:
        self.row_name = row_name

    def default(self, t: DataType) -> str:
        return "int"  # TINYINT SMALLINT INT DATE TIME

    def visit_row(self, t: pt.RowType) -> str:
        return self.row_name

    def visit_array(self, t: pt.ArrayType) -> str:
        return "array"

    def visit_vector(self, t: pt.VectorType) -> str:
        return "array"

    def visit_map(self, t: pt.MapType) -> str:
        return "map" if _is_string_key(t.key) else "array"

    def visit_multiset(self, t: pt.MultisetType) -> str:
        return "map" if _is_string_key(t.element) else "array"

    def visit_boolean(self, t: pt.BooleanType) -> str:
        return "boolean"

    def visit_bigint(self, t: pt.BigIntType) -> str:
        return "long"

    def visit_timestamp(self, t: pt.TimestampType) -> str:
        return "long"

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> str:
        return "long"

    def visit_float(self, t: pt.FloatType) -> str:
        return "float"

    def visit_double(self, t: pt.DoubleType) -> str:
        return "double"

    def visit_char(self, t: pt.CharType) -> str:
        return "string"

    def visit_varchar(self, t: pt.VarCharType) -> str:
        return "string"

    def visit_binary(self, t: pt.BinaryType) -> str:
        return "bytes"

    def visit_varbinary(self, t: pt.VarBinaryType) -> str:
        return "bytes"

    def visit_blob(self, t: pt.BlobType) -> str:
        return "bytes"

    def visit_decimal(self, t: pt.DecimalType) -> str:
        return "bytes"


def _datums(
    arr: pa.Array, t: DataType, row_name: str, path: str, used: np.ndarray | None = None
) -> list[Any]:
    """Avro datums (as fastavro takes them, logical types as raw numbers) of one Arrow array whose
    Paimon type is ``t``. Non-null values of a nullable type are given in fastavro's tuple notation
    ``(branch name, value)``, which spares fastavro validating each value to pick the union branch.
    ``used`` marks the positions that end up in the file (None: all); the others lie under a null
    parent and may hold anything."""
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if not t.nullable and arr.null_count:
        nulls = ~_valid_np(arr)
        if used is None or bool((nulls & used).any()):
            raise _not_null_error(path)
    values = _plain_datums(arr, t, row_name, path, used)
    if not t.nullable:
        return values
    branch = t.accept(_Branch(row_name))
    return [None if v is None else (branch, v) for v in values]


def _plain_datums(arr: pa.Array, t: DataType, row_name: str, path: str, used: np.ndarray | None) -> list[Any]:
    return t.accept(_PlainDatums(arr, row_name, path, used))


class _PlainDatums(pt.DefaultTypeVisitor[list[Any]]):
    """The datums of ``arr`` (nulls as None) as the visited Paimon type."""

    def __init__(self, arr: pa.Array, row_name: str, path: str, used: np.ndarray | None) -> None:
        self.arr = arr
        self.row_name = row_name
        self.path = path
        self.used = used

    def default(self, t: DataType) -> list[Any]:
        return self.arr.to_pylist()

    def visit_decimal(self, t: pt.DecimalType) -> list[Any]:
        return _decimal_to_unscaled_bytes(self.arr)

    def _timestamp(self, t: DataType, precision: int) -> list[Any]:
        arr = self.arr
        if precision > 6:
            raise UnsupportedError(f"Avro data files do not support {t.to_string()} (column {self.path!r})")
        unit = "ms" if precision <= 3 else "us"
        if arr.type.unit != unit:
            arr = arr.cast(pa.timestamp(unit, arr.type.tz))
        return arr.cast(pa.int64()).to_pylist()

    def visit_timestamp(self, t: pt.TimestampType) -> list[Any]:
        return self._timestamp(t, t.precision)

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> list[Any]:
        return self._timestamp(t, t.precision)

    def visit_date(self, t: pt.DateType) -> list[Any]:
        arr = self.arr
        if pa.types.is_date64(arr.type):
            arr = arr.cast(pa.date32())
        return arr.cast(pa.int32()).to_pylist()

    def visit_time(self, t: pt.TimeType) -> list[Any]:
        arr = self.arr
        if arr.type != pa.time32("ms"):
            arr = arr.cast(pa.time32("ms"))
        return arr.cast(pa.int32()).to_pylist()

    def visit_row(self, t: pt.RowType) -> list[Any]:
        return _struct_datums(self.arr, t, self.row_name, self.path, self.used)

    def visit_array(self, t: pt.ArrayType) -> list[Any]:
        return _list_datums(self.arr, t.element, self.row_name, self.path, self.used)

    def visit_vector(self, t: pt.VectorType) -> list[Any]:
        return _list_datums(self.arr, t.element, self.row_name, self.path, self.used)

    def visit_map(self, t: pt.MapType) -> list[Any]:
        return _map_datums(self.arr, t.key, t.value, self.row_name, self.path, self.used)

    def visit_multiset(self, t: pt.MultisetType) -> list[Any]:
        return _map_datums(self.arr, t.element, _MULTISET_COUNT, self.row_name, self.path, self.used)


def _valid(arr: pa.Array) -> list[bool] | None:
    return arr.is_valid().to_pylist() if arr.null_count else None


def _valid_np(arr: pa.Array) -> np.ndarray:
    return np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _child_used(
    arr: pa.Array, used: np.ndarray | None, lengths: np.ndarray | None = None
) -> np.ndarray | None:
    """Which child positions end up in the file: those of used, non-null parents."""
    if used is None and not arr.null_count:
        return None
    mask = _valid_np(arr)
    if used is not None:
        mask &= used
    return mask if lengths is None else np.repeat(mask, lengths)


def _struct_datums(arr: pa.Array, t: pt.RowType, row_name: str, path: str, used: np.ndarray | None) -> list[Any]:
    assert isinstance(arr, pa.StructArray)
    names = [f.name for f in t.fields]
    child_used = _child_used(arr, used)
    children = [
        _datums(arr.field(i), f.type, row_name + "_" + f.name, f"{path}.{f.name}", child_used)
        for i, f in enumerate(t.fields)
    ]
    rows: list[Any] = (
        [dict(zip(names, vs)) for vs in zip(*children)] if children else [{} for _ in range(len(arr))]
    )
    valid = _valid(arr)
    return rows if valid is None else [r if ok else None for r, ok in zip(rows, valid)]


def _offsets_and_values(
    arr: pa.Array, used: np.ndarray | None
) -> tuple[list[int], pa.Array, np.ndarray | None]:
    """Offsets (rebased to 0), the matching slice of the child values of a list/map array, and
    which of those child values are used."""
    if pa.types.is_fixed_size_list(arr.type) or pa.types.is_list_view(arr.type):
        arr = arr.cast(pa.list_(arr.type.value_field))
    elif pa.types.is_large_list_view(arr.type):
        arr = arr.cast(pa.large_list(arr.type.value_field))
    offsets = np.asarray(arr.offsets)
    start, end = int(offsets[0]), int(offsets[-1])
    values = arr.values.slice(start, end - start)
    return (offsets - start).tolist(), values, _child_used(arr, used, np.diff(offsets))


def _list_datums(
    arr: pa.Array, element: DataType, row_name: str, path: str, used: np.ndarray | None
) -> list[Any]:
    offsets, values, child_used = _offsets_and_values(arr, used)
    flat = _datums(values, element, row_name, path + "[]", child_used)
    out = [flat[a:b] for a, b in zip(offsets[:-1], offsets[1:])]
    valid = _valid(arr)
    return out if valid is None else [v if ok else None for v, ok in zip(out, valid)]


def _map_datums(
    arr: pa.Array, key_type: DataType, value_type: DataType, row_name: str, path: str, used: np.ndarray | None
) -> list[Any]:
    offsets, entries, child_used = _offsets_and_values(arr, used)
    assert isinstance(entries, pa.StructArray)
    string_key = _is_string_key(key_type)
    keys = _datums(entries.field(0), key_type.copy(False), row_name + "_key", path + ".key", child_used)
    vrow = row_name if string_key else row_name + "_value"
    vals = _datums(entries.field(1), value_type, vrow, path + ".value", child_used)
    out: list[Any]
    if string_key:
        out = [dict(zip(keys[a:b], vals[a:b])) for a, b in zip(offsets[:-1], offsets[1:])]
    else:
        out = [
            [{"key": k, "value": v} for k, v in zip(keys[a:b], vals[a:b])]
            for a, b in zip(offsets[:-1], offsets[1:])
        ]
    valid = _valid(arr)
    return out if valid is None else [v if ok else None for v, ok in zip(out, valid)]


def avro_codec(compression: str, what: str = "avro data files") -> str:
    """The Avro codec of a Paimon compression name (``file.compression``, ``manifest.compression``);
    an UnsupportedError naming ``what`` for a name Avro does not know."""
    codec = _CODECS.get(compression.strip().lower())
    if codec is None:
        raise UnsupportedError(
            f"Compression {compression!r} is not available for {what}: Avro knows "
            f"zstd (zstandard), snappy, deflate, bzip2, xz and none"
        )
    return codec



def write_avro(table: pa.Table, compression: str = "zstd", zstd_level: int = 1) -> bytes:
    """Encodes ``table`` as an Avro data file as Paimon writes it and returns the file's bytes.

    The Paimon type of each column is recovered from its Arrow type (``from_arrow_type``); the
    field ids in the Arrow field metadata are not stored, as Paimon stores none in Avro files."""
    fields = _paimon_fields(table.schema)
    schema = _record_schema(fields, _TOP_ROW_NAME, None)
    codec = avro_codec(compression)
    names = [f.name for f in fields]
    columns: list[list[Any]] = []
    for i, f in enumerate(fields):
        col = table.column(i)
        values: list[Any] = []
        for chunk in col.chunks:
            values.extend(_datums(chunk, f.type, _TOP_ROW_NAME + "_" + f.name, f.name))
        columns.append(values)
    records = (
        (dict(zip(names, row)) for row in zip(*columns)) if columns else ({} for _ in range(table.num_rows))
    )
    sync = os.urandom(_SYNC_SIZE)
    buf = io.BytesIO()
    try:
        fastavro.writer(
            buf,
            schema,
            records,
            codec=codec,
            sync_interval=SYNC_INTERVAL,
            sync_marker=sync,
            codec_compression_level=zstd_level if codec == "zstandard" else None,
        )
    except PaimonError:
        raise
    except (ValueError, TypeError, AttributeError, KeyError, OverflowError) as e:
        if "codec" in str(e) or isinstance(e, KeyError):
            raise UnsupportedError(
                f"Avro codec {codec!r} (compression {compression!r}) is not usable here: {e}"
            ) from e
        raise ValidationError(f"Cannot encode rows as an avro data file: {e}") from e
    data = buf.getbuffer()
    _, _, end = _parse_header(data)
    header = _encode_header([(_SCHEMA_KEY, _schema_text(schema)), (_CODEC_KEY, codec.encode())], sync)
    return header + bytes(data[end:])


# ----------------------------------------------------------------------------------------------
# Avro -> Arrow
# ----------------------------------------------------------------------------------------------

_PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_NAMED = frozenset({"record", "error", "enum", "fixed"})


def _expand(schema: Any, ns: str | None, names: dict[str, Any], stack: set[str]) -> Any:
    """The schema with named-type references replaced by their definitions."""
    if isinstance(schema, str):
        if schema in _PRIMITIVES:
            return schema
        full = schema if "." in schema or ns is None else ns + "." + schema
        for candidate in (full, schema):
            if candidate in names:
                if candidate in stack:
                    raise UnsupportedError(f"Recursive avro type {candidate!r} has no Arrow mapping")
                return names[candidate]
        raise CorruptFileError(f"Avro schema references an unknown type {schema!r}")
    if isinstance(schema, list):
        return [_expand(s, ns, names, stack) for s in schema]
    if not isinstance(schema, dict):
        raise CorruptFileError(f"Malformed avro schema node {schema!r}")
    t = schema.get("type")
    if isinstance(t, (dict, list)):
        return _expand(t, ns, names, stack)
    if t in _NAMED:
        name = str(schema.get("name", ""))
        space = schema.get("namespace", ns) if "." not in name else name.rpartition(".")[0]
        full = name if "." in name or not space else f"{space}.{name}"
        out = dict(schema)
        names[full] = out
        if t in ("record", "error"):
            stack.add(full)
            out["fields"] = [
                {**f, "type": _expand(f["type"], space or None, names, stack)}
                for f in schema.get("fields", [])
            ]
            stack.discard(full)
        return out
    if t == "array":
        return {**schema, "items": _expand(schema["items"], ns, names, stack)}
    if t == "map":
        return {**schema, "values": _expand(schema["values"], ns, names, stack)}
    return schema


def _strip_logical(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strip_logical(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    return {k: _strip_logical(v) for k, v in schema.items() if k != "logicalType"}


def _unwrap(node: Any) -> tuple[Any, bool]:
    """(the non-null branch, nullable) of a ``["null", T]`` union, or (node, False)."""
    if isinstance(node, list):
        branches = [b for b in node if b != "null"]
        if len(branches) != 1:
            raise UnsupportedError(
                f"Avro union {json.dumps(node)[:200]} has no Paimon type (only [null, T] has)"
            )
        return branches[0], len(branches) < len(node)
    return node, False


def _kind(node: Any) -> tuple[str, str | None]:
    if isinstance(node, str):
        return node, None
    t = node.get("type")
    logical = node.get("logicalType")
    return str(t), (str(logical) if logical is not None else None)


_TS_LOGICAL = {
    "timestamp-millis": ("ms", None),
    "timestamp-micros": ("us", None),
    "timestamp-nanos": ("ns", None),
    "local-timestamp-millis": ("ms", "UTC"),
    "local-timestamp-micros": ("us", "UTC"),
    "local-timestamp-nanos": ("ns", "UTC"),
}

_SMALL_INTS = (pa.int8(), pa.int16(), pa.int32())

_DEC_CONTEXT = Context(prec=100)


def _decimal_from_unscaled_bytes(values: list[Any], precision: int, scale: int) -> pa.Array:
    binary = pa.array(values, pa.binary())
    n = len(binary)
    offsets = np.frombuffer(binary.buffers()[1], dtype=np.int32, count=n + 1)
    lens = np.diff(offsets)
    if precision > 38 or (n and int(lens.max()) > 16):
        dec_type = pa.decimal128(precision, scale) if precision <= 38 else pa.decimal256(precision, scale)
        return pa.array(
            [
                None
                if v is None
                else Decimal(int.from_bytes(v, "big", signed=True)).scaleb(-scale, _DEC_CONTEXT)
                for v in values
            ],
            dec_type,
        )
    out = np.zeros((n, 16), dtype=np.uint8)
    total = int(offsets[-1])
    if total:
        data = np.frombuffer(binary.buffers()[2], dtype=np.uint8, count=total)
        starts = offsets[:-1]
        nonempty = lens > 0
        neg = np.zeros(n, dtype=bool)
        neg[nonempty] = data[starts[nonempty]] >= 0x80
        out[neg] = 0xFF
        rows = np.repeat(np.arange(n), lens)
        j = np.arange(total) - starts[rows]
        out[rows, lens[rows] - 1 - j] = data
    validity = binary.is_valid().buffers()[1] if binary.null_count else None
    return pa.Array.from_buffers(
        pa.decimal128(precision, scale), n, [validity, pa.py_buffer(out)], null_count=binary.null_count
    )


def _mask(values: list[Any]) -> pa.Array | None:
    if any(v is None for v in values):
        return pa.array([v is None for v in values], pa.bool_())
    return None


def _offsets(values: list[Any]) -> pa.Array:
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum([0 if v is None else len(v) for v in values], out=offsets[1:])
    return pa.array(offsets, pa.int32())


def _is_map_entry(node: Any) -> bool:
    entry, _ = _unwrap(node)
    if not isinstance(entry, dict) or entry.get("type") not in ("record", "error"):
        return False
    return [f.get("name") for f in entry.get("fields", [])] == ["key", "value"]


def _to_arrow(values: list[Any], node: Any, target: pa.DataType | None) -> tuple[pa.Array, bool]:
    """A typed Arrow array of decoded (logical-type-free) datums of the Avro type ``node``, cast to
    ``target`` when given; also whether the Avro type is nullable."""
    inner, nullable = _unwrap(node)
    arr = _build(values, inner, target)
    if target is not None and not arr.type.equals(target):
        if pa.types.is_timestamp(arr.type) and pa.types.is_timestamp(target):
            arr = pc.cast(arr, target, safe=False)
        else:
            arr = pc.cast(arr, target)
    return arr, nullable


def _build(values: list[Any], node: Any, target: pa.DataType | None) -> pa.Array:
    t, logical = _kind(node)
    if t == "boolean":
        return pa.array(values, pa.bool_())
    if t == "int":
        if logical == "date":
            return pa.array(values, pa.int32()).view(pa.date32())
        if logical == "time-millis":
            return pa.array(values, pa.int32()).view(pa.time32("ms"))
        if target is not None and any(target.equals(s) for s in _SMALL_INTS):
            return pa.array(values, target)
        return pa.array(values, pa.int32())
    if t == "long":
        if logical in _TS_LOGICAL:
            unit, tz = _TS_LOGICAL[logical]
            return pa.array(values, pa.int64()).view(pa.timestamp(unit, tz))
        if logical == "time-micros":
            return pa.array(values, pa.int64()).view(pa.time64("us"))
        return pa.array(values, pa.int64())
    if t == "float":
        return pa.array(values, pa.float32())
    if t == "double":
        return pa.array(values, pa.float64())
    if t in ("string", "enum"):
        return pa.array(values, pa.string())
    if t in ("bytes", "fixed"):
        if logical == "decimal":
            return _decimal_from_unscaled_bytes(values, int(node["precision"]), int(node.get("scale", 0)))
        return pa.array(values, pa.binary())
    if t == "array":
        items = node["items"]
        if _is_map_entry(items) and (logical == "map" or (target is not None and pa.types.is_map(target))):
            return _build_entry_map(values, _unwrap(items)[0], target)
        return _build_list(values, items, target)
    if t == "map":
        return _build_string_map(values, node["values"], target)
    if t in ("record", "error"):
        return _build_struct(values, node, target)
    if t == "null":
        return pa.nulls(len(values), target if target is not None else pa.null())
    raise UnsupportedError(f"Avro type {t!r} has no Paimon type")


def _build_list(values: list[Any], items: Any, target: pa.DataType | None) -> pa.Array:
    value_field = None
    if target is not None and (
        pa.types.is_list(target) or pa.types.is_large_list(target) or pa.types.is_fixed_size_list(target)
    ):
        value_field = target.value_field
    child_target = value_field.type if value_field is not None else None
    mask = _mask(values)
    if target is not None and pa.types.is_fixed_size_list(target):  # VECTOR: a null takes size slots
        size = target.list_size
        if any(v is not None and len(v) != size for v in values):
            raise CorruptFileError(f"Avro array does not have the {size} elements of {target}")
        pad = [None] * size
        child, _ = _to_arrow(
            list(chain.from_iterable(pad if v is None else v for v in values)), items, child_target
        )
        if mask is not None and value_field is not None and not value_field.nullable:
            child = _fill_under_nulls(child, pa.array(np.repeat(np.asarray(mask), size)))
        return pa.FixedSizeListArray.from_arrays(child, type=target, mask=mask)
    child, nullable = _to_arrow(
        list(chain.from_iterable(v for v in values if v is not None)), items, child_target
    )
    field = (
        value_field.with_type(child.type)
        if value_field is not None
        else pa.field("element", child.type, nullable)
    )
    return pa.ListArray.from_arrays(_offsets(values), child, type=pa.list_(field), mask=mask)


def _build_string_map(values: list[Any], value_node: Any, target: pa.DataType | None) -> pa.Array:
    key_field = value_field = None
    if target is not None and pa.types.is_map(target):
        key_field, value_field = target.key_field, target.item_field
    present = [v for v in values if v is not None]
    keys, _ = _to_arrow(
        list(chain.from_iterable(present)), "string", key_field.type if key_field is not None else None
    )
    items, nullable = _to_arrow(
        list(chain.from_iterable(v.values() for v in present)),
        value_node,
        value_field.type if value_field is not None else None,
    )
    return _map_array(values, keys, items, nullable, key_field, value_field)


def _build_entry_map(values: list[Any], entry: Any, target: pa.DataType | None) -> pa.Array:
    key_field = value_field = None
    if target is not None and pa.types.is_map(target):
        key_field, value_field = target.key_field, target.item_field
    fields = entry["fields"]
    flat = list(chain.from_iterable(v for v in values if v is not None))
    keys, _ = _to_arrow([e["key"] for e in flat], fields[0]["type"], key_field.type if key_field else None)
    items, nullable = _to_arrow(
        [e["value"] for e in flat], fields[1]["type"], value_field.type if value_field is not None else None
    )
    return _map_array(values, keys, items, nullable, key_field, value_field)


def _map_array(
    values: list[Any],
    keys: pa.Array,
    items: pa.Array,
    items_nullable: bool,
    key_field: pa.Field | None,
    value_field: pa.Field | None,
) -> pa.Array:
    kf = key_field.with_type(keys.type) if key_field is not None else pa.field("key", keys.type, False)
    vf = (
        value_field.with_type(items.type)
        if value_field is not None
        else pa.field("value", items.type, items_nullable)
    )
    return pa.MapArray.from_arrays(_offsets(values), keys, items, type=pa.map_(kf, vf), mask=_mask(values))


def _build_struct(values: list[Any], node: Any, target: pa.DataType | None) -> pa.Array:
    file_fields = {f["name"]: f for f in node.get("fields", [])}
    mask = _mask(values)
    present = values if mask is None else [v if v is not None else {} for v in values]
    arrays: list[pa.Array] = []
    out_fields: list[pa.Field] = []
    if target is not None and pa.types.is_struct(target):
        for i in range(target.num_fields):
            tf = target.field(i)
            ff = file_fields.get(tf.name)
            if ff is None:  # a field the file lacks reads as null (Paimon's RowReader)
                arrays.append(pa.nulls(len(values), tf.type))
            else:
                arr, _ = _to_arrow([v.get(tf.name) for v in present], ff["type"], tf.type)
                arrays.append(arr)
            out_fields.append(tf)
    else:
        for name, ff in file_fields.items():
            arr, nullable = _to_arrow([v.get(name) for v in present], ff["type"], None)
            arrays.append(arr)
            out_fields.append(pa.field(name, arr.type, nullable))
    if not out_fields:
        raise UnsupportedError("An avro record without fields has no Arrow type")
    if mask is not None:
        arrays = [_fill_under_nulls(a, mask) if not f.nullable else a for a, f in zip(arrays, out_fields)]
    return pa.StructArray.from_arrays(arrays, fields=out_fields, mask=mask)


def _zero(t: pa.DataType) -> pa.Array:
    """A one-element array holding the zero value of a type."""
    if pa.types.is_struct(t):
        return pa.StructArray.from_arrays(
            [_zero(t.field(i).type) for i in range(t.num_fields)], fields=list(t)
        )
    if pa.types.is_fixed_size_list(t):
        return pa.FixedSizeListArray.from_arrays(
            pa.concat_arrays([_zero(t.value_type)] * t.list_size), type=t
        )
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_map(t):
        return pa.array([[]], t)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return pa.array([""], t)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return pa.array([b""], t)
    if pa.types.is_fixed_size_binary(t):
        return pa.array([bytes(t.byte_width)], t)
    if pa.types.is_null(t):
        return pa.nulls(1)
    return pa.Array.from_buffers(t, 1, [None, pa.py_buffer(bytes(max(t.bit_width // 8, 1)))])


def _fill_under_nulls(arr: pa.Array, parent_null: pa.Array) -> pa.Array:
    """``arr`` (a NOT NULL field of a struct) with the nulls under null struct rows replaced by the
    type's zero: Arrow refuses nulls in a non-nullable field when casting."""
    if not arr.null_count:
        return arr
    n = len(arr)
    idx = np.arange(n, dtype=np.int64)
    idx[np.asarray(parent_null.to_numpy(zero_copy_only=False), dtype=bool) & ~_valid_np(arr)] = n
    return pa.concat_arrays([arr, _zero(arr.type)]).take(pa.array(idx))


def _top_record(schema: Any) -> dict[str, Any]:
    top, _ = _unwrap(schema)
    if not isinstance(top, dict) or top.get("type") not in ("record", "error"):
        raise CorruptFileError("Avro data file schema is not a record")
    return top


def avro_columns(data: bytes | memoryview) -> list[str]:
    """Top-level field names of an Avro data file (only its header is needed)."""
    meta, _, _ = _parse_header(data)
    return [str(f["name"]) for f in _top_record(_file_schema(meta)).get("fields", [])]


def read_avro(
    data: bytes,
    columns: Sequence[str] | None = None,
    arrow_types: Mapping[str, pa.DataType] | None = None,
) -> pa.Table:
    """Reads ``columns`` (by name; all when None) of an Avro data file as an Arrow table.

    Each column gets the Arrow type its Avro type maps to (the inverse of what ``write_avro``
    writes: ``int`` INT, ``date`` DATE, ``timestamp-micros`` timestamp[us], ``local-timestamp-*``
    timestamp with tz UTC, ``decimal`` decimal128, non-string-keyed maps as maps...), or the type
    given for it in ``arrow_types``; nullability follows the Avro ``["null", T]`` unions."""
    meta, sync, end = _parse_header(data)
    schema = _file_schema(meta)
    names: dict[str, Any] = {}
    try:
        expanded = _expand(schema, None, names, set())
    except (KeyError, TypeError) as e:
        raise CorruptFileError(f"Malformed avro schema: {e}") from None
    top = _top_record(expanded)
    file_fields = {str(f["name"]): f for f in top.get("fields", [])}
    wanted = list(columns) if columns is not None else list(file_fields)
    for name in wanted:
        if name not in file_fields:
            raise CorruptFileError(
                f"Column {name!r} is not in the avro data file (its columns: {list(file_fields)})"
            )
    if not wanted:  # a table without columns has no rows either: nothing to decode
        return pa.table({})

    raw_schema = _strip_logical(schema)
    raw_meta = [(k, _schema_text(raw_schema) if k == _SCHEMA_KEY else v) for k, v in meta]
    stream = io.BytesIO(_encode_header(raw_meta, sync) + memoryview(data)[end:])
    try:
        records: list[Any] = list(fastavro.reader(stream))
    except PaimonError:
        raise
    except Exception as e:  # fastavro raises assorted errors on damaged input
        raise CorruptFileError(f"Cannot decode avro data file: {type(e).__name__}: {e}") from e
    if any(r is None for r in records):
        raise CorruptFileError("Avro data file holds a null row")

    targets = arrow_types or {}
    arrays: list[pa.Array] = []
    fields: list[pa.Field] = []
    for name in wanted:
        target = targets.get(name)
        arr, nullable = _to_arrow([r[name] for r in records], file_fields[name]["type"], target)
        arrays.append(arr)
        fields.append(pa.field(name, arr.type, nullable))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))
