"""The Python side of UPDATE / MERGE INTO / DELETE on append tables through Spark (see the shim's
``PaimonAppendRowLevel`` and ``PaimonRowLevelStrategy``): Spark appends the statement's rows into
a write whose options say what they are.

- ``paimon.row-level.mode = cow`` (copy-on-write): the rows are the new content of the data files
  the statement's scan read (``paimon.row-level.files``, a JSON list of names; absent: every file
  of ``paimon.row-level.snapshot-id``) plus inserted rows; the commit replaces those files.
- ``paimon.row-level.mode = delta`` (deletion vectors): each row carries Spark's operation code
  (``__row_operation``: 1 delete, 2 update, 3 insert, 4 reinsert) and the row id
  (``__paimon_file_path``, ``__paimon_row_index``); deleted and updated rows are marked in the
  deletion vectors, updated and inserted rows are written as new files.

Tasks write through :class:`~paimon_sql.spark.writer.PaimonWriter` (staging markers: a failed
statement leaves no files); the driver commits once (``paimon_sql.ops.row_level``)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import types as st
from pyspark.sql.datasource import WriterCommitMessage

from paimon_sql.errors import ValidationError
from paimon_sql.ops.row_level import commit_row_level
from paimon_sql.scan.metadata_columns import FILE_PATH, ROW_INDEX, is_metadata_column
from paimon_sql.spark.source_options import OPT_TIME_ZONE, TableRef
from paimon_sql.spark.spark_types import LEGACY_TIMESTAMP_MAPPING, legacy_timestamp_mapping
from paimon_sql.spark.store_ref import StoreRef
from paimon_sql.spark.writer import PaimonCommitMessage, PaimonWriter, _check_write_schema

OPT_MODE = "paimon.row-level.mode"
OPT_SNAPSHOT = "paimon.row-level.snapshot-id"
OPT_FILES = "paimon.row-level.files"
OPT_COMMAND = "paimon.row-level.command"
OPERATION_COLUMN = "__row_operation"
# Spark's RowDeltaUtils operation codes
DELETE_OPERATION, UPDATE_OPERATION, INSERT_OPERATION, REINSERT_OPERATION = 1, 2, 3, 4


def is_row_level(options: Mapping[str, str]) -> bool:
    return OPT_MODE in options


def row_level_writer(ref: TableRef, table: Any, schema: st.StructType, opts: Mapping[str, str]) -> PaimonWriter:
    """The writer of one row-level statement (``opts``: lower-cased data source options)."""
    mode = opts[OPT_MODE].strip().lower()
    data = st.StructType([f for f in schema.fields if f.name != OPERATION_COLUMN and not is_metadata_column(f.name)])
    # a delta DELETE carries row ids only
    columns = (_check_write_schema(data, table, legacy_timestamp_mapping(opts.get(LEGACY_TIMESTAMP_MAPPING)))
               if data.fields or mode != "delta" else [])
    raw_snapshot = opts.get(OPT_SNAPSHOT)
    base = int(raw_snapshot) if raw_snapshot else None
    files: frozenset[str] | None = None
    if opts.get(OPT_FILES) is not None:
        try:
            files = frozenset(str(n) for n in json.loads(opts[OPT_FILES]))
        except (ValueError, TypeError) as e:
            raise ValidationError(f"Option {OPT_FILES!r} must be a JSON list of data file names: {e}") from e
    args = (ref, StoreRef.of(table.store), table.table_name, False, columns, base, opts.get(OPT_TIME_ZONE))
    writer: PaimonWriter
    if mode == "cow":
        writer = CopyOnWriteWriter(*args, replaced=files)
    elif mode == "delta":
        names = set(schema.fieldNames())
        missing = [c for c in (OPERATION_COLUMN, FILE_PATH, ROW_INDEX) if c not in names]
        if missing:
            raise ValidationError(f"A delta write into table {table.table_name} needs the columns {missing}")
        writer = DeltaWriter(*args)
    else:
        raise ValidationError(f"Option {OPT_MODE!r} must be cow or delta, got {opts[OPT_MODE]!r}")
    writer.remove_stale_staging()
    return writer


class CopyOnWriteWriter(PaimonWriter):
    """Writes the statement's rows; the commit replaces the files the statement read."""

    def __init__(self, *args: Any, replaced: frozenset[str] | None) -> None:
        super().__init__(*args)
        self.replaced = replaced

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        ok = [m for m in messages if isinstance(m, PaimonCommitMessage)]
        table = self._table()
        commit_row_level(table.store, table.new_commit(batch_write=True), [m.changes for m in ok],
                         self.base_snapshot, replaced=self.replaced)
        self._clean_staging(ok)


@dataclass
class DeltaCommitMessage(PaimonCommitMessage):
    """A task's new files, and the (file name -> positions) it deleted."""

    deletions: dict[str, np.ndarray] = field(default_factory=dict)


class DeltaWriter(PaimonWriter):
    """Deleted rows go into deletion vectors, new rows into new files."""

    def write(self, iterator: Iterator[pa.RecordBatch]) -> PaimonCommitMessage:
        deleted: list[pa.RecordBatch] = []
        delete_codes = pa.array([DELETE_OPERATION, UPDATE_OPERATION], pa.int32())
        insert_codes = pa.array([UPDATE_OPERATION, INSERT_OPERATION, REINSERT_OPERATION], pa.int32())

        def inserts() -> Iterator[pa.RecordBatch]:
            for b in iterator:
                op = b.column(OPERATION_COLUMN).cast(pa.int32())
                d = pc.is_in(op, value_set=delete_codes)
                if pc.any(d).as_py():
                    deleted.append(b.select([FILE_PATH, ROW_INDEX]).filter(d))
                i = pc.is_in(op, value_set=insert_codes)
                if pc.any(i).as_py():
                    yield b.filter(i)

        msg = super().write(inserts())
        return DeltaCommitMessage(msg.changes, msg.rows, msg.partition_id, msg.marker, _by_file(deleted))

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        ok = [m for m in messages if isinstance(m, PaimonCommitMessage)]
        merged: dict[str, list[np.ndarray]] = {}
        for m in ok:
            for name, pos in getattr(m, "deletions", {}).items():
                merged.setdefault(name, []).append(pos)
        deletions = {n: np.concatenate(p) for n, p in merged.items()}
        table = self._table()
        commit_row_level(table.store, table.new_commit(batch_write=True), [m.changes for m in ok],
                         self.base_snapshot, replaced=frozenset(), deletions=deletions)
        self._clean_staging(ok)


def _by_file(batches: list[pa.RecordBatch]) -> dict[str, np.ndarray]:
    """(file path, row index) rows grouped as data file path -> positions (vectorised)."""
    if not batches:
        return {}
    t = pa.Table.from_batches(batches).combine_chunks()
    paths = t.column(FILE_PATH).chunk(0).dictionary_encode() if t.num_rows else None
    if paths is None:
        return {}
    codes = paths.indices.to_numpy(zero_copy_only=False)
    rows = t.column(ROW_INDEX).to_numpy()
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(paths.dictionary) + 1))
    out: dict[str, np.ndarray] = {}
    for k, path in enumerate(paths.dictionary.to_pylist()):  # one step per file, not per row
        out[path] = rows[order[bounds[k]:bounds[k + 1]]].astype(np.int64)
    return out
