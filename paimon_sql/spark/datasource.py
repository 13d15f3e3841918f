"""The ``paimon_sql`` Spark Python data source: table data moves through Spark's Python workers.

Reads: ``partitions()`` runs once per query on the driver side (in a Python worker the driver
starts): it plans the table (snapshot → manifests → pruned splits) and packs the splits' files into
input partitions; ``read()`` runs in the executors' Python workers, one task per input partition,
and yields Arrow record batches that match Spark's requested schema exactly (names, types,
nullability).

Writes: ``write()`` runs once per Spark task with the task's Arrow batches and one engine
``TableWrite``; it returns the task's ``CommitChanges`` in a commit message. ``commit()`` runs once
on the driver with every task's message and commits ONE snapshot (append or overwrite);
``abort()`` deletes every file of the write, also those of failed, lost or late task attempts
(see ``PaimonWriter``).

Options (case-insensitive; the catalog shim merges the table's identity into every scan and write):

- ``warehouse``, ``table`` (``db.t``, ``db.t$branch_b`` or a system table ``db.t$files``), or
  ``path`` (the table folder ``<warehouse>/<db>.db/<t>``);
- time travel, at most one of: ``scan.snapshot-id``, ``scan.tag-name``, ``scan.timestamp-millis``,
  ``scan.timestamp``, ``scan.watermark``, ``scan.version`` (a tag name, ``watermark-<n>``, or a
  snapshot id), resolved by ``paimon_sql.meta.travel``;
- ``source.split.target-size`` / ``source.split.open-file-cost``: packing files into partitions;
  ``paimon.read.parallelism``: aim for at least this many partitions when the files allow (default:
  the planning machine's CPU count; the catalog shim passes Spark's default parallelism);
  ``paimon.read.batch-rows``: rows per Arrow batch (default 65536);
- ``paimon.filter-pushdown``: ``true`` takes Spark's filters (default ``false``, see
  ``PushdownReader``); needs ``spark.sql.python.filterPushdown.enabled=true`` in the session;
- writes: ``paimon.overwrite`` = ``none`` | ``full`` | ``dynamic`` | ``static`` (default ``full``
  when Spark overwrites or truncates, else ``none``) and ``paimon.overwrite.partition``, the JSON
  object of the static partition spec;
- ``paimon.debug.scan-log``: append one JSON line per planned scan (splits, files, filters) to
  this file.

See docs/spark-datasource.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    Filter,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.pandas.types import to_arrow_schema

from paimon_sql import types as pt
from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError
from paimon_sql.fs.file_io import FileIO, basename, join
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.schema import TableSchema
from paimon_sql.predicate import Predicate, and_, referenced_columns
from paimon_sql.scan.split import DataSplit
from paimon_sql.spark.native_read import local_path
from paimon_sql.spark.source_options import (  # noqa: F401 (re-exported: the source's options)
    NAME,
    OPT_BATCH_ROWS,
    OPT_FILTER_PUSHDOWN,
    OPT_INPUT_FILE,
    OPT_OVERWRITE,
    OPT_OVERWRITE_PARTITION,
    OPT_PARALLELISM,
    OPT_PATH,
    OPT_SCAN_LOG,
    OPT_SNAPSHOT_ID,
    OPT_SPLIT_OPEN_FILE_COST,
    OPT_SPLIT_TARGET_SIZE,
    OPT_TABLE,
    OPT_TAG_NAME,
    OPT_TIMESTAMP_MILLIS,
    OPT_VERSION,
    OPT_WAREHOUSE,
    TableRef,
    _bool_option,
    _int_option,
    _lower,
    _resolved_store,
    read_snapshot,
    skip_buckets,
    time_travel,
)
from paimon_sql.spark.spark_types import DATA_SOURCE_TYPES
from paimon_sql.write.file_writer import FileNamer
from paimon_sql.write.table_write import TableWrite

DEFAULT_BATCH_ROWS = 1 << 16
# A trailing string column the catalog shim asks of every Python scan: the data file a batch comes
# from (its first row; null when the batch merges several files or is no file's), for Spark's
# input_file_name(). The shim's columnar reader drops the column and tells Spark.
INPUT_FILE_COLUMN = "__paimon_input_file"
# a task hands the engine's writer chunks of about this many rows (Spark sends 10k-row batches)
WRITE_CHUNK_ROWS = 1 << 17
STAGING_DIR = ".spark-writes"
FINISHED = "_FINISHED"  # the tombstone of a write that was aborted, or committed without some attempt
ABORT_SETTLE_SECONDS = 3.0


# ----------------------------------------------------------------------------------------------
# Types: Paimon → Spark
# ----------------------------------------------------------------------------------------------


def spark_type(t: pt.DataType) -> st.DataType:
    """The Spark SQL type a Paimon type is read as (nullability lives on the field): the one
    mapping of ``spark_types``, without CHAR/VARCHAR lengths, field comments or VARIANT."""
    return st._parse_datatype_json_value(t.accept(DATA_SOURCE_TYPES))


def spark_schema(fields: Sequence[pt.DataField]) -> st.StructType:
    """Spark schema of Paimon fields: same names, Spark types, Paimon's nullability."""
    out = []
    for f in fields:
        try:
            out.append(DATA_SOURCE_TYPES.field(f))
        except UnsupportedError as e:
            raise UnsupportedError(f"Column {f.name!r}: {e}") from None
    return st.StructType.fromJson({"type": "struct", "fields": out})


def spark_schema_of_arrow(schema: pa.Schema) -> st.StructType:
    """Spark schema of an Arrow schema (system tables), through the Paimon type of each column."""
    return spark_schema([pt.DataField(i, f.name, pt.from_arrow_type(f.type, f.nullable))
                         for i, f in enumerate(schema)])


def arrow_target(schema: st.StructType) -> pa.Schema:
    """The Arrow schema Spark checks every batch a reader yields against."""
    return to_arrow_schema(schema, timezone="UTC")


def conform_to(table: pa.Table, target: pa.Schema) -> pa.Table:
    """``table``'s columns (selected by name, in ``target``'s order) as exactly ``target``'s types
    and nullability: zero-copy where only nullability or field metadata differ."""
    arrays = []
    for f in target:
        col = table.column(f.name)
        if not col.type.equals(f.type):
            col = _cast(col, f.type)
        arrays.append(col)
    return pa.Table.from_arrays(arrays, schema=target)


def _cast(col: pa.ChunkedArray, target: pa.DataType) -> pa.ChunkedArray:
    # units of timestamps (ms/ns → Spark's µs) and times change: truncate like Paimon's Spark reader
    try:
        return col.cast(target, safe=False)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise UnsupportedError(f"Cannot convert a column of Arrow type {col.type} to {target}: {e}") from e


# ----------------------------------------------------------------------------------------------
# Options
# ----------------------------------------------------------------------------------------------


def _field_by_name(fields: Sequence[pt.DataField], name: str, where: str) -> pt.DataField:
    for f in fields:
        if f.name == name:
            return f
    matches = [f for f in fields if f.name.lower() == name.lower()]
    if len(matches) == 1:
        return matches[0]
    raise ValidationError(f"Column {name!r} does not exist in {where}; columns are {[f.name for f in fields]}")


# ----------------------------------------------------------------------------------------------
# Stores travel to executors as small references and are rebuilt (and cached) there
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoreRef:
    """A picklable, cache-free description of a FileStore (one table or branch, one schema)."""

    file_io: FileIO
    path: str
    name: str
    schema: TableSchema
    branch: str

    @staticmethod
    def of(store: FileStore) -> StoreRef:
        return StoreRef(store.file_io, store.path, store.name, store.schema, store.branch)

    def key(self) -> tuple[Any, ...]:
        # the whole schema: a table dropped and created again reuses schema id 0
        return (type(self.file_io.fs).__name__, self.path, self.branch, self.name, self.schema.to_json())

    def open(self) -> FileStore:
        k = self.key()
        with _CACHE_LOCK:
            store = _STORE_CACHE.get(k)
            if store is None:
                if len(_STORE_CACHE) >= 32:
                    _STORE_CACHE.clear()
                store = FileStore(self.file_io, self.path, self.name, self.schema, self.branch)
                _STORE_CACHE[k] = store
            return store


# Python workers are reused across tasks: keep their stores (schema and manifest caches) warm
_STORE_CACHE: dict[tuple[Any, ...], FileStore] = {}
_CACHE_LOCK = threading.Lock()


# ----------------------------------------------------------------------------------------------
# The data source
# ----------------------------------------------------------------------------------------------


class PaimonDataSource(DataSource):
    """``spark.read.format("paimon_sql").option("warehouse", ...).option("table", "db.t")``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self) -> st.StructType:
        ref = TableRef.of(self.options)
        obj = ref.load(self.options)
        if ref.is_system:
            fields = getattr(obj, "fields", None)  # Paimon's declared column types
            return spark_schema(fields) if fields is not None else spark_schema_of_arrow(obj.arrow_schema)
        store = _resolved_store(obj, time_travel(self.options, obj))
        return spark_schema(store.schema.fields)

    def reader(self, schema: st.StructType) -> DataSourceReader:
        ref = TableRef.of(self.options)
        opts = _lower(self.options)
        if ref.is_system:
            return SystemTableReader(ref, opts, schema)
        if _bool_option(opts, OPT_FILTER_PUSHDOWN):
            return PushdownReader(ref, opts, schema)
        return PaimonReader(ref, opts, schema)

    def writer(self, schema: st.StructType, overwrite: bool) -> PaimonWriter:
        ref = TableRef.of(self.options)
        if ref.is_system:
            raise ValidationError(f"Cannot write into system table {ref.table}: system tables are read-only")
        table = ref.load(self.options)
        opts = _lower(self.options)
        mode = _overwrite_mode(opts, overwrite, table)
        columns = _check_write_schema(schema, table)
        latest = table.latest_snapshot()
        writer = PaimonWriter(
            ref, StoreRef.of(table.store), table.table_name, mode, columns,
            latest.id if latest is not None else None,
        )
        writer.remove_stale_staging()
        return writer


DefaultSource = PaimonDataSource  # the name Spark's auto-discovery of ``pyspark_*`` modules looks for


# ----------------------------------------------------------------------------------------------
# Reading
# ----------------------------------------------------------------------------------------------


class SplitPartition(InputPartition):
    """One Spark task's share of a scan: data splits (whole buckets, or single files of splits that
    need no key merge) of one store."""

    def __init__(self, index: int, store: StoreRef, splits: Sequence[DataSplit]) -> None:
        super().__init__(index)
        self.store = store
        self.splits = tuple(splits)

    def __repr__(self) -> str:
        files = sum(len(s.files) for s in self.splits)
        return f"SplitPartition({self.value}, {self.store.name}, splits={len(self.splits)}, files={files})"


def split_input_file(schema: st.StructType, options: Mapping[str, str]) -> tuple[st.StructType, bool]:
    """``schema`` without the trailing :data:`INPUT_FILE_COLUMN` the shim added (option
    ``paimon.read.input-file``), and whether it had it."""
    if _bool_option(options, OPT_INPUT_FILE):
        if not schema.fields or schema.fields[-1].name != INPUT_FILE_COLUMN:
            raise ValidationError(f"Option {OPT_INPUT_FILE!r} is set but the read schema does not end "
                                  f"with {INPUT_FILE_COLUMN!r}: {schema.simpleString()}")
        return st.StructType(schema.fields[:-1]), True
    return schema, False


@functools.lru_cache(maxsize=8)
def _input_file_buffers(rows: int, length: int) -> tuple[pa.Buffer, pa.Buffer]:
    """Validity (row 0 only) and offsets of a string column whose first row is ``length`` bytes
    long and whose other rows are null; shared by every batch of that size."""
    validity = np.zeros((rows + 7) // 8, dtype=np.uint8)
    validity[0] = 1
    offsets = np.full(rows + 1, length, dtype=np.int32)
    offsets[0] = 0
    return pa.py_buffer(validity), pa.py_buffer(offsets)


def with_input_file(batch: pa.RecordBatch, path: str | None) -> pa.RecordBatch:
    """``batch`` plus :data:`INPUT_FILE_COLUMN`: ``path`` in the first row, nulls after it (the
    shim reads row 0 only), built from cached buffers without copying."""
    n = batch.num_rows
    if path is None or n == 0:
        col = pa.nulls(n, pa.string())
    else:
        data = path.encode()
        validity, offsets = _input_file_buffers(n, len(data))
        col = pa.Array.from_buffers(pa.string(), n, [validity, offsets, pa.py_buffer(data)], null_count=n - 1)
    schema = batch.schema.append(pa.field(INPUT_FILE_COLUMN, pa.string()))
    return pa.RecordBatch.from_arrays([*batch.columns, col], schema=schema)


class PaimonReader(DataSourceReader):
    def __init__(self, ref: TableRef, options: dict[str, str], schema: st.StructType) -> None:
        self.ref = ref
        self.options = options
        self.schema, self.input_file = split_input_file(schema, options)
        self.predicates: list[Predicate] = []
        self.rejected: list[str] = []
        self._table: Any = None  # driver side only; never pickled

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_table"] = None
        return state

    def _load(self) -> Any:
        if self._table is None:
            self._table = self.ref.load(self.options)
        return self._table

    # -- driver ----------------------------------------------------------------------------------
    def partitions(self) -> list[InputPartition]:
        table = self._load()
        pred = and_(*self.predicates) if self.predicates else None
        _, splits, _ = table.plan(pred, **read_snapshot(self.options, table))
        skip = skip_buckets(self.options)  # read by Spark's parquet reader (a mixed catalog scan)
        if skip:
            splits = [(st, sp) for st, sp in splits if (sp.partition, sp.bucket) not in skip]
        parts = self._pack(splits)
        self._log_scan(table, splits, parts)
        return list(parts)

    def _pack(self, splits: Sequence[tuple[FileStore, DataSplit]]) -> list[SplitPartition]:
        """Packs read units in order into partitions of about ``source.split.target-size`` bytes.
        A unit is one file of a split that needs no merge (append tables, raw-convertible buckets),
        or a whole bucket whose runs must be merged by key."""
        if not splits:
            return []
        first = splits[0][0]
        target = self._size_option(OPT_SPLIT_TARGET_SIZE, first)
        open_cost = self._size_option(OPT_SPLIT_OPEN_FILE_COST, first)
        units: list[tuple[FileStore, DataSplit, int]] = []
        for store, split in splits:
            if not store.has_primary_key or split.raw_convertible:
                for f in split.files:
                    dv = {f.file_name: split.deletion_files[f.file_name]} if f.file_name in split.deletion_files else {}
                    one = dataclasses.replace(split, files=(f,), deletion_files=dv)
                    units.append((store, one, max(f.file_size, open_cost)))
            else:
                units.append((store, split, sum(max(f.file_size, open_cost) for f in split.files)))
        # like Spark's file sources: aim for at least one partition per core (the planning process
        # cannot see Spark's default parallelism: the catalog shim passes it as an option)
        parallelism = _int_option(self.options, OPT_PARALLELISM) or os.cpu_count() or 1
        if parallelism > 0:
            total = sum(w for _, _, w in units)
            target = max(open_cost, min(target, -(-total // parallelism)))
        parts: list[SplitPartition] = []
        cur: list[DataSplit] = []
        cur_store: FileStore | None = None
        cur_weight = 0
        for store, split, weight in units:
            if cur and (store is not cur_store or cur_weight + weight > target):
                assert cur_store is not None
                parts.append(SplitPartition(len(parts), StoreRef.of(cur_store), cur))
                cur, cur_weight = [], 0
            cur.append(split)
            cur_store = store
            cur_weight += weight
        if cur:
            assert cur_store is not None
            parts.append(SplitPartition(len(parts), StoreRef.of(cur_store), cur))
        return parts

    def _size_option(self, key: str, store: FileStore) -> int:
        from paimon_sql.options import CoreOptions

        if key in self.options:
            return int(CoreOptions({key: self.options[key]}, self.ref.table).get(key))
        return int(store.options.get(key))

    def _log_scan(self, table: Any, splits: Sequence[tuple[FileStore, DataSplit]],
                  parts: Sequence[SplitPartition]) -> None:
        path = self.options.get(OPT_SCAN_LOG)
        if not path:
            return
        rec = {
            "table": self.ref.table,
            "snapshot": splits[0][1].snapshot_id if splits else None,
            "splits": len(splits),
            "files": sum(len(s.files) for _, s in splits),
            "rows": sum(s.row_count for _, s in splits),
            "partitions": len(parts),
            "columns": self.schema.fieldNames(),
            "pushed": [str(p) for p in self.predicates],
            "rejected": self.rejected,
        }
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec) + "\n")

    # -- executors -------------------------------------------------------------------------------
    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, SplitPartition):
            return  # an empty scan: Spark still runs one task with InputPartition(None)
        from paimon_sql.scan.reader import read_split

        store = partition.store.open()
        fields = store.schema.fields
        out_fields = [_field_by_name(fields, n, f"table {store.name}") for n in self.schema.fieldNames()]
        pred = and_(*self.predicates) if self.predicates else None
        read_fields = list(out_fields)
        if pred is not None:
            have = {f.name for f in read_fields}
            read_fields += [_field_by_name(fields, c, f"table {store.name}")
                            for c in sorted(referenced_columns(pred)) if c not in have]
        target = arrow_target(self.schema)
        # Spark names the columns as its schema does; the engine as the table does (case may differ)
        names = {f.name: t.name for f, t in zip(out_fields, target)}
        batch_rows = _int_option(self.options, OPT_BATCH_ROWS) or DEFAULT_BATCH_ROWS
        for split in partition.splits:
            tbl = read_split(store, split, read_fields, pred)
            if tbl.num_rows == 0:
                continue
            tbl = tbl.select(list(names)).rename_columns(list(names.values()))
            batches = conform_to(tbl, target).to_batches(max_chunksize=batch_rows)
            if not self.input_file:
                yield from batches
                continue
            # a batch of one file names it (as Paimon's reader does); a merge of several names none
            path = local_path(split, split.files[0]) if len(split.files) == 1 else None
            for b in batches:
                yield with_input_file(b, path)


class PushdownReader(PaimonReader):
    """A reader that takes Spark's filters (option ``paimon.filter-pushdown=true``).

    pyspark 4.3.0 keeps the planned read (pickled reader with its pushed filters, and the input
    partitions) on the provider object of a DataFrame's relation and reuses it for a later query on
    the same DataFrame when that query offers the source no filter: ``df.filter("x > 1").count()``
    then ``df.count()`` returns the filtered count. Pushdown is therefore only safe when every scan
    gets a fresh provider (the catalog shim creates one per scan and sets this option); plain
    ``spark.read`` users get it only on request."""

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:  # noqa: N802 (Spark's name)
        from paimon_sql.spark.filters import convert_filters

        table = self._load()
        store = _resolved_store(table, time_travel(self.options, table))
        accepted, rejected = convert_filters(filters, store.schema.fields)
        self.predicates = [p for _, p in accepted]
        self.rejected = [repr(f) for f in rejected]
        return rejected  # the very objects Spark offered: Spark evaluates these itself


class SystemTableReader(DataSourceReader):
    """A system table (``db.t$files``): one partition, rows from the engine's ``read()`` (with the
    time-travel options where the system table supports them)."""

    def __init__(self, ref: TableRef, options: dict[str, str], schema: st.StructType) -> None:
        self.ref = ref
        self.options = options
        self.schema, self.input_file = split_input_file(schema, options)

    def partitions(self) -> list[InputPartition]:
        return [InputPartition(0)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        obj = self.ref.load()
        names = self.schema.fieldNames()
        own = [pt.DataField(i, f.name, pt.IntType()) for i, f in enumerate(obj.arrow_schema)]
        cols = [_field_by_name(own, n, f"system table {self.ref.table}").name for n in names]
        tt = time_travel(self.options, obj.table) if getattr(obj, "TIME_TRAVEL", False) else {}
        tbl = obj.read(columns=cols, **tt)
        if tbl.num_rows == 0:
            return
        tbl = tbl.select(cols).rename_columns(names)
        batch_rows = _int_option(self.options, OPT_BATCH_ROWS) or DEFAULT_BATCH_ROWS
        for b in conform_to(tbl, arrow_target(self.schema)).to_batches(max_chunksize=batch_rows):
            yield with_input_file(b, None) if self.input_file else b


# ----------------------------------------------------------------------------------------------
# Writing
# ----------------------------------------------------------------------------------------------


@dataclass
class PaimonCommitMessage(WriterCommitMessage):
    """What one task wrote: the engine's (picklable) ``CommitChanges``."""

    changes: Any  # paimon_sql.write.table_write.CommitChanges
    rows: int = 0
    partition_id: int | None = None
    marker: str | None = None  # the task's list of written files under the write's staging folder


OverwriteMode = Any  # False | True | "dynamic" | dict[str, str]


def _overwrite_mode(opts: Mapping[str, str], overwrite: bool, table: Any) -> OverwriteMode:
    mode = (opts.get(OPT_OVERWRITE) or ("full" if overwrite else "none")).strip().lower()
    if mode == "none":
        return False
    if mode in ("full", "true"):
        return True
    if mode == "dynamic":
        return "dynamic" if table.partition_keys else True
    if mode == "static":
        raw = opts.get(OPT_OVERWRITE_PARTITION) or "{}"
        try:
            spec = json.loads(raw)
        except json.JSONDecodeError as e:
            raise ValidationError(f"Option {OPT_OVERWRITE_PARTITION!r} must be a JSON object, got {raw!r}: {e}") from None
        if not isinstance(spec, dict):
            raise ValidationError(f"Option {OPT_OVERWRITE_PARTITION!r} must be a JSON object, got {raw!r}")
        bad = [k for k in spec if k not in table.partition_keys]
        if bad:
            raise ValidationError(
                f"Static overwrite of table {table.name}: {bad} are not partition columns "
                f"(partition keys: {table.partition_keys})"
            )
        # a null value names the default partition (where rows with a null partition value live)
        default = table.store.options.partition_default_name
        return {k: (default if v is None else str(v)) for k, v in spec.items()} if spec else True
    raise ValidationError(
        f"Option {OPT_OVERWRITE!r} must be one of none, full, dynamic, static; got {opts.get(OPT_OVERWRITE)!r}"
    )


def _same_spark_type(a: st.DataType, b: st.DataType) -> bool:
    """Equal types, ignoring nullability (checked on the data) and CHAR/VARCHAR lengths."""
    if isinstance(a, (st.StringType, st.CharType, st.VarcharType)):
        return isinstance(b, (st.StringType, st.CharType, st.VarcharType))
    if isinstance(a, st.ArrayType) and isinstance(b, st.ArrayType):
        return _same_spark_type(a.elementType, b.elementType)
    if isinstance(a, st.MapType) and isinstance(b, st.MapType):
        return _same_spark_type(a.keyType, b.keyType) and _same_spark_type(a.valueType, b.valueType)
    if isinstance(a, st.StructType) and isinstance(b, st.StructType):
        return len(a.fields) == len(b.fields) and all(
            x.name == y.name and _same_spark_type(x.dataType, y.dataType) for x, y in zip(a.fields, b.fields)
        )
    return bool(a == b)


def _check_write_schema(schema: st.StructType, table: Any) -> list[tuple[str, str]]:
    """(input column, table column) pairs; the input must have the table's columns (by name,
    case-insensitively) with the types Spark reads them as."""
    fields = list(table.schema.fields)
    by_lower: dict[str, pt.DataField] = {f.name.lower(): f for f in fields}
    pairs: list[tuple[str, str]] = []
    unknown, seen, wrong = [], set(), []
    for sf in schema.fields:
        tf = by_lower.get(sf.name.lower())
        if tf is None:
            unknown.append(sf.name)
            continue
        seen.add(tf.name)
        pairs.append((sf.name, tf.name))
        want = spark_type(tf.type)
        if not _same_spark_type(want, sf.dataType):
            wrong.append(f"{sf.name}: {sf.dataType.simpleString()} (table has {want.simpleString()})")
    missing = [f.name for f in fields if f.name not in seen]
    problems = []
    if missing:
        problems.append(f"missing columns {missing}")
    if unknown:
        problems.append(f"unknown columns {unknown}")
    if wrong:
        problems.append(f"type mismatch in {wrong}")
    if problems:
        raise ValidationError(
            f"Cannot write to table {table.name}: the data's schema does not match the table's "
            f"({'; '.join(problems)}). Table schema: {spark_schema(fields).simpleString()}"
        )
    return pairs


class PaimonWriter(DataSourceArrowWriter):
    """Pickled once on the driver and sent to every task and back to the driver's commit.

    Failed and lost task attempts must leave no files. Each task attempt names all its data files
    ``data-<attempt uuid>-<n>`` and keeps a marker file ``<table>/.spark-writes/<write id>/<attempt
    uuid>.json`` listing what it has written (created before its first file, rewritten after every
    flush). A task whose input ends because the job failed upstream finishes "normally" in Python
    and its message never reaches the driver; a task killed by Spark may die in the middle of a
    flush. ``abort()`` (and ``commit()``, for failed or duplicate attempts) deletes the files the
    markers list and every file named with their attempt uuids. ``abort()`` (and ``commit()`` when
    it found such attempts) first leaves a ``_FINISHED`` tombstone: a task still running checks it
    before each flush and after recording its files, and deletes them itself. As Spark kills the
    Python workers of a failed job's tasks a few seconds later (maybe before they cleaned up),
    ``abort()`` looks again after ``ABORT_SETTLE_SECONDS`` when some attempt had not finished.
    Tombstones older than ten minutes are removed (with their folder) by the next write to the
    table."""

    def __init__(
        self, ref: TableRef, store: StoreRef, table_name: str, overwrite: OverwriteMode,
        columns: list[tuple[str, str]], base_snapshot: int | None,
    ) -> None:
        self.ref = ref
        self.store = store
        self.table_name = table_name
        self.overwrite = overwrite
        self.columns = columns
        self.base_snapshot = base_snapshot
        self.write_id = uuid.uuid4().hex

    @property
    def staging_dir(self) -> str:
        return join(self.store.path, STAGING_DIR, self.write_id)

    def _table(self) -> Any:
        from paimon_sql.table.table import Table

        s = self.store
        return Table(s.file_io, s.path, self.table_name, s.schema, s.branch)

    # -- executors -------------------------------------------------------------------------------
    def write(self, iterator: Iterator[pa.RecordBatch]) -> PaimonCommitMessage:
        store = self.store.open()
        fio = store.file_io
        base = store.snapshots.snapshot(self.base_snapshot) if self.base_snapshot is not None else None
        attempt = str(uuid.uuid4())
        tw = _AttemptTableWrite(store, base, attempt)
        marker = join(self.staging_dir, f"{attempt}.json")
        tombstone = join(self.staging_dir, FINISHED)
        recorded = -1

        def check() -> None:
            if fio.exists(tombstone):
                raise PaimonError(
                    f"The Spark write {self.write_id} into {self.table_name} has already been aborted "
                    "or committed without this task attempt: its files are deleted"
                )

        def record(done: bool = False) -> None:
            nonlocal recorded
            paths = tw.changes.written_paths
            if len(paths) != recorded or done:
                doc = {"attempt": attempt, "paths": paths, "done": done}
                fio.write_bytes(marker, json.dumps(doc).encode())
                recorded = len(paths)
                check()  # after writing the marker: see the class docstring

        rows = 0
        try:
            record()  # before any data file exists
            buf: list[pa.RecordBatch] = []
            buf_rows = 0
            for batch in iterator:
                if batch.num_rows == 0:
                    continue
                buf.append(batch)
                buf_rows += batch.num_rows
                if buf_rows >= WRITE_CHUNK_ROWS:
                    check()  # a task of a finished write stops before writing more files
                    tw.write(self._prepare(buf, store))  # flushes one sorted run when the buffer is full
                    rows += buf_rows
                    buf, buf_rows = [], 0
                    record()
            check()
            if buf:
                tw.write(self._prepare(buf, store))
                rows += buf_rows
            changes = tw.prepare_commit()
            record(done=True)
        except BaseException:
            tw.abort()
            fio.delete_quietly(marker)
            raise
        return PaimonCommitMessage(changes, rows, _task_partition_id(), marker)

    def _prepare(self, batches: list[pa.RecordBatch], store: FileStore) -> pa.Table:
        """Spark's batches as one contiguous table of the table's columns (sorting and bucketing
        contiguous arrays is faster); time units are truncated like Paimon's Spark writer does
        (Spark has microseconds, TIMESTAMP(3) keeps milliseconds)."""
        tbl = pa.Table.from_batches(batches).combine_chunks()
        arrays, names = [], []
        for src, dst in self.columns:
            col = tbl.column(src)
            want = pt.to_arrow_type(store.schema.field(dst).type)
            if not col.type.equals(want) and _is_temporal(col.type) and _is_temporal(want):
                col = col.cast(want, safe=False)
            arrays.append(col)
            names.append(dst)
        return pa.Table.from_arrays(arrays, names=names)

    # -- driver ----------------------------------------------------------------------------------
    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        ok = [m for m in messages if isinstance(m, PaimonCommitMessage)]
        self._table().commit_changes([m.changes for m in ok], self.overwrite)
        fio = self.store.file_io
        keep = {m.marker for m in ok if m.marker}
        lost = [s_ for s_ in fio.list_status(self.staging_dir)
                if not s_.is_dir and join(self.staging_dir, basename(s_.path)) not in keep
                and s_.path.endswith(".json")]
        if lost:  # failed or duplicate task attempts: their files go (never those committed)
            fio.write_bytes(join(self.staging_dir, FINISHED), b"")
            self._clean_markers(keep)
            for m in keep:
                fio.delete_quietly(m)
        else:
            fio.delete_dir(self.staging_dir)
            self._remove_empty_staging_root()

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        changes = [m.changes if isinstance(m, PaimonCommitMessage) else None for m in messages]
        fio = self.store.file_io
        try:
            self._table().abort_changes(changes)
        finally:
            fio.write_bytes(join(self.staging_dir, FINISHED), b"")  # before reading the markers
            running = self._clean_markers(set())
            if running:
                # Attempts that had not finished may still be flushing (Spark kills their Python
                # workers a few seconds after the job failed, possibly before they saw the
                # tombstone and removed their files): look again once they are gone.
                time.sleep(ABORT_SETTLE_SECONDS)
                self._clean_markers(set(), attempts=running)

    def _clean_markers(
        self, keep: set[str], staging_dir: str | None = None, attempts: Sequence[str] = ()
    ) -> list[str]:
        """Deletes the files of the task attempts whose markers are not in ``keep`` (and of
        ``attempts``): those the markers list, and any other file named with their attempt uuids
        (written by an attempt killed in the middle of a flush). Then the markers. Returns the
        attempts whose markers did not say they had finished."""
        fio = self.store.file_io
        folder = staging_dir or self.staging_dir
        found: list[str] = list(attempts)
        unfinished: list[str] = []
        markers = []
        for status in fio.list_status(folder):
            path = join(folder, basename(status.path))
            if status.is_dir or path in keep or not path.endswith(".json"):
                continue
            markers.append(path)
            attempt = basename(path)[: -len(".json")]
            found.append(attempt)
            try:
                doc = json.loads(fio.read_bytes(path))
                paths, done = list(doc.get("paths", [])), bool(doc.get("done"))
            except (OSError, ValueError, AttributeError, PaimonError):
                paths, done = [], False
            if not done:
                unfinished.append(attempt)
            for p in paths:
                fio.delete_quietly(p)
        if found:
            for f in fio.walk_files(self.store.path):
                name = basename(f.path)
                if any(a in name for a in found) and STAGING_DIR not in f.path:
                    fio.delete_quietly(f.path)
        for path in markers:
            fio.delete_quietly(path)
        return unfinished

    def remove_stale_staging(self, older_than_ms: int = 10 * 60 * 1000) -> None:
        """Removes the staging folders of writes finished (see the tombstone) more than
        ``older_than_ms`` ago."""
        fio = self.store.file_io
        root = join(self.store.path, STAGING_DIR)
        now_ms = int(time.time() * 1000)
        for status in fio.list_status(root):
            if not status.is_dir:
                continue
            folder = join(root, basename(status.path))
            try:
                finished = fio.status(join(folder, FINISHED))
            except PaimonError:
                continue  # a write in progress: not ours to touch
            if now_ms - finished.mtime_ms > older_than_ms:
                self._clean_markers(set(), folder)
                fio.delete_dir(folder)
        self._remove_empty_staging_root()

    def _remove_empty_staging_root(self) -> None:
        fio = self.store.file_io
        if fio.is_local:  # only when empty: another write may be using it
            with contextlib.suppress(OSError):  # not empty, or already gone
                os.rmdir(join(self.store.path, STAGING_DIR))


class _AttemptTableWrite(TableWrite):
    """A TableWrite whose data files are all named ``<prefix><attempt uuid>-<n>.<format>`` (one
    uuid per task attempt instead of one per bucket), so that files of a dead attempt can be found."""

    def __init__(self, store: FileStore, base: Any, attempt: str) -> None:
        super().__init__(store, base)
        self.attempt = attempt

    def _namer(self, partition: bytes, bucket: int) -> FileNamer:
        k = (partition, bucket)
        if k not in self.namers:
            opts = self.store.options
            self.namers[k] = FileNamer(opts.data_file_prefix, opts.file_format, uuid=self.attempt)
        return self.namers[k]


def _is_temporal(t: pa.DataType) -> bool:
    return bool(pa.types.is_timestamp(t) or pa.types.is_time(t))


def _task_partition_id() -> int | None:
    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        return ctx.partitionId() if ctx is not None else None
    except Exception:  # noqa: BLE001 - outside a task
        return None


__all__ = [
    "NAME",
    "DefaultSource",
    "PaimonCommitMessage",
    "PaimonDataSource",
    "PaimonReader",
    "PaimonWriter",
    "SplitPartition",
    "StoreRef",
    "SystemTableReader",
    "TableRef",
    "arrow_target",
    "conform_to",
    "spark_schema",
    "spark_schema_of_arrow",
    "spark_type",
    "time_travel",
]
