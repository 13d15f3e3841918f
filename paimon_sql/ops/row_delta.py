"""Row-level changes of primary-key tables (UPDATE, MERGE INTO, DELETE by any condition) as delta
writes: each changed row is written once with its row kind, keyed by the primary key, and no data
file is rewritten (Paimon's UpdatePaimonTableCommand / MergeIntoPaimonTable for primary-key tables).

Spark's row-level rewrite hands the writer an operation code per row (Spark's ``RowDeltaUtils``:
1 delete, 2 update, 3 insert); ``row_kinds`` maps them to Paimon's row kinds (-D, +U, +I). A
deleted row arrives with its key only (Spark keeps the row id, nulls the rest); Paimon writes
deleted rows in full (the input changelog, aggregation retraction and partial-update sequence
groups read their values), so ``fill_deleted_rows`` looks the keys up in the snapshot the statement
read (vectorised: one filtered read of the table and one join).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.errors import ValidationError
from paimon_sql.format.system_fields import RowKind
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.travel import TimeTravel
from paimon_sql.predicate import builders
from paimon_sql.scan.table_scan import TableScan

# Spark's RowDeltaUtils operation codes
SPARK_DELETE, SPARK_UPDATE, SPARK_INSERT = 1, 2, 3
_KIND_OF_OPERATION = {
    SPARK_DELETE: int(RowKind.DELETE),
    SPARK_UPDATE: int(RowKind.UPDATE_AFTER),
    SPARK_INSERT: int(RowKind.INSERT),
}
def row_kinds(operations: pa.Array | pa.ChunkedArray, table: str) -> pa.Array:
    """Paimon row kinds (int8) of Spark's operation codes."""
    ops = np.asarray(pc.fill_null(operations, 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    out = np.full(ops.shape, -1, dtype=np.int8)
    for op, kind in _KIND_OF_OPERATION.items():
        out[ops == op] = kind
    if (out < 0).any():
        bad = int(ops[out < 0][0])
        raise ValidationError(f"Row-level write into {table}: unknown Spark row operation {bad}")
    return pa.array(out, pa.int8())


def fill_deleted_rows(store: FileStore, snapshot_id: int | None, rows: pa.Table, kinds: pa.Array) -> tuple[pa.Table, pa.Array]:
    """``rows`` with every deleted row (kind -D) replaced by the stored row of its key in snapshot
    ``snapshot_id``; a deleted key that is not stored there is dropped (nothing to delete)."""
    is_delete = pc.equal(kinds, int(RowKind.DELETE))
    if snapshot_id is None or not pc.any(is_delete).as_py():
        return rows, kinds
    keys = list(store.schema.primary_keys)
    deleted = rows.filter(is_delete).select(keys)
    stored = _stored_rows(store, snapshot_id, deleted, keys)
    # the stored rows of the deleted keys, in the table's column order
    full = deleted.join(stored, keys, join_type="inner", use_threads=False).select(rows.column_names)
    kept = rows.filter(pc.invert(is_delete))
    kept_kinds = kinds.filter(pc.invert(is_delete))
    out = pa.concat_tables([kept, full.cast(rows.schema)])
    out_kinds = pa.concat_arrays([kept_kinds, pa.array(np.full(full.num_rows, int(RowKind.DELETE), dtype=np.int8))])
    return out, out_kinds


def _stored_rows(store: FileStore, snapshot_id: int, keys: pa.Table, key_names: list[str]) -> pa.Table:
    """The rows of ``snapshot_id`` whose keys may be among ``keys``: a read filtered by each key
    column's value set (partitions and files whose statistics exclude them are skipped)."""
    preds = []
    for name in key_names:
        values = pc.unique(keys.column(name).combine_chunks()).to_pylist()
        preds.append(builders.is_in(name, values))
    pred = builders.and_(*preds) if len(preds) > 1 else preds[0]
    scan = TableScan(store, travel=TimeTravel(snapshot_id=snapshot_id)).where(pred)
    return scan.to_arrow()
