"""Reading with the ``paimon_sql`` data source: planning splits into input partitions on the
driver side, and reading them as Arrow batches in the executors' Python workers (see
``paimon_sql.spark.datasource``)."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.datasource import DataSourceReader, Filter, InputPartition

from paimon_sql import types as pt
from paimon_sql.errors import NotFoundError, PaimonError, ValidationError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.predicate import Predicate, and_, referenced_columns
from paimon_sql.scan.metadata_columns import is_metadata_column, read_split_with_metadata
from paimon_sql.scan.split import DataSplit
from paimon_sql.spark.native_read import local_path
from paimon_sql.spark.source_options import (
    OPT_BATCH_ROWS,
    OPT_INPUT_FILE,
    OPT_PARALLELISM,
    OPT_SCAN_LOG,
    OPT_SPLIT_OPEN_FILE_COST,
    OPT_SPLIT_TARGET_SIZE,
    OPT_TIME_ZONE,
    TableRef,
    _bool_option,
    _int_option,
    _resolved_store,
    read_files,
    read_snapshot,
    skip_buckets,
    time_travel,
)
from paimon_sql.spark.source_schema import _field_by_name, arrow_target, conform_to
from paimon_sql.spark.spark_types import LEGACY_TIMESTAMP_MAPPING, legacy_timestamp_mapping
from paimon_sql.spark.store_ref import StoreRef
from paimon_sql.spark.worker_memory import prepare_worker

DEFAULT_BATCH_ROWS = 1 << 16
# A trailing string column the catalog shim asks of every Python scan: the data file a batch comes
# from (its first row; null when the batch merges several files or is no file's), for Spark's
# input_file_name(). The shim's columnar reader drops the column and tells Spark.
INPUT_FILE_COLUMN = "__paimon_input_file"


class ScanRefusedError(PaimonError):
    """An UnsupportedError of a scan's planning, raised from ``partitions()`` as an error that is no
    NotImplementedError (which pyspark would swallow)."""


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


@functools.lru_cache(maxsize=8)
def _null_strings(rows: int) -> pa.Array:
    """A string column of ``rows`` nulls, shared by every batch of that size (a merged batch names
    no file: allocating and zeroing its offsets took a third of a millisecond per batch)."""
    return pa.nulls(rows, pa.string())


def with_input_file(batch: pa.RecordBatch, path: str | None) -> pa.RecordBatch:
    """``batch`` plus :data:`INPUT_FILE_COLUMN`: ``path`` in the first row, nulls after it (the
    shim reads row 0 only), built from cached buffers without copying."""
    n = batch.num_rows
    if path is None or n == 0:
        col = _null_strings(n)
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
        # Paimon's metadata columns asked for (see paimon_sql.scan.metadata_columns)
        self.metadata_columns = [n for n in self.schema.fieldNames() if is_metadata_column(n)]
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
        try:
            return self._partitions()
        except NotImplementedError as e:
            # pyspark reads a NotImplementedError from partitions() as "one partition, read()
            # decides" (its old base class), so a refusal (an UnsupportedError) would read as an
            # empty table: raise it as an error Spark reports
            raise ScanRefusedError(str(e)) from e

    def _partitions(self) -> list[InputPartition]:
        table = self._load()
        pred = and_(*self.predicates) if self.predicates else None
        _, splits, _ = table.plan(pred, **read_snapshot(self.options, table))
        skip = skip_buckets(self.options)  # read by Spark's parquet reader (a mixed catalog scan)
        if skip:
            splits = [(st, sp) for st, sp in splits if (sp.partition, sp.bucket) not in skip]
        only = read_files(self.options)  # a row-level operation's scan: the files with a matching row
        if only is not None:
            splits = _only_files(splits, only)
        parts = self._pack(splits)
        self._log_scan(table, splits, parts)
        return list(parts)

    def _pack(self, splits: Sequence[tuple[FileStore, DataSplit]]) -> list[SplitPartition]:
        """Packs read units into partitions of about ``source.split.target-size`` bytes. A unit is
        one file of a split that needs no merge (append tables, raw-convertible buckets), or a
        whole bucket whose runs must be merged by key.

        Merged buckets of at least a quarter of the target (and of more data than the open cost)
        come first, spread over as few partitions as the cores and the configured target allow
        (``_spread``): buckets are indivisible, of about equal size and costly (a merge), and the
        greedy packing in order errs by up to one unit per partition, which for such units is a
        large share of a task (4 equal buckets on 2 cores became partitions of 1, 2 and 1 buckets,
        the target being a hair too small for two). The other units are packed in order."""
        if not splits:
            return []
        first = splits[0][0]
        configured = target = self._size_option(OPT_SPLIT_TARGET_SIZE, first)
        open_cost = self._size_option(OPT_SPLIT_OPEN_FILE_COST, first)
        # (store, split, weight, whether a merged bucket of at least the open cost in data)
        units: list[tuple[FileStore, DataSplit, int, bool]] = []
        for store, split in splits:
            if not store.has_primary_key or split.raw_convertible:
                for f in split.files:
                    dv = {f.file_name: split.deletion_files[f.file_name]} if f.file_name in split.deletion_files else {}
                    one = dataclasses.replace(split, files=(f,), deletion_files=dv)
                    units.append((store, one, max(f.file_size, open_cost), False))
            else:
                weight = sum(max(f.file_size, open_cost) for f in split.files)
                # a bucket of less data than one file's open cost is not worth a task of its own
                units.append((store, split, weight, sum(f.file_size for f in split.files) >= open_cost))
        # like Spark's file sources: aim for at least one partition per core (the planning process
        # cannot see Spark's default parallelism: the catalog shim passes it as an option)
        parallelism = _int_option(self.options, OPT_PARALLELISM) or os.cpu_count() or 1
        if parallelism > 0:
            total = sum(u[2] for u in units)
            target = max(open_cost, min(target, -(-total // parallelism)))
        def alone(u: tuple[FileStore, DataSplit, int, bool]) -> bool:  # a merged bucket spread apart
            return u[3] and 4 * u[2] >= target

        groups = self._spread([u for u in units if alone(u)], max(1, parallelism), configured)
        cur: list[DataSplit] = []
        cur_store: FileStore | None = None
        cur_weight = 0
        for store, split, weight, _ in (u for u in units if not alone(u)):
            if cur and (store is not cur_store or cur_weight + weight > target):
                assert cur_store is not None
                groups.append((cur_store, cur))
                cur, cur_weight = [], 0
            cur.append(split)
            cur_store = store
            cur_weight += weight
        if cur:
            assert cur_store is not None
            groups.append((cur_store, cur))
        return [SplitPartition(i, StoreRef.of(store), group) for i, (store, group) in enumerate(groups)]

    @staticmethod
    def _spread(merged: Sequence[tuple[FileStore, DataSplit, int, bool]], parallelism: int,
                target: int) -> list[tuple[FileStore, list[DataSplit]]]:
        """Merged buckets (of each store) in ``max(parallelism, their size / target)``
        partitions (at most one per bucket), the largest bucket first into the lightest partition.
        On 2 cores, 4 merged buckets are 2 tasks of 2 buckets: each task's fixed cost (a Python
        worker's set-up, the first batch's wait) is paid half as often, and a task's worker
        merges its second bucket while Spark takes the first one's batches."""
        out: list[tuple[FileStore, list[DataSplit]]] = []
        stores: list[FileStore] = []
        for u in merged:
            if not any(u[0] is s for s in stores):
                stores.append(u[0])
        for store in stores:
            own = [(i, u) for i, u in enumerate(merged) if u[0] is store]
            size = sum(u[2] for _, u in own)
            k = min(len(own), max(parallelism, -(-size // max(1, target))))
            bins: list[list[tuple[int, DataSplit]]] = [[] for _ in range(k)]
            loads = [0] * k
            for i, u in sorted(own, key=lambda iu: -iu[1][2]):
                j = loads.index(min(loads))
                bins[j].append((i, u[1]))
                loads[j] += u[2]
            out.extend((store, [sp for _, sp in sorted(b, key=lambda x: x[0])]) for b in bins)
        return out

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
            "partition_splits": [len(p.splits) for p in parts],
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
        prepare_worker()
        store = partition.store.open()
        fields: Sequence[pt.DataField] = store.schema.fields
        meta = self.metadata_columns
        data_names = [n for n in self.schema.fieldNames() if n not in meta]
        out_fields = [_field_by_name(fields, n, f"table {store.name}") for n in data_names]
        pred = and_(*self.predicates) if self.predicates else None
        read_fields = list(out_fields)
        if pred is not None:
            have = {f.name for f in read_fields}
            read_fields += [_field_by_name(fields, c, f"table {store.name}")
                            for c in sorted(referenced_columns(pred)) if c not in have]
        target = arrow_target(self.schema)
        # Spark names the columns as its schema does; the engine as the table does (case may differ)
        engine_names = iter([f.name for f in out_fields])
        names = {(n if n in meta else next(engine_names)): n for n in self.schema.fieldNames()}
        batch_rows = _int_option(self.options, OPT_BATCH_ROWS) or DEFAULT_BATCH_ROWS
        if any(_has_struct(f.type) for f in target):
            # Spark 4.3's Arrow reader of Python data sources loads only the first batch of a task
            # whose schema has a struct ("should have as many children as in the schema"): one
            # batch per task
            yield from self._one_batch(store, partition, read_fields, pred, meta, names, target)
            return
        for split, tbl in self._split_tables(store, partition, read_fields, pred, meta, names, target):
            batches = tbl.to_batches(max_chunksize=batch_rows)
            if not self.input_file:
                yield from batches
                continue
            # a batch of one file names it (as Paimon's reader does); a merge of several names none
            path = local_path(split, split.files[0]) if len(split.files) == 1 else None
            for b in batches:
                yield with_input_file(b, path)


    def _split_tables(self, store: FileStore, partition: SplitPartition, read_fields: list[pt.DataField],
                      pred: Predicate | None, meta: list[str], names: dict[str, str],
                      target: pa.Schema) -> Iterator[tuple[DataSplit, pa.Table]]:
        """Each split of the task with rows, read (with the metadata columns ``meta``), named as
        Spark's schema and conformed to ``target``."""
        from paimon_sql.scan.table_scan import expired_while_read, read_planned_split

        for split in partition.splits:
            try:
                if meta:
                    tbl = read_split_with_metadata(store, split, read_fields, pred, meta)
                else:
                    tbl = read_planned_split(store, split, read_fields, pred)
            except NotFoundError as e:  # planned on the driver; expiry deleted files since
                raise expired_while_read(store, split, e) from e
            if tbl.num_rows == 0:
                continue
            tbl = tbl.select(list(names)).rename_columns(list(names.values()))
            yield split, conform_to(tbl, target, self.options.get(OPT_TIME_ZONE))

    def _one_batch(self, store: FileStore, partition: SplitPartition, read_fields: list[pt.DataField],
                   pred: Predicate | None, meta: list[str], names: dict[str, str],
                   target: pa.Schema) -> Iterator[pa.RecordBatch]:
        """The task's rows as one batch (see ``read``)."""
        parts: list[pa.Table] = []
        paths: set[str | None] = set()
        for split, tbl in self._split_tables(store, partition, read_fields, pred, meta, names, target):
            parts.append(tbl)
            paths.add(local_path(split, split.files[0]) if len(split.files) == 1 else None)
        if not parts:
            return
        batches = pa.concat_tables(parts).combine_chunks().to_batches(max_chunksize=None)
        if not batches:
            return
        batch = batches[0]
        if self.input_file:
            yield with_input_file(batch, paths.pop() if len(paths) == 1 else None)
        else:
            yield batch


def _has_struct(t: pa.DataType) -> bool:
    """Whether an Arrow type is or holds a struct."""
    if pa.types.is_struct(t):
        return True
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _has_struct(t.value_type)
    if pa.types.is_map(t):
        return _has_struct(t.key_type) or _has_struct(t.item_type)
    return False


def _only_files(splits: Sequence[tuple[FileStore, DataSplit]],
                names: frozenset[str]) -> list[tuple[FileStore, DataSplit]]:
    """``splits`` with only the data files at the paths ``names`` (as ``__paimon_file_path`` shows
    them; splits left without a file are dropped)."""
    out = []
    for store, split in splits:
        files = tuple(f for f in split.files
                      if store.data_file_path(split.bucket_dir, f.file_name, f.external_path) in names)
        if files:
            kept = {f.file_name for f in files}
            dv = {k: v for k, v in split.deletion_files.items() if k in kept}
            out.append((store, dataclasses.replace(split, files=files, deletion_files=dv)))
    return out


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
        fields: Sequence[pt.DataField] = store.schema.fields
        if legacy_timestamp_mapping(self.options.get(LEGACY_TIMESTAMP_MAPPING)):
            # Spark TIMESTAMP literals are instants, Paimon TIMESTAMP values wall clocks of the JVM's
            # zone: Spark evaluates filters on such columns itself
            fields = [f for f in fields if not isinstance(f.type, pt.TimestampType)]
        accepted, rejected = convert_filters(filters, fields)
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
        # a system table that takes dynamic options ($audit_log, $binlog: the incremental options)
        obj = self.ref.load(self.options)
        zone = self.options.get(OPT_TIME_ZONE)
        if zone and hasattr(obj, "with_time_zone"):
            obj = obj.with_time_zone(zone)
        names = self.schema.fieldNames()
        own = [pt.DataField(i, f.name, pt.IntType()) for i, f in enumerate(obj.arrow_schema)]
        cols = [_field_by_name(own, n, f"system table {self.ref.table}").name for n in names]
        tt = time_travel(self.options, obj.table) if getattr(obj, "TIME_TRAVEL", False) else {}
        tbl = obj.read(columns=cols, **tt)
        if tbl.num_rows == 0:
            return
        tbl = tbl.select(cols).rename_columns(names)
        batch_rows = _int_option(self.options, OPT_BATCH_ROWS) or DEFAULT_BATCH_ROWS
        for b in conform_to(tbl, arrow_target(self.schema), zone).to_batches(max_chunksize=batch_rows):
            yield with_input_file(b, None) if self.input_file else b
