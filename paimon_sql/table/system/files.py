"""``t$files``: one row per live data file of a snapshot (the latest, or the one time travel picks).

As Paimon's ``FilesTable``: every level is listed (also level 0 of deletion-vector and first-row
tables, which batch reads skip); ``partition`` is the partition row cast to STRING (``{2024-01-01}``);
``file_path`` the full path (the external path when the file has one); ``min_key`` / ``max_key``
``Arrays.toString`` of the key (null for append tables); ``null_value_counts``, ``min_value_stats``
and ``max_value_stats`` a ``TreeMap`` of the table's columns (in the snapshot's schema) to the file's
statistics, evolved from the schema the file was written with (columns added later: null bounds and
``record_count`` nulls; columns outside ``metadata.stats-dense-store`` lists: null). Values print as
Java prints Paimon's internal objects (see ``_format.java_to_string``). Rows are ordered by
partition text, then bucket, then manifest order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.casting import cast_array
from paimon_sql.errors import PaimonError
from paimon_sql.format.binary_row import decode_row, decode_rows, row_arity
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.kinds import FileSource
from paimon_sql.meta.manifest_entry import ManifestEntry
from paimon_sql.meta.schema import TableSchema
from paimon_sql.scan.planner import live_entries
from paimon_sql.table.system._format import (
    file_format_of,
    java_list_string,
    java_map_string,
    java_to_string,
)
from paimon_sql.table.system._snapshot_files import partition_row_strings
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import (
    ArrayType,
    BigIntType,
    DataField,
    IntType,
    TimestampType,
    VarCharType,
    to_arrow_type,
)

_FILE_SOURCES: dict[int, str] = {int(k): k.name for k in FileSource}


class FilesTable(SystemTable):
    SYSTEM_NAME = "files"
    TIME_TRAVEL = True
    FIELDS = (
        DataField(0, "partition", VarCharType()),
        DataField(1, "bucket", IntType(nullable=False)),
        DataField(2, "file_path", VarCharType(nullable=False)),
        DataField(3, "file_format", VarCharType(nullable=False)),
        DataField(4, "schema_id", BigIntType(nullable=False)),
        DataField(5, "level", IntType(nullable=False)),
        DataField(6, "record_count", BigIntType(nullable=False)),
        DataField(7, "file_size_in_bytes", BigIntType(nullable=False)),
        DataField(8, "min_key", VarCharType()),
        DataField(9, "max_key", VarCharType()),
        DataField(10, "null_value_counts", VarCharType(nullable=False)),
        DataField(11, "min_value_stats", VarCharType(nullable=False)),
        DataField(12, "max_value_stats", VarCharType(nullable=False)),
        DataField(13, "min_sequence_number", BigIntType()),
        DataField(14, "max_sequence_number", BigIntType()),
        DataField(15, "creation_time", TimestampType(3)),
        DataField(16, "deleteRowCount", BigIntType()),
        DataField(17, "file_source", VarCharType()),
        DataField(18, "first_row_id", BigIntType()),
        DataField(19, "write_cols", ArrayType(VarCharType())),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        store, snap = ctx.store, ctx.snapshot
        if snap is None:
            return 0, {}
        entries = live_entries(store, snap, None)
        parts = partition_row_strings(store, [e.partition for e in entries])
        order = sorted(range(len(entries)), key=lambda i: (parts[entries[i].partition], entries[i].bucket))
        entries = [entries[i] for i in order]
        files = [e.file for e in entries]
        n = len(entries)
        stats: dict[str, pa.Array] = {}

        def value_stats(which: str) -> ColumnFn:
            def compute() -> pa.Array:
                if not stats:
                    stats.update(zip(("null_value_counts", "min_value_stats", "max_value_stats"),
                                     _value_stats_strings(store, entries)))
                return stats[which]
            return compute

        def col(values: Sequence[object], t: pa.DataType) -> ColumnFn:
            return lambda: pa.array(values, t)

        return n, {
            "partition": lambda: pa.array([parts[e.partition] for e in entries], pa.string()),
            "bucket": lambda: pa.array([e.bucket for e in entries], pa.int32()),
            "file_path": lambda: pa.array(_file_paths(store, entries), pa.string()),
            "file_format": lambda: pa.array([file_format_of(f.file_name) for f in files], pa.string()),
            "schema_id": lambda: pa.array([f.schema_id for f in files], pa.int64()),
            "level": lambda: pa.array([f.level for f in files], pa.int32()),
            "record_count": lambda: pa.array([f.row_count for f in files], pa.int64()),
            "file_size_in_bytes": lambda: pa.array([f.file_size for f in files], pa.int64()),
            "min_key": lambda: _key_strings(store, entries, "min"),
            "max_key": lambda: _key_strings(store, entries, "max"),
            "null_value_counts": value_stats("null_value_counts"),
            "min_value_stats": value_stats("min_value_stats"),
            "max_value_stats": value_stats("max_value_stats"),
            "min_sequence_number": lambda: pa.array([f.min_sequence_number for f in files], pa.int64()),
            "max_sequence_number": lambda: pa.array([f.max_sequence_number for f in files], pa.int64()),
            "creation_time": lambda: pa.array([f.creation_time_ms for f in files], pa.timestamp("ms")),
            "deleteRowCount": lambda: pa.array([f.delete_row_count for f in files], pa.int64()),
            "file_source": lambda: pa.array(
                [None if f.file_source is None else _FILE_SOURCES.get(f.file_source) for f in files], pa.string()
            ),
            "first_row_id": lambda: pa.array([f.first_row_id for f in files], pa.int64()),
            "write_cols": lambda: pa.array(
                [None if f.write_cols is None else list(f.write_cols) for f in files], pa.list_(pa.string())
            ),
        }


def _file_paths(store: FileStore, entries: list[ManifestEntry]) -> list[str]:
    dirs: dict[tuple[bytes, int], str] = {}
    out = []
    for e in entries:
        if e.file.external_path:
            out.append(e.file.external_path)
            continue
        key = (e.partition, e.bucket)
        d = dirs.get(key)
        if d is None:
            d = store.bucket_dir(decode_row(e.partition, store.partition_types), e.bucket)
            dirs[key] = d
        out.append(d + "/" + e.file.file_name)
    return out


def _scatter(pieces: list[tuple[list[int], pa.Array]], n: int) -> pa.Array:
    """One array of ``n`` rows from per-group arrays and the row positions of each group."""
    if not pieces:
        return pa.array([], pa.string())
    idx = np.concatenate([np.asarray(p, dtype=np.int64) for p, _ in pieces])
    values = pa.concat_arrays([a.cast(pa.string()) for _, a in pieces])
    inverse = np.empty(n, dtype=np.int64)
    inverse[idx] = np.arange(len(idx), dtype=np.int64)
    return values.take(pa.array(inverse))


def _key_strings(store: FileStore, entries: list[ManifestEntry], which: str) -> pa.Array:
    """``Arrays.toString`` of each file's min or max key (the key of the schema the file was written
    with); null when the file has no key (append tables)."""
    n = len(entries)
    groups: dict[int, list[int]] = defaultdict(list)
    empty: list[int] = []
    for i, e in enumerate(entries):
        blob = e.file.min_key if which == "min" else e.file.max_key
        if row_arity(blob) <= 0:
            empty.append(i)
        else:
            groups[e.file.schema_id].append(i)
    pieces: list[tuple[list[int], pa.Array]] = []
    if empty:
        pieces.append((empty, pa.nulls(len(empty), pa.string())))
    for schema_id, idx in groups.items():
        schema = _schema(store, schema_id)
        fields = schema.fields_of(schema.trimmed_primary_keys) if schema.primary_keys else list(schema.fields)
        blobs = [(entries[i].file.min_key if which == "min" else entries[i].file.max_key) for i in idx]
        try:
            cols = decode_rows(blobs, [f.type for f in fields])
            text = java_list_string([java_to_string(c, f.type) for c, f in zip(cols, fields)], len(idx))
        except PaimonError:
            text = pa.nulls(len(idx), pa.string())
        pieces.append((idx, text))
    return _scatter(pieces, n)


def _schema(store: FileStore, schema_id: int) -> TableSchema:
    return store.schema if schema_id == store.schema.id else store.schemas.schema(schema_id)


def _value_stats_strings(store: FileStore, entries: list[ManifestEntry]) -> tuple[pa.Array, pa.Array, pa.Array]:
    """``null_value_counts``, ``min_value_stats``, ``max_value_stats`` of every file (Paimon's
    ``SimpleStatsEvolutions`` onto the read schema, printed as a ``TreeMap``)."""
    n = len(entries)
    table_fields = list(store.schema.fields)
    groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
    for i, e in enumerate(entries):
        f = e.file
        groups[(f.schema_id, f.value_stats_cols, f.write_cols, row_arity(f.value_stats.min_values))].append(i)
    nulls_p: list[tuple[list[int], pa.Array]] = []
    mins_p: list[tuple[list[int], pa.Array]] = []
    maxs_p: list[tuple[list[int], pa.Array]] = []
    for (schema_id, dense, write_cols, arity), idx in groups.items():
        assert isinstance(schema_id, int) and isinstance(arity, int)
        files = [entries[i].file for i in idx]
        m = len(idx)
        evolved = schema_id != store.schema.id or write_cols is not None
        data_fields = list(_schema(store, schema_id).fields)
        if write_cols is not None:
            by_name = {f.name: f for f in data_fields}
            data_fields = [by_name[c] for c in write_cols if c in by_name]  # type: ignore[attr-defined]
        if dense is None:
            stats_fields = data_fields
        else:
            by_name = {f.name: f for f in data_fields}
            stats_fields = [by_name[c] for c in dense if c in by_name]  # type: ignore[attr-defined]
            if len(stats_fields) != len(dense):  # type: ignore[arg-type]
                stats_fields = []
        stats_types = [f.type for f in stats_fields]
        mins: list[pa.Array] | None = None
        maxs: list[pa.Array] | None = None
        if stats_fields and arity == len(stats_fields):
            try:
                mins = decode_rows([f.value_stats.min_values for f in files], stats_types)
                maxs = decode_rows([f.value_stats.max_values for f in files], stats_types)
            except PaimonError:
                mins = maxs = None
        if not evolved and dense is None:
            visible = table_fields[: min(arity, len(table_fields))]
        else:
            visible = table_fields
        data_by_id = {f.id: j for j, f in enumerate(data_fields)}
        stats_pos = {f.name: k for k, f in enumerate(stats_fields)}
        rows = pa.array([f.row_count for f in files], pa.int64())
        names: list[str] = []
        null_cols: list[pa.Array] = []
        min_cols: list[pa.Array] = []
        max_cols: list[pa.Array] = []
        for i, tf in enumerate(visible):
            names.append(tf.name)
            j = data_by_id.get(tf.id) if evolved else i
            if j is None or j >= len(data_fields):
                # a column the file does not have: no bounds, every row null
                null_cols.append(rows.cast(pa.string()) if evolved else pa.nulls(m, pa.string()))
                min_cols.append(pa.nulls(m, pa.string()))
                max_cols.append(pa.nulls(m, pa.string()))
                continue
            df = data_fields[j]
            k = stats_pos.get(df.name) if dense is not None else j
            if k is None or k >= len(stats_fields):
                null_cols.append(pa.nulls(m, pa.string()))
                min_cols.append(pa.nulls(m, pa.string()))
                max_cols.append(pa.nulls(m, pa.string()))
                continue
            counts = [f.value_stats.null_counts[k] if f.value_stats.null_counts is not None
                      and k < len(f.value_stats.null_counts) else None for f in files]
            null_cols.append(pa.array(counts, pa.int64()).cast(pa.string()))
            if mins is None or maxs is None:
                min_cols.append(pa.nulls(m, pa.string()))
                max_cols.append(pa.nulls(m, pa.string()))
                continue
            min_cols.append(_bound_strings(mins[k], df, tf))
            max_cols.append(_bound_strings(maxs[k], df, tf))
        nulls_p.append((idx, java_map_string(names, null_cols, m)))
        mins_p.append((idx, java_map_string(names, min_cols, m)))
        maxs_p.append((idx, java_map_string(names, max_cols, m)))
    return _scatter(nulls_p, n), _scatter(mins_p, n), _scatter(maxs_p, n)


def _bound_strings(arr: pa.Array, data_field: DataField, table_field: DataField) -> pa.Array:
    """A statistics column, cast to the table's type when the file has an older one (Paimon's
    ``CastedRow``), then printed as Java prints the internal value."""
    t = table_field.type
    if data_field.type.copy(True) != t.copy(True):
        try:
            arr = cast_array(arr, data_field.type, t)
        except PaimonError:
            return pa.nulls(len(arr), pa.string())
    elif not arr.type.equals(to_arrow_type(t)):
        arr = arr.cast(to_arrow_type(t))
    return pc.cast(java_to_string(arr, t), pa.string())
