"""The ``paimon_sql`` Spark Python data source: table data moves through Spark's Python workers.

Reads: ``partitions()`` runs once per query on the driver side (in a Python worker the driver
starts): it plans the table (snapshot → manifests → pruned splits) and packs the splits' files into
input partitions; ``read()`` runs in the executors' Python workers, one task per input partition,
and yields Arrow record batches that match Spark's requested schema exactly (names, types,
nullability).

Streaming reads: ``streamReader()`` returns a ``PaimonStreamReader``
(``paimon_sql.spark.stream_reader``): offsets, read limits and consumers are planned in one Python
process on the driver, each split is read by one task. Option ``read.changelog`` = true adds a first
``rowkind`` column to the schema (streams only; a batch read refuses the option).

Writes: ``write()`` runs once per Spark task with the task's Arrow batches and one engine
``TableWrite``; it returns the task's ``CommitChanges`` in a commit message. ``commit()`` runs once
on the driver with every task's message and commits ONE snapshot (append or overwrite);
``abort()`` deletes every file of the write, also those of failed, lost or late task attempts
(see ``PaimonWriter``). Streaming writes (``streamWriter``, once per micro-batch) wrap that writer
and commit each batch exactly once (see ``paimon_sql.spark.stream_writer``).

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
  this file;
- ``paimon.job.procedure`` / ``.state`` / ``.tasks``: run a procedure's tasks instead of reading a
  table (see ``paimon_sql.spark.jobs``; the catalog shim sets them for ``CALL sys.compact``).

The code lives by concern: ``paimon_sql.spark.reader`` (input partitions and readers),
``paimon_sql.spark.writer`` (the writer, commit messages, staging, overwrite modes),
``paimon_sql.spark.source_schema`` (Spark schemas, conforming Arrow tables) and
``paimon_sql.spark.store_ref`` (stores sent to executors); this module keeps the ``DataSource``
and re-exports their names.

See docs/spark-datasource.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import types as st
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader

from paimon_sql.lazy import lazy_attributes

if TYPE_CHECKING:
    from paimon_sql.spark.reader import (
        DEFAULT_BATCH_ROWS,
        INPUT_FILE_COLUMN,
        PaimonReader,
        PushdownReader,
        SplitPartition,
        SystemTableReader,
        split_input_file,
        with_input_file,
    )
    from paimon_sql.spark.source_options import (  # noqa: F401 (re-exported: the source's options)
        NAME,
        OPT_BATCH_ROWS,
        OPT_FILTER_PUSHDOWN,
        OPT_INPUT_FILE,
        OPT_OVERWRITE,
        OPT_OVERWRITE_PARTITION,
        OPT_PARALLELISM,
        OPT_PATH,
        OPT_ROW_LEVEL,
        OPT_ROW_LEVEL_COMMAND,
        OPT_SCAN_LOG,
        OPT_SNAPSHOT_ID,
        OPT_SPLIT_OPEN_FILE_COST,
        OPT_SPLIT_TARGET_SIZE,
        OPT_TABLE,
        OPT_TAG_NAME,
        OPT_TIME_ZONE,
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
    from paimon_sql.spark.source_schema import (
        arrow_target,
        conform_to,
        spark_schema,
        spark_schema_of_arrow,
        spark_type,
    )
    from paimon_sql.spark.store_ref import StoreRef
    from paimon_sql.spark.stream_writer import PaimonStreamWriter
    from paimon_sql.spark.writer import (
        ABORT_SETTLE_SECONDS,
        FINISHED,
        STAGING_DIR,
        WRITE_CHUNK_ROWS,
        OverwriteMode,
        PaimonCommitMessage,
        PaimonWriter,
    )

# Spark imports this module in a fresh Python process for each step of a statement (the data source
# lookup, the schema, the write or read planning, the commit): it imports only pyspark; each method
# imports the engine parts it runs, and the names below (this module's public surface) load on first use.
_REEXPORTS = {
    "NotFoundError": "paimon_sql.errors",
    "ValidationError": "paimon_sql.errors",
    "JOB_SCHEMA": "paimon_sql.spark.jobs",
    "JobReader": "paimon_sql.spark.jobs",
    "is_job": "paimon_sql.spark.jobs",
    "DEFAULT_BATCH_ROWS": "paimon_sql.spark.reader",
    "INPUT_FILE_COLUMN": "paimon_sql.spark.reader",
    "PaimonReader": "paimon_sql.spark.reader",
    "PushdownReader": "paimon_sql.spark.reader",
    "SplitPartition": "paimon_sql.spark.reader",
    "SystemTableReader": "paimon_sql.spark.reader",
    "split_input_file": "paimon_sql.spark.reader",
    "with_input_file": "paimon_sql.spark.reader",
    "is_row_level": "paimon_sql.spark.row_level",
    "row_level_writer": "paimon_sql.spark.row_level",
    "NAME": "paimon_sql.spark.source_options",
    "OPT_BATCH_ROWS": "paimon_sql.spark.source_options",
    "OPT_FILTER_PUSHDOWN": "paimon_sql.spark.source_options",
    "OPT_INPUT_FILE": "paimon_sql.spark.source_options",
    "OPT_OVERWRITE": "paimon_sql.spark.source_options",
    "OPT_OVERWRITE_PARTITION": "paimon_sql.spark.source_options",
    "OPT_PARALLELISM": "paimon_sql.spark.source_options",
    "OPT_PATH": "paimon_sql.spark.source_options",
    "OPT_ROW_LEVEL": "paimon_sql.spark.source_options",
    "OPT_ROW_LEVEL_COMMAND": "paimon_sql.spark.source_options",
    "OPT_SCAN_LOG": "paimon_sql.spark.source_options",
    "OPT_SNAPSHOT_ID": "paimon_sql.spark.source_options",
    "OPT_SPLIT_OPEN_FILE_COST": "paimon_sql.spark.source_options",
    "OPT_SPLIT_TARGET_SIZE": "paimon_sql.spark.source_options",
    "OPT_TABLE": "paimon_sql.spark.source_options",
    "OPT_TAG_NAME": "paimon_sql.spark.source_options",
    "OPT_TIME_ZONE": "paimon_sql.spark.source_options",
    "OPT_TIMESTAMP_MILLIS": "paimon_sql.spark.source_options",
    "OPT_VERSION": "paimon_sql.spark.source_options",
    "OPT_WAREHOUSE": "paimon_sql.spark.source_options",
    "TableRef": "paimon_sql.spark.source_options",
    "_bool_option": "paimon_sql.spark.source_options",
    "_int_option": "paimon_sql.spark.source_options",
    "_lower": "paimon_sql.spark.source_options",
    "_resolved_store": "paimon_sql.spark.source_options",
    "read_snapshot": "paimon_sql.spark.source_options",
    "skip_buckets": "paimon_sql.spark.source_options",
    "time_travel": "paimon_sql.spark.source_options",
    "arrow_target": "paimon_sql.spark.source_schema",
    "conform_to": "paimon_sql.spark.source_schema",
    "spark_schema": "paimon_sql.spark.source_schema",
    "spark_schema_of_arrow": "paimon_sql.spark.source_schema",
    "spark_type": "paimon_sql.spark.source_schema",
    "LEGACY_TIMESTAMP_MAPPING": "paimon_sql.spark.spark_types",
    "legacy_timestamp_mapping": "paimon_sql.spark.spark_types",
    "StoreRef": "paimon_sql.spark.store_ref",
    "PaimonStreamReader": "paimon_sql.spark.stream_reader",
    "changelog_schema": "paimon_sql.spark.stream_reader",
    "read_changelog": "paimon_sql.spark.stream_reader",
    "PaimonStreamWriter": "paimon_sql.spark.stream_writer",
    "stream_writer": "paimon_sql.spark.stream_writer",
    "ABORT_SETTLE_SECONDS": "paimon_sql.spark.writer",
    "FINISHED": "paimon_sql.spark.writer",
    "STAGING_DIR": "paimon_sql.spark.writer",
    "WRITE_CHUNK_ROWS": "paimon_sql.spark.writer",
    "OverwriteMode": "paimon_sql.spark.writer",
    "PaimonCommitMessage": "paimon_sql.spark.writer",
    "PaimonWriter": "paimon_sql.spark.writer",
    "_check_write_schema": "paimon_sql.spark.writer",
    "_overwrite_mode": "paimon_sql.spark.writer",
}


__getattr__ = lazy_attributes(__name__, _REEXPORTS, globals())


# ----------------------------------------------------------------------------------------------
# The data source
# ----------------------------------------------------------------------------------------------


class PaimonDataSource(DataSource):
    """``spark.read.format("paimon_sql").option("warehouse", ...).option("table", "db.t")``."""

    @classmethod
    def name(cls) -> str:
        from paimon_sql.spark.source_options import NAME

        return NAME

    def schema(self) -> st.StructType:
        from paimon_sql.errors import NotFoundError
        from paimon_sql.spark.jobs import JOB_SCHEMA, is_job
        from paimon_sql.spark.source_options import TableRef, _lower, _resolved_store, time_travel
        from paimon_sql.spark.source_schema import spark_schema, spark_schema_of_arrow
        from paimon_sql.spark.spark_types import LEGACY_TIMESTAMP_MAPPING, legacy_timestamp_mapping
        from paimon_sql.spark.stream_reader import changelog_schema, read_changelog

        if is_job(_lower(self.options)):
            return JOB_SCHEMA
        ref = TableRef.of(self.options)
        obj = ref.load(self.options)
        legacy = legacy_timestamp_mapping(_lower(self.options).get(LEGACY_TIMESTAMP_MAPPING))
        if ref.is_system:
            fields = getattr(obj, "fields", None)  # Paimon's declared column types
            return (spark_schema(fields, legacy) if fields is not None
                    else spark_schema_of_arrow(obj.arrow_schema, legacy))
        try:
            store = _resolved_store(obj, time_travel(self.options, obj))
        except NotFoundError:
            # a stream may start at a snapshot to come (scan.snapshot-id) or before the first one
            # (scan.timestamp-millis): it reads with the current schema; a batch read of such a
            # snapshot fails in reader() with this same error
            store = obj.store
        schema = spark_schema(store.schema.fields, legacy)
        return changelog_schema(schema) if read_changelog(self.options) else schema

    def reader(self, schema: st.StructType) -> DataSourceReader:
        from paimon_sql.spark.jobs import JobReader, is_job
        from paimon_sql.spark.reader import PaimonReader, PushdownReader, SystemTableReader
        from paimon_sql.spark.source_options import OPT_FILTER_PUSHDOWN, TableRef, _bool_option, _lower

        opts = _lower(self.options)
        if is_job(opts):
            return JobReader(opts)
        ref = TableRef.of(self.options)
        if ref.is_system:
            return SystemTableReader(ref, opts, schema)
        if _bool_option(opts, OPT_FILTER_PUSHDOWN):
            return PushdownReader(ref, opts, schema)
        return PaimonReader(ref, opts, schema)

    def streamReader(self, schema: st.StructType) -> DataSourceStreamReader:  # noqa: N802 (Spark's name)
        from paimon_sql.spark.source_options import TableRef, _lower
        from paimon_sql.spark.stream_reader import PaimonStreamReader

        return PaimonStreamReader(TableRef.of(self.options), _lower(self.options), schema)

    def writer(self, schema: st.StructType, overwrite: bool, merge_schema: bool = False) -> PaimonWriter:
        """The batch writer. ``merge_schema``: a streaming write with ``write.merge-schema`` whose
        schema was merged into the table's (``stream_writer.merge_stream_schema``): the data's
        columns are matched to the table's by name, missing ones null, others cast."""
        from paimon_sql.errors import ValidationError
        from paimon_sql.spark.row_level import is_row_level, row_level_writer
        from paimon_sql.spark.source_options import (
            OPT_ROW_LEVEL,
            OPT_ROW_LEVEL_COMMAND,
            OPT_TIME_ZONE,
            TableRef,
            _lower,
        )
        from paimon_sql.spark.spark_types import LEGACY_TIMESTAMP_MAPPING, legacy_timestamp_mapping
        from paimon_sql.spark.store_ref import StoreRef
        from paimon_sql.spark.writer import PaimonWriter, _check_write_schema, _overwrite_mode

        ref = TableRef.of(self.options)
        if ref.is_system:
            raise ValidationError(f"Cannot write into system table {ref.table}: system tables are read-only")
        table = ref.load(self.options)
        opts = _lower(self.options)
        if is_row_level(opts):  # UPDATE / MERGE INTO / DELETE of an append table
            return row_level_writer(ref, table, schema, opts)
        mode = _overwrite_mode(opts, overwrite, table)
        row_level = opts.get(OPT_ROW_LEVEL)
        if row_level:  # UPDATE / MERGE INTO / DELETE: Spark's row operation, then the table's columns
            schema = st.StructType(schema.fields[1:])
        if merge_schema:
            columns = [(f.name, f.name) for f in table.schema.fields]
        else:
            columns = _check_write_schema(schema, table, legacy_timestamp_mapping(opts.get(LEGACY_TIMESTAMP_MAPPING)))
        latest = table.latest_snapshot()
        writer = PaimonWriter(
            ref, StoreRef.of(table.store), table.table_name, mode, columns,
            latest.id if latest is not None else None, opts.get(OPT_TIME_ZONE),
        )
        if row_level:
            writer.row_level = opts.get(OPT_ROW_LEVEL_COMMAND) or "UPDATE"
        writer.merge_schema = merge_schema
        writer.remove_stale_staging()
        return writer

    def streamWriter(self, schema: st.StructType, overwrite: bool) -> PaimonStreamWriter:  # noqa: N802 - Spark's name
        """One micro-batch of a streaming write (see ``paimon_sql.spark.stream_writer``)."""
        from paimon_sql.spark.stream_writer import stream_writer

        return stream_writer(self, schema, overwrite)


DefaultSource = PaimonDataSource  # the name Spark's auto-discovery of ``pyspark_*`` modules looks for



__all__ = [
    "ABORT_SETTLE_SECONDS",
    "DEFAULT_BATCH_ROWS",
    "FINISHED",
    "INPUT_FILE_COLUMN",
    "NAME",
    "STAGING_DIR",
    "WRITE_CHUNK_ROWS",
    "DefaultSource",
    "OverwriteMode",
    "PaimonCommitMessage",
    "PaimonDataSource",
    "PaimonReader",
    "PaimonStreamWriter",
    "PaimonWriter",
    "PushdownReader",
    "SplitPartition",
    "StoreRef",
    "SystemTableReader",
    "TableRef",
    "arrow_target",
    "conform_to",
    "spark_schema",
    "spark_schema_of_arrow",
    "spark_type",
    "split_input_file",
    "time_travel",
    "with_input_file",
]
