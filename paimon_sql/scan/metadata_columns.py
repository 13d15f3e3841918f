"""Paimon's metadata columns of a data table (Paimon's ``PaimonMetadataColumn``): the data file a
row is stored in (``__paimon_file_path``), its position in that file (``__paimon_row_index``,
counting the rows a deletion vector removed), its partition (``__paimon_partition``, a struct of the
partition columns) and its bucket (``__paimon_bucket``). Rows are read file by file, so only splits
that need no merge by key have them (append tables, and primary-key buckets whose files are read
as they are: one file, or deletion vectors); others are refused as Paimon refuses them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import UnsupportedError
from paimon_sql.format.system_fields import RowKind
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.predicate import Predicate, to_arrow_expression
from paimon_sql.scan.default_values import fill_defaults
from paimon_sql.scan.reader import apply_deletion_vector, read_data_file
from paimon_sql.scan.split import DataSplit
from paimon_sql.types import DataField, to_arrow_type

FILE_PATH = "__paimon_file_path"
ROW_INDEX = "__paimon_row_index"
PARTITION = "__paimon_partition"
BUCKET = "__paimon_bucket"
METADATA_COLUMNS = (FILE_PATH, ROW_INDEX, PARTITION, BUCKET)

_KIND = "_VALUE_KIND"
# Paimon's message (PaimonRecordReaderIterator) for a split whose rows come from a merge by key
NOT_RAW_MESSAGE = ("There need be FileRecordIterator when metadata columns are required. "
                   "Only append table or deletion vector table support querying metadata columns.")


def is_metadata_column(name: str) -> bool:
    return name in METADATA_COLUMNS


def partition_type(store: FileStore) -> pa.StructType:
    """The Arrow type of ``__paimon_partition``: a struct of the partition columns."""
    return pa.struct([pa.field(f.name, to_arrow_type(f.type)) for f in store.partition_fields])


def _repeat(value: pa.Array, n: int) -> pa.Array:
    """A one-element array repeated ``n`` times (vectorised)."""
    return value.take(pa.array(np.zeros(n, dtype=np.int32)))


def read_split_with_metadata(
    store: FileStore,
    split: DataSplit,
    fields: Sequence[DataField],
    predicate: Predicate | None,
    columns: Sequence[str],
) -> pa.Table:
    """The live rows of ``split`` as ``fields`` plus the metadata ``columns`` (in that order),
    filtered by ``predicate``. A file's path is where the table keeps it (``FileStore.entry_path``)."""
    unknown = [c for c in columns if c not in METADATA_COLUMNS]
    if unknown:
        raise UnsupportedError(f"Table {store.name}: {unknown[0]} metadata column is not supported.")
    if store.has_primary_key and not split.raw_convertible:
        raise UnsupportedError(f"Table {store.name}: {NOT_RAW_MESSAGE}")
    raw = dataclasses.replace(split, deletion_files={})  # positions count every row of a file
    system = (_KIND,) if store.has_primary_key else ()
    ptype = partition_type(store)
    part_values = [pa.array([v], ptype.field(i).type) for i, v in enumerate(split.partition_values)]
    parts: list[pa.Table] = []
    for f in split.files:
        # one column at least: some formats count no rows without one
        t = read_data_file(store, raw, f, list(fields) or list(store.schema.fields[:1]), system)
        t = t.append_column(ROW_INDEX, pa.array(np.arange(t.num_rows, dtype=np.int64)))
        dv = split.deletion_files.get(f.file_name)
        if dv is not None:
            t = apply_deletion_vector(store, t, dv)
        if system:
            kinds = t.column(_KIND)
            live = pc.or_(pc.equal(kinds, int(RowKind.INSERT)), pc.equal(kinds, int(RowKind.UPDATE_AFTER)))
            t = t.filter(live).drop_columns([_KIND])
        t = fill_defaults(t, list(fields), store.options, store.name)
        if predicate is not None:
            t = t.filter(to_arrow_expression(predicate))
        n = t.num_rows
        meta = {
            FILE_PATH: _repeat(pa.array([file_path(store, split, f)], pa.string()), n),
            ROW_INDEX: t.column(ROW_INDEX),
            PARTITION: _partition_column(ptype, part_values, n),
            BUCKET: pa.array(np.full(n, split.bucket, dtype=np.int32)),
        }
        cols = [t.column(fl.name) for fl in fields] + [meta[c] for c in columns]
        parts.append(pa.Table.from_arrays(cols, names=[fl.name for fl in fields] + list(columns)))
    if not parts:
        schema = pa.schema([pa.field(fl.name, to_arrow_type(fl.type)) for fl in fields]
                           + [pa.field(c, _meta_type(c, ptype)) for c in columns])
        return schema.empty_table()
    return pa.concat_tables(parts) if len(parts) > 1 else parts[0]


def _partition_column(ptype: pa.StructType, values: list[pa.Array], n: int) -> pa.Array:
    """``n`` rows of the partition struct (built from repeated children)."""
    if not values:
        return pa.StructArray.from_buffers(ptype, n, [None], children=[])
    return pa.StructArray.from_arrays([_repeat(v, n) for v in values], fields=list(ptype))


def file_path(store: FileStore, split: DataSplit, f: DataFileMeta) -> str:
    """The ``__paimon_file_path`` of a data file of ``split``."""
    return store.data_file_path(split.bucket_dir, f.file_name, f.external_path)


def _meta_type(name: str, ptype: pa.StructType) -> pa.DataType:
    return {FILE_PATH: pa.string(), ROW_INDEX: pa.int64(), PARTITION: ptype, BUCKET: pa.int32()}[name]
