"""Data files (parquet, orc, avro) as Arrow tables. No table knowledge: callers say which columns."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as paorc
import pyarrow.parquet as pq

from paimon_sql.errors import CorruptFileError, NotFoundError, UnsupportedError, ValidationError
from paimon_sql.format.avro_data import avro_columns, read_avro, write_avro
from paimon_sql.fs.file_io import FileIO

FORMATS = ("parquet", "orc", "avro")


def file_format_of(file_name: str, default: str) -> str:
    """The format of a data file by its name (``data-...-0.orc``, ``...parquet.zst``), else ``default``."""
    name = file_name.lower()
    for fmt in FORMATS:
        if name.endswith("." + fmt) or f".{fmt}." in name:
            return fmt
    return default


def read_file(
    file_io: FileIO, path: str, file_format: str, columns: Sequence[str] | None = None
) -> pa.Table:
    """Reads ``columns`` (by name; all when None) of a data file."""
    fmt = file_format.lower()
    try:
        if fmt == "parquet":
            with file_io.open_input_file(path) as f:
                return pq.read_table(f, columns=list(columns) if columns is not None else None,
                                     use_threads=False)
        if fmt == "orc":
            with file_io.open_input_file(path) as f:
                from paimon_sql.format.orc_timestamps import correct_timestamps

                table = paorc.ORCFile(f).read(columns=list(columns) if columns is not None else None)
                return correct_timestamps(table, f, path)  # pyarrow's ORC reader: 1 s off, see there
        if fmt == "avro":
            try:
                return _read_avro(file_io.read_bytes(path), columns)
            except CorruptFileError as e:
                raise CorruptFileError(f"Corrupt data file {path}: {e}") from e
    except NotFoundError:
        raise
    except (pa.ArrowInvalid, OSError, ValueError) as e:
        if not file_io.exists(path):
            raise NotFoundError(f"Data file {path} does not exist") from e
        raise CorruptFileError(f"Corrupt data file {path}: {e}") from e
    raise UnsupportedError(f"Data file format {file_format!r} is not supported ({path})")


def _read_avro(data: bytes, columns: Sequence[str] | None) -> pa.Table:
    return read_avro(data, columns, _AVRO_SYSTEM_TYPES)


# Avro has no int8: read Paimon's system columns back with the Arrow types the other formats give.
_AVRO_SYSTEM_TYPES = {"_SEQUENCE_NUMBER": pa.int64(), "_VALUE_KIND": pa.int8()}


def file_columns(file_io: FileIO, path: str, file_format: str) -> list[str]:
    fmt = file_format.lower()
    if fmt == "parquet":
        with file_io.open_input_file(path) as f:
            return list(pq.ParquetFile(f).schema_arrow.names)
    if fmt == "orc":
        with file_io.open_input_file(path) as f:
            return list(paorc.ORCFile(f).schema.names)
    if fmt == "avro":
        with file_io.open_input_file(path) as f:
            head = f.read(_AVRO_HEADER_PROBE)
        try:
            return avro_columns(head)
        except CorruptFileError:
            return avro_columns(file_io.read_bytes(path))  # a header longer than the probe
    raise UnsupportedError(f"Data file format {file_format!r} is not supported ({path})")


_AVRO_HEADER_PROBE = 1 << 16


DICTIONARY_SAMPLE_ROWS = 1 << 14
DICTIONARY_MAX_DISTINCT = 0.9  # share of distinct values in the sample above which a column is plain


def dictionary_columns(table: pa.Table) -> bool | list[str]:
    """The parquet columns worth dictionary encoding: those that repeat values in a sample of the
    first rows. A column of (nearly) distinct values, such as a key, a sequence number or a
    measurement, only costs time in a dictionary before the writer falls back to plain encoding,
    and comes out larger. Tables with nested columns keep dictionaries everywhere (the option
    names leaf columns)."""
    if table.num_rows == 0 or any(pa.types.is_nested(f.type) for f in table.schema):
        return True
    sample = table.slice(0, DICTIONARY_SAMPLE_ROWS)
    limit = DICTIONARY_MAX_DISTINCT * sample.num_rows
    return [name for name, col in zip(table.column_names, sample.columns)
            if pc.count_distinct(col, mode="all").as_py() <= limit]


def write_file(
    file_io: FileIO, path: str, table: pa.Table, file_format: str, compression: str = "zstd",
    zstd_level: int = 1,
) -> int:
    """Writes ``table`` as a new data file and returns its size in bytes."""
    fmt = file_format.lower()
    comp = compression.lower()
    if comp in ("none", "null", ""):
        comp = "none"
    if fmt == "parquet":
        with file_io.open_output_stream(path) as out:
            pq.write_table(
                table, out, compression=comp,
                compression_level=zstd_level if comp == "zstd" else None,
                use_dictionary=dictionary_columns(table), write_statistics=True,
            )
    elif fmt == "orc":
        with file_io.open_output_stream(path) as out:
            paorc.write_table(table, out, compression="uncompressed" if comp == "none" else comp)
    elif fmt == "avro":
        try:
            data = write_avro(table, comp, zstd_level)
        except ValidationError as e:
            raise ValidationError(f"Cannot write data file {path}: {e}") from e
        file_io.write_bytes(path, data)
    else:
        raise ValidationError(f"Invalid value {file_format!r} for option 'file.format': expected one of {FORMATS}")
    return int(file_io.status(path).size)
