"""``t$table_indexes``: one row per index file of a snapshot (dynamic-bucket HASH indexes and
deletion-vector files), as Paimon's ``TableIndexesTable``: partition text, bucket, index type, file
name, size, row count, and for deletion-vector files the range of every data file's vector
(``f0`` data file, ``f1`` offset, ``f2`` length, ``_CARDINALITY`` deleted rows). Global-index columns
are null (paimon_sql writes no global index)."""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.table.system._snapshot_files import partition_row_strings
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import (
    ArrayType,
    BigIntType,
    DataField,
    IntType,
    RowType,
    VarCharType,
    to_arrow_type,
)

DV_META = RowType((
    DataField(0, "f0", VarCharType(nullable=False)),
    DataField(1, "f1", IntType(nullable=False)),
    DataField(2, "f2", IntType(nullable=False)),
    DataField(3, "_CARDINALITY", BigIntType()),
))


class TableIndexesTable(SystemTable):
    SYSTEM_NAME = "table_indexes"
    TIME_TRAVEL = True
    FIELDS = (
        DataField(0, "partition", VarCharType()),
        DataField(1, "bucket", IntType(nullable=False)),
        DataField(2, "index_type", VarCharType(nullable=False)),
        DataField(3, "file_name", VarCharType(nullable=False)),
        DataField(4, "file_size", BigIntType(nullable=False)),
        DataField(5, "row_count", BigIntType(nullable=False)),
        DataField(6, "dv_ranges", ArrayType(DV_META)),
        DataField(7, "row_range_start", BigIntType()),
        DataField(8, "row_range_end", BigIntType()),
        DataField(9, "index_field_id", IntType()),
        DataField(10, "index_field_name", VarCharType()),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        store, snap = ctx.store, ctx.snapshot
        if snap is None:
            return 0, {}
        entries = store.manifests.index_entries(snap)
        texts = partition_row_strings(store, [e.partition for e in entries])
        files = [e.index_file for e in entries]
        ranges = [
            None if f.dv_ranges is None else [
                {"f0": name, "f1": r.offset, "f2": r.length, "_CARDINALITY": r.cardinality}
                for name, r in f.dv_ranges.items()
            ]
            for f in files
        ]
        n = len(entries)
        nulls = {"row_range_start": pa.int64(), "row_range_end": pa.int64(), "index_field_id": pa.int32(),
                 "index_field_name": pa.string()}
        cols: dict[str, ColumnFn] = {
            "partition": lambda: pa.array([texts[e.partition] for e in entries], pa.string()),
            "bucket": lambda: pa.array([e.bucket for e in entries], pa.int32()),
            "index_type": lambda: pa.array([f.index_type for f in files], pa.string()),
            "file_name": lambda: pa.array([f.file_name for f in files], pa.string()),
            "file_size": lambda: pa.array([f.file_size for f in files], pa.int64()),
            "row_count": lambda: pa.array([f.row_count for f in files], pa.int64()),
            "dv_ranges": lambda: pa.array(ranges, to_arrow_type(ArrayType(DV_META))),
        }
        for name, typ in nulls.items():
            cols[name] = (lambda typ=typ: pa.nulls(n, typ))  # type: ignore[misc]
        return n, cols
