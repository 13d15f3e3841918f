"""Structured Streaming reads of the ``paimon_sql`` data source (``spark.readStream``): Paimon's
Spark ``PaimonMicroBatchStream`` on pyspark's Python streaming API.

The reader lives in one Python process on the driver for the whole query: it plans offsets
(``initialOffset``, ``latestOffset`` with Spark's read limit, ``partitions(start, end)``: one input
partition per split) and records a consumer's progress in ``commit(end)``, which Spark calls once
a batch is done. ``read`` runs in the executors' Python workers, one task per split. The engine side
(starting scans, follow-up scans, offsets, limits) is ``paimon_sql.scan.streaming``.

``t$audit_log`` streams too: the table's stream with each row's kind first (Paimon's
``AuditLogTable`` stream scan; ``_SEQUENCE_NUMBER`` next with ``table-read.sequence-number.enabled``).

Options (besides the table's own and the source's ``warehouse`` / ``table`` / ``path``):
``scan.mode``, ``scan.snapshot-id``, ``scan.timestamp-millis``, ``scan.timestamp``, ``consumer-id``
(and every other Paimon table option, as dynamic options), ``read.changelog`` (a first ``rowkind``
column), and the read limits ``read.stream.maxFilesPerTrigger``, ``read.stream.maxBytesPerTrigger``,
``read.stream.maxRowsPerTrigger``, ``read.stream.minRowsPerTrigger`` + ``read.stream.maxTriggerDelayMs``.

Spark offers a Python source one read limit type at a time: ``getDefaultReadLimit`` reports one of
the configured limits (so that Spark asks with a limit), and ``latestOffset`` applies all of them
unless Spark asks for everything (``ReadAllAvailable``: ``Trigger.Once``).
``Trigger.AvailableNow`` is supported: ``prepareForTriggerAvailableNow`` fixes the latest snapshot,
and the query ends once it has read up to it (in batches under the read limits).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxBytes,
    ReadMaxFiles,
    ReadMaxRows,
    ReadMinRows,
    SupportsTriggerAvailableNow,
)

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.merge import SEQ
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.travel import TRAVEL_OPTIONS
from paimon_sql.scan.split import DataSplit
from paimon_sql.scan.streaming import (
    ROWKIND_COLUMN,
    ReadLimits,
    StreamOffset,
    StreamScan,
    _now_ms,
    read_stream_split,
)
from paimon_sql.spark.reader import DEFAULT_BATCH_ROWS
from paimon_sql.spark.source_options import OPT_BATCH_ROWS, OPT_TIME_ZONE, TableRef, _bool_option, _int_option
from paimon_sql.spark.source_schema import _field_by_name, arrow_target, conform_to
from paimon_sql.spark.store_ref import StoreRef
from paimon_sql.spark.worker_memory import prepare_worker

OPT_READ_CHANGELOG = "read.changelog"
AUDIT_LOG = "audit_log"


class StreamSplitPartition(InputPartition):
    """One split of a micro-batch (one Spark task)."""

    def __init__(self, index: int, store: StoreRef, split: DataSplit, scan_snapshot: bool) -> None:
        super().__init__(index)
        self.store = store
        self.split = split
        self.scan_snapshot = scan_snapshot

    def __repr__(self) -> str:
        return (f"StreamSplitPartition({self.value}, {self.store.name}, snapshot={self.split.snapshot_id}, "
                f"bucket={self.split.bucket}, files={len(self.split.files)}, full={self.scan_snapshot})")


def read_changelog(options: Mapping[str, str]) -> bool:
    """Option ``read.changelog`` (rows with a first ``rowkind`` column)."""
    return _bool_option({k.lower(): v for k, v in options.items()}, OPT_READ_CHANGELOG)


def changelog_schema(schema: st.StructType) -> st.StructType:
    """``schema`` with Paimon's audit-log ``rowkind`` column first."""
    return st.StructType([st.StructField(ROWKIND_COLUMN, st.StringType(), False), *schema.fields])


def stream_table(ref: TableRef, options: Mapping[str, str]) -> Any:
    """The engine table a stream reads: the table with the query's Paimon options as dynamic
    options, the starting options (``scan.snapshot-id``, ``scan.timestamp-millis``...) included:
    a stream starts there instead of travelling in time."""
    opts = {k: v for k, v in options.items() if k.lower() != OPT_READ_CHANGELOG}
    if str(opts.get("scan.mode", "")).strip().lower() == "incremental":
        raise UnsupportedError(f"Cannot read incremental in streaming mode. (table {ref.table}: option 'scan.mode')")
    table = ref.load(opts)
    start = {k.lower(): str(v) for k, v in opts.items() if k.lower() in TRAVEL_OPTIONS and str(v) != ""}
    return table.copy(start) if start else table


def audit_log_base(ref: TableRef) -> TableRef | None:
    """The table whose stream ``ref`` reads when it names ``t$audit_log`` (None for a data table);
    other system tables cannot be streamed."""
    if not ref.is_system:
        return None
    from paimon_sql.catalog.identifier import Identifier

    ident = Identifier.parse(ref.table)
    if ident.system_table != AUDIT_LOG or ident.in_system_database:
        raise ValidationError(f"Streaming reads of system table {ref.table} are not supported yet (of the system "
                              f"tables, only $audit_log streams)")
    return dataclasses.replace(ref, table=f"{ident.database}.{ident.table_name}")


class PaimonStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """``spark.readStream.format("paimon_sql")...load()`` (and the catalog's tables through the shim)."""

    def __init__(self, ref: TableRef, options: dict[str, str], schema: st.StructType) -> None:
        audit = audit_log_base(ref)
        self.ref = audit or ref
        self.options = options
        self.schema = schema
        # t$audit_log: the table's stream with each row's kind first (and _SEQUENCE_NUMBER when the
        # table has table-read.sequence-number.enabled), as Paimon's AuditLogTable streams it
        self.row_kind = audit is not None or read_changelog(options)
        self.sequence_number = audit is not None and len(schema.fields) > 1 and schema.fields[1].name == SEQ
        if self.row_kind and (not schema.fields or schema.fields[0].name != ROWKIND_COLUMN):
            raise UnsupportedError(
                f"Option {OPT_READ_CHANGELOG!r} of a streaming read of table {ref.table}: the rows with their row "
                "kind are read by path, spark.readStream.format('paimon').option('read.changelog', 'true')"
                ".load('<warehouse>/<db>.db/<table>'), as in Paimon"
            )
        self.limits = ReadLimits.of(options)
        self._scan: StreamScan | None = None  # driver side only
        self._last_trigger_ms = 0
        self._available_now: int | None = None  # the last snapshot a Trigger.AvailableNow query reads
        self._available_now_set = False
        self._init: StreamOffset | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_scan"] = None
        return state

    @property
    def scan(self) -> StreamScan:
        if self._scan is None:
            self._scan = StreamScan(stream_table(self.ref, self.options).store)
        return self._scan

    # -- offsets ---------------------------------------------------------------------------------
    def initialOffset(self) -> dict:  # noqa: N802 (Spark's name)
        if self._init is None:
            self._init = self.scan.initial_offset()
        return self._init.to_json()

    def getDefaultReadLimit(self) -> ReadLimit:  # noqa: N802
        lim = self.limits
        if lim.max_bytes is not None:
            return ReadMaxBytes(lim.max_bytes)
        if lim.max_files is not None:
            return ReadMaxFiles(lim.max_files)
        if lim.max_rows is not None:
            return ReadMaxRows(lim.max_rows)
        if lim.min_rows is not None:
            return ReadMinRows(lim.min_rows)
        return ReadAllAvailable()

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802
        self._available_now = self.scan.store.snapshots.latest_id() or 0
        self._available_now_set = True

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:  # noqa: N802
        scan = self.scan
        begin = scan.normalize_start(StreamOffset.from_json(start))
        limits = None if isinstance(limit, ReadAllAvailable) else self.limits
        cap = self._available_now if self._available_now_set else None
        end = scan.latest_offset(begin, limits, self._last_trigger_ms, cap)
        if end is None:
            return start
        self._last_trigger_ms = _now_ms()
        return end.to_json()

    def reportLatestOffset(self) -> dict | None:  # noqa: N802
        return None

    def partitions(self, start: dict, end: dict) -> Sequence[InputPartition]:
        scan = self.scan
        last = StreamOffset.from_json(end)
        if StreamOffset.from_json(start) == last:
            return []
        first = scan.normalize_start(StreamOffset.from_json(start))
        scan.check_range(first, last)
        splits = scan.batch(first, last)
        ref = StoreRef.of(scan.store)
        return [StreamSplitPartition(i, ref, s.split, s.scan_snapshot) for i, s in enumerate(splits)]

    def commit(self, end: dict) -> None:
        self.scan.commit(StreamOffset.from_json(end))

    def stop(self) -> None:
        self._scan = None

    # -- executors -------------------------------------------------------------------------------
    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, StreamSplitPartition):
            return
        prepare_worker()
        store: FileStore = partition.store.open()
        names = self.schema.fieldNames()
        names = names[int(self.row_kind) + int(self.sequence_number):]
        fields = [_field_by_name(store.schema.fields, n, f"table {store.name}") for n in names]
        tbl = read_stream_split(store, partition.split, fields, partition.scan_snapshot, self.row_kind,
                                self.sequence_number)
        if tbl.num_rows == 0:
            return
        target = arrow_target(self.schema)
        tbl = tbl.rename_columns([t.name for t in target])
        batch_rows = _int_option(self.options, OPT_BATCH_ROWS) or DEFAULT_BATCH_ROWS
        yield from conform_to(tbl, target, self.options.get(OPT_TIME_ZONE)).to_batches(max_chunksize=batch_rows)


__all__ = ["PaimonStreamReader", "audit_log_base", "StreamSplitPartition", "changelog_schema", "read_changelog", "stream_table"]
