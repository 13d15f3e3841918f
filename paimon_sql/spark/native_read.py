"""Native reads: which scans Spark's own vectorised parquet reader can read, file by file.

The engine plans every scan (snapshot → manifests → pruned splits). When every file of the plan can
be read as it is stored, with nothing for Paimon to do on top, the catalog shim hands the files to
Spark's parquet reader in the JVM instead of running the engine's reader in Python workers: no
Python task, no Arrow hand-over, and Spark's row-group filtering on top. The engine's reader stays
the path for everything else. A file is read natively only when all of these hold (else the whole
scan takes the Python path):

- the store is on the local file system and the file is a parquet file;
- no deletion vector applies to it;
- it holds every column (no ``write_cols``: data-evolution files hold some columns only);
- in a primary-key table, its split needs no merge (``raw_convertible``) and the file holds no
  retraction row (``delete_row_count == 0``; files that do not say are not read natively);
- no column has a default value (``fields.<name>.default-value``: nulls read as it);
- every requested column has a type Spark's reader turns into the same values as the engine's
  (flat primitive types; timestamps up to microseconds) and exists in the file under the same name
  and type as in the table's schema (no renamed, re-typed or later-added column).

Spark's filters stay post-scan filters on both paths (Spark evaluates them again), so pruning with
them here only skips partitions, files and row groups.

This module never imports pyspark: the bridge process (driver side) runs it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

from paimon_sql import types as pt
from paimon_sql.errors import CorruptFileError, NotFoundError, PaimonError
from paimon_sql.fs.file_io import basename, join
from paimon_sql.meta.data_file_meta import DataFileMeta
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.schema import TableSchema
from paimon_sql.predicate import Predicate, and_, parse_predicate
from paimon_sql.scan.planner import created_since, creation_time_floor, ensure_no_full_scan, plan
from paimon_sql.scan.split import DataSplit
from paimon_sql.scan.table_scan import FALLBACK_BRANCH, ScanMode

MAX_NATIVE_TIMESTAMP_PRECISION = 6  # above: INT96 or nanoseconds, which Spark reads differently


@dataclass(frozen=True)
class NativeFile:
    path: str  # absolute, on the local file system
    size: int
    rows: int
    bucket: int = 0
    total_buckets: int = 0  # the bucket count the file was written with (Spark's bucketed scans)


@dataclass(frozen=True)
class NativePlan:
    """The outcome: ``files`` when (part of) the scan is native, else ``reason`` says why not.
    ``accepted`` holds, per offered filter, whether the engine understood it (EXPLAIN lists those as
    pushed). A mixed plan (``python_buckets`` > 0) reads ``native_buckets`` (partition BinaryRow,
    bucket) natively and leaves every other bucket of the snapshot to the Python path."""

    files: tuple[NativeFile, ...] | None
    reason: str | None
    accepted: tuple[bool, ...]
    snapshot_id: int | None = None
    native_buckets: tuple[tuple[bytes, int], ...] = ()
    python_buckets: int = 0
    python_reason: str | None = None
    size_bytes: int | None = None  # of every planned file, native or not (Spark's size estimate)

    def to_json(self) -> dict[str, Any]:
        return {
            "native": self.files is not None,
            "reason": self.reason,
            "accepted": list(self.accepted),
            "snapshot": self.snapshot_id,
            "files": [{"path": f.path, "size": f.size, "rows": f.rows, "bucket": f.bucket,
                       "total_buckets": f.total_buckets} for f in self.files or ()],
            "python_buckets": self.python_buckets,
            "python_reason": self.python_reason,
            "skip_buckets": json.dumps([[p.hex(), b] for p, b in self.native_buckets]),
            "size_bytes": self.size_bytes,
        }


class _NativeType(pt.DefaultTypeVisitor[bool]):
    """Whether Spark's parquet reader reads a column of the type exactly as the engine does: the
    flat types of ``_FLAT_ROOTS``, and timestamps up to microseconds (finer ones are INT96 or
    nanoseconds)."""

    def default(self, t: pt.DataType) -> bool:
        return t.root in _FLAT_ROOTS

    def visit_timestamp(self, t: pt.TimestampType) -> bool:
        return t.precision <= MAX_NATIVE_TIMESTAMP_PRECISION

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> bool:
        return t.precision <= MAX_NATIVE_TIMESTAMP_PRECISION


_FLAT_ROOTS = frozenset(
    {"BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "CHAR", "VARCHAR",
     "VARBINARY", "DATE"}
)
_NATIVE_TYPE = _NativeType()


def native_type(t: pt.DataType) -> bool:
    """Whether Spark's parquet reader reads a column of Paimon type ``t`` exactly as the engine does."""
    return t.accept(_NATIVE_TYPE)


def parse_filters(
    store: FileStore, filters: Sequence[str | None]
) -> tuple[Predicate | None, tuple[bool, ...]]:
    """The AND of the filters (Spark SQL text; None for one the shim could not render) the engine
    parses, and which ones those were."""
    preds: list[Predicate] = []
    accepted: list[bool] = []
    fields = list(store.schema.fields)
    for text in filters:
        p: Predicate | None = None
        if text:
            try:
                p = parse_predicate(text, fields)
            except PaimonError:
                p = None  # Spark evaluates it anyway; it just prunes nothing
        accepted.append(p is not None)
        if p is not None:
            preds.append(p)
    return (and_(*preds) if preds else None), tuple(accepted)


def plan_native(
    table: Any,
    time_travel: Mapping[str, Any],
    columns: Sequence[str],
    filters: Sequence[str | None] = (),
    mixed: bool = False,
) -> NativePlan:
    """Plans a scan of ``columns`` of ``table`` (an engine ``Table``) and says whether it is native.
    With ``mixed``, buckets that need the engine do not stop the others from being read natively
    (the plan then lists which buckets it reads); without, one such bucket makes the whole scan
    a Python one."""
    if table.scan().effective_mode() != ScanMode.ALL:  # incremental options: the engine plans the range
        accepted0 = tuple(False for _ in filters)
        return NativePlan(None, "an incremental read (incremental-between options)", accepted0, None)
    snap, store, travelled = table.resolve_read(**time_travel)
    pred, accepted = parse_filters(store, filters)

    def no(reason: str) -> NativePlan:
        return NativePlan(None, reason, accepted, snap.id if snap is not None else None)

    if not store.file_io.capabilities.local_paths:  # Spark's parquet reader would need Hadoop's S3A etc.
        return no("the table is not on the local file system")
    by_name = {f.name: f for f in store.schema.fields}
    by_lower = {f.name.lower(): f for f in store.schema.fields}
    wanted: list[pt.DataField] = []
    for c in columns:
        f = by_name.get(c) or by_lower.get(c.lower())
        if f is None:
            return no(f"column {c!r} is not in the table's schema")
        if not native_type(f.type):
            return no(f"column {f.name!r} has type {f.type}")
        wanted.append(f)
    if table.schema.options.get(FALLBACK_BRANCH):
        return no("the table reads a fallback branch")
    defaults = sorted(store.options.field_default_values())
    if defaults:
        return no(f"column {defaults[0]!r} has a default value (the engine's reader fills in its nulls)")
    for key in ("scan.ignore-corrupt-files", "scan.ignore-lost-files"):
        if store.options.get(key):
            return no(f"{key} is set (the engine's reader skips such files)")
    if snap is None:
        return NativePlan((), None, accepted, None)
    files: list[NativeFile] = []
    schemas: dict[int, TableSchema] = {store.schema.id: store.schema}
    native_buckets: list[tuple[bytes, int]] = []
    python_buckets = 0
    python_reason: str | None = None
    size = 0
    splits = plan(store, snap, pred)
    ensure_no_full_scan(store, snap, splits)
    splits = created_since(splits, creation_time_floor(store, travelled))
    for split in splits:
        size += sum(m.file_size for m in split.files)
        why = _split_not_native(store, split)
        for meta in split.files if why is None else ():
            why = _file_not_native(store, split, meta, wanted, schemas)
            if why is not None:
                break
        if why is not None:
            if not mixed:
                return no(why)  # (no size: the rest is not planned)
            python_buckets += 1
            python_reason = python_reason or why
            continue
        native_buckets.append((split.partition, split.bucket))
        check_sizes(store, split)
        files.extend(NativeFile(local_path(split, m), m.file_size, m.row_count, split.bucket, split.total_buckets)
                     for m in split.files)
    if python_buckets and not native_buckets:
        return NativePlan(None, python_reason or "no bucket can be read natively", accepted, snap.id, size_bytes=size)
    return NativePlan(
        tuple(files), None, accepted, snap.id, tuple(native_buckets), python_buckets, python_reason, size
    )


def check_sizes(store: FileStore, split: DataSplit) -> None:
    """Spark's parquet reader trusts the sizes it is given: every file of a natively read split
    must exist with the size its manifest entry records (one listing of the bucket's folder), else
    the NotFoundError / CorruptFileError the engine's own reader would raise."""
    listed = {basename(s.path): s.size for s in store.file_io.list_status(split.bucket_dir) if not s.is_dir}
    for m in split.files:
        path = local_path(split, m)
        if m.external_path is None:
            actual = listed.get(m.file_name)
        else:
            try:
                actual = store.file_io.status(path).size
            except NotFoundError:
                actual = None
        if actual is None:
            raise NotFoundError(f"Table {store.name}: data file {path} does not exist")
        if actual != m.file_size:
            raise CorruptFileError(
                f"Table {store.name}: corrupt data file {path}: it has {actual} bytes, but its manifest "
                f"entry records {m.file_size}"
            )


def _split_not_native(store: FileStore, split: DataSplit) -> str | None:
    if split.deletion_files:
        return "deletion vectors apply to its files"
    return _merge_needed(store, split)


def _merge_needed(store: FileStore, split: DataSplit) -> str | None:
    """Why the split's rows are not its files' rows (without deletion vectors), or None."""
    if store.has_primary_key and not split.raw_convertible:
        return f"bucket {split.bucket} needs a merge by key"
    return None


def _rows_not_as_stored(store: FileStore, f: DataFileMeta) -> str | None:
    """Why a file's rows (of a split that needs no merge) are not table rows as they are, or None."""
    if f.write_cols is not None:
        return f"file {f.file_name} holds only some columns (data evolution)"
    if store.has_primary_key and f.delete_row_count != 0:
        return f"file {f.file_name} may hold retraction rows"
    return None


def _file_not_native(
    store: FileStore,
    split: DataSplit,
    f: DataFileMeta,
    wanted: Sequence[pt.DataField],
    schemas: dict[int, TableSchema],
) -> str | None:
    name = f.file_name.lower()
    if not name.endswith(".parquet"):
        return f"file {f.file_name} is not a parquet file"
    if f.external_path is not None and not (
        f.external_path.startswith("/") or f.external_path.startswith("file:")
    ):
        return f"file {f.file_name} lives outside the local file system"
    why = _rows_not_as_stored(store, f)
    if why is not None:
        return why
    file_schema = schemas.get(f.schema_id)
    if file_schema is None:
        file_schema = schemas[f.schema_id] = store.schemas.schema(f.schema_id)
    if file_schema is store.schema:
        return None
    old = file_schema.field_by_id()
    for w in wanted:
        o = old.get(w.id)
        if o is None or o.name != w.name or o.type.copy(True) != w.type.copy(True):
            return f"column {w.name!r} differs in file {f.file_name} (schema {f.schema_id})"
    return None


def local_path(split: DataSplit, f: DataFileMeta) -> str:
    """Where a data file is, as Spark's file sources and ``input_file_name()`` see it (a local path
    without ``file:``, or the URI of an external path on another file system)."""
    if f.external_path is None:
        return join(split.bucket_dir, f.file_name)
    path = f.external_path
    if path.startswith("file://"):
        return unquote(urlparse(path).path)
    return path.removeprefix("file:")


@dataclass(frozen=True)
class RowCount:
    """``SELECT count(*)`` answered from the plan's file metadata, or why it cannot be."""

    count: int | None
    reason: str | None
    snapshot_id: int | None

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "reason": self.reason, "snapshot": self.snapshot_id}


def count_rows(table: Any, time_travel: Mapping[str, Any]) -> RowCount:
    """The table's row count from its manifests, when every row a file holds is a live row of the
    table: no bucket needing a merge by key, no retraction row, deletion vectors with a known
    cardinality (subtracted). Reads no data file."""
    if table.scan().effective_mode() != ScanMode.ALL:
        return RowCount(None, "an incremental read (incremental-between options)", None)
    snap, store, travelled = table.resolve_read(**time_travel)
    if table.schema.options.get(FALLBACK_BRANCH):
        return RowCount(None, "the table reads a fallback branch", None)
    if snap is None:
        return RowCount(0, None, None)
    total = 0
    splits = plan(store, snap, None)
    ensure_no_full_scan(store, snap, splits)
    splits = created_since(splits, creation_time_floor(store, travelled))
    for split in splits:
        why = _merge_needed(store, split)
        if why is not None:
            return RowCount(None, why, snap.id)
        for f in split.files:
            why = _rows_not_as_stored(store, f)
            if why is not None:
                return RowCount(None, why, snap.id)
            total += f.row_count
            dv = split.deletion_files.get(f.file_name)
            if dv is not None:
                if dv.cardinality is None:
                    return RowCount(None, f"the deletion vector of {f.file_name} has no cardinality", snap.id)
                total -= dv.cardinality
    return RowCount(total, None, snap.id)
