"""Writing one data file and describing it (DataFileMeta with Paimon's stats)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.format.binary_row import encode_row
from paimon_sql.format.data_files import write_file
from paimon_sql.format.system_fields import (
    KEY_FIELD_ID_START,
    KEY_PREFIX,
    KIND,
    KIND_FIELD_ID,
    SEQ,
    SEQ_FIELD_ID,
)
from paimon_sql.meta.data_file_meta import DataFileMeta, local_wall_clock_ms
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileSource
from paimon_sql.meta.simple_stats import SimpleStats
from paimon_sql.types import BigIntType, DataField, TinyIntType, to_arrow_field
from paimon_sql.write.stats import collect_stats, key_bounds


@dataclass
class FileNamer:
    """``data-<uuid>-<n>.<format>``, one uuid per writer like Paimon's DataFilePathFactory."""

    prefix: str
    extension: str
    uuid: str = field(default_factory=lambda: str(uuid.uuid4()))
    count: int = 0

    def next(self, prefix: str | None = None, extension: str | None = None) -> str:
        """The next name; ``prefix`` / ``extension`` replace the namer's (changelog files share the
        uuid and the count with the data files of their writer, like Paimon's path factory)."""
        prefix = self.prefix if prefix is None else prefix
        extension = self.extension if extension is None else extension
        name = f"{prefix}{self.uuid}-{self.count}.{extension}"
        self.count += 1
        return name


def kv_arrow_schema(store: FileStore) -> pa.Schema:
    """Physical schema of a primary-key data file: _KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND, values."""
    fields = []
    for kf in store.key_fields:
        f = to_arrow_field(DataField(KEY_FIELD_ID_START + kf.id, KEY_PREFIX + kf.name, kf.type.copy(False)))
        fields.append(f)
    fields.append(to_arrow_field(DataField(SEQ_FIELD_ID, SEQ, BigIntType(nullable=False))))
    fields.append(to_arrow_field(DataField(KIND_FIELD_ID, KIND, TinyIntType(nullable=False))))
    fields += [to_arrow_field(f) for f in store.schema.fields]
    return pa.schema(fields)


def append_arrow_schema(store: FileStore) -> pa.Schema:
    return pa.schema([to_arrow_field(f) for f in store.schema.fields])


def write_data_file(
    store: FileStore,
    bucket_dir: str,
    namer: FileNamer,
    data: pa.Table,
    min_seq: int,
    max_seq: int,
    level: int = 0,
    file_source: int = FileSource.APPEND,
    changelog: bool = False,
) -> tuple[DataFileMeta, str]:
    """Writes ``data`` (already in the file's physical schema) and returns (meta, path).

    ``changelog``: a changelog file (Paimon's KeyValueFileWriterFactory changelog writer): named
    with ``changelog-file.prefix``, in ``changelog-file.format`` / ``changelog-file.compression``
    with ``changelog-file.stats-mode`` where those are set (else the data files' settings)."""
    opts = store.options
    fmt, compression, stats_mode = opts.file_format, opts.file_compression, opts.metadata_stats_mode
    if changelog:
        fmt = (opts.get("changelog-file.format") or fmt).lower()
        compression = opts.get("changelog-file.compression") or compression
        stats_mode = opts.get("changelog-file.stats-mode") or stats_mode
        name = namer.next(opts.changelog_file_prefix, fmt)
    else:
        name = namer.next()
    path, external_path = store.new_data_file(bucket_dir, name)
    size = write_file(store.file_io, path, data, fmt, compression, opts.file_compression_zstd_level)
    fields = store.schema.fields
    value_types = [f.type for f in fields]
    value_stats = collect_stats([data.column(f.name) for f in fields], value_types, stats_mode)
    if store.has_primary_key:
        key_types = [k.type for k in store.key_fields]
        key_cols = [data.column(KEY_PREFIX + k.name) for k in store.key_fields]
        key_stats = collect_stats(key_cols, key_types, stats_mode)
        min_key, max_key = key_bounds(key_cols, key_types)
        kinds = data.column(KIND)
        delete_rows = int(pc.sum(pc.or_(pc.equal(kinds, 1), pc.equal(kinds, 3))).as_py() or 0)
    else:
        key_stats = SimpleStats(encode_row([], []), encode_row([], []), ())
        min_key = max_key = encode_row([], [])
        delete_rows = 0
    meta = DataFileMeta(
        file_name=name,
        file_size=size,
        row_count=data.num_rows,
        min_key=min_key,
        max_key=max_key,
        key_stats=key_stats,
        value_stats=value_stats,
        min_sequence_number=min_seq,
        max_sequence_number=max_seq,
        schema_id=store.schema.id,
        level=level,
        extra_files=(),
        creation_time_ms=local_wall_clock_ms(),
        delete_row_count=delete_rows,
        embedded_file_index=None,
        file_source=file_source,
        value_stats_cols=None,
        external_path=external_path,
        first_row_id=None,
        write_cols=None,
    )
    return meta, path
