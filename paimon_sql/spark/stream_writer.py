"""Structured Streaming into a Paimon table: the sink of ``df.writeStream`` (``toTable("paimon.db.t")``,
``.format("paimon").start(path)`` through the catalog shim, or this Python data source directly).

Spark plans every micro-batch as a write of its own: the data source's ``streamWriter`` runs once
per batch on the driver side and returns a ``PaimonStreamWriter``; its ``write`` runs in every
task exactly as a batch write's (``PaimonWriter.write``: one engine ``TableWrite`` per task,
staging markers so that failed attempts leave no files, the writer's normal compaction; with
``full-compaction.delta-commits`` = n a full compaction of the written buckets only in every n-th
batch, as Paimon's Spark sink, instead of in every write as batch writes do), and its
``commit(messages, batch_id)`` commits the batch's changes on the driver as ONE snapshot (APPEND,
or OVERWRITE in complete output mode, plus the write's COMPACT when it compacted), through
``TableCommit`` like every other commit (post-commit maintenance included).

Exactly once. Every snapshot of a query carries the batch id as its ``commitIdentifier`` and the
query's commit user, which survives restarts: Spark's streaming query id, which Spark keeps in the
checkpoint (``<checkpoint>/metadata``). The catalog shim passes it as the option
``paimon.stream.query-id`` (``LogicalWriteInfo.queryId()``); the Python data source used directly
reads it from the option ``checkpointLocation``. With the table option ``commit.user-prefix`` the
user is ``<prefix>_<query id>`` (Paimon's ``prefix_uuid`` form). When Spark replays a batch whose
snapshot is committed already (the driver died after the Paimon commit and before Spark recorded
the batch in its commit log), ``filter_committed`` finds the batch id among the user's committed
identifiers: the replay commits nothing and its files are deleted (Paimon's own Spark sink commits
such a batch twice, apache/paimon#9666).

Output modes as Paimon's sink: append (rows are written as inserts; a primary-key table upserts
them through its merge engine) and complete (each batch overwrites the whole table). Spark refuses
update mode before asking the sink (the write builder does not take it), as Paimon refuses it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa
from pyspark.sql import types as st
from pyspark.sql.datasource import DataSourceStreamArrowWriter, WriterCommitMessage

from paimon_sql.errors import PaimonError, ValidationError
from paimon_sql.fs.file_io import FileIO, join
from paimon_sql.spark.source_options import _bool_option, _lower
from paimon_sql.spark.writer import PaimonCommitMessage, PaimonWriter

_LOG = logging.getLogger(__name__)

# the streaming query's id, set by the catalog shim's write builder (LogicalWriteInfo.queryId())
OPT_QUERY_ID = "paimon.stream.query-id"
# Spark's DataStreamWriter option: the query's checkpoint folder (holds ``metadata`` = {"id": ...})
OPT_CHECKPOINT = "checkpointlocation"
COMMIT_USER_PREFIX = "commit.user-prefix"


def query_id_of_checkpoint(location: str) -> str | None:
    """The streaming query id Spark keeps in ``<location>/metadata`` (None when not there yet)."""
    fio, root = FileIO.for_uri(location)
    path = join(root, "metadata")
    if not fio.exists(path):
        return None
    try:
        text = fio.read_bytes(path).decode("utf-8").strip().splitlines()[0]
        qid = json.loads(text).get("id")
    except (ValueError, IndexError, AttributeError, OSError, PaimonError):
        return None
    return str(qid) if qid else None


def stream_commit_user(options: Mapping[str, str], table_options: Mapping[str, str], table: str) -> str:
    """The commit user of a streaming query's snapshots: ``[<commit.user-prefix>_]<query id>``."""
    opts = _lower(options)
    qid = (opts.get(OPT_QUERY_ID) or "").strip()
    if not qid and opts.get(OPT_CHECKPOINT):
        qid = query_id_of_checkpoint(opts[OPT_CHECKPOINT]) or ""
    if not qid:
        raise ValidationError(
            f"A streaming write into table {table} needs the streaming query's id for its exactly-once "
            "commits: write through the paimon catalog (writeStream.toTable) or the paimon data source "
            "(format('paimon')), or set the option 'checkpointLocation' of the query"
        )
    prefix = opts.get(COMMIT_USER_PREFIX) or _lower(table_options).get(COMMIT_USER_PREFIX)
    return f"{prefix}_{qid}" if prefix else qid


class PaimonStreamWriter(DataSourceStreamArrowWriter):
    """One micro-batch's writer: the batch writer's tasks, then an exactly-once commit of the batch
    (see the module docstring). Pickled on the driver, sent to the tasks and to the commit."""

    def __init__(self, writer: PaimonWriter, commit_user: str) -> None:
        self.writer = writer
        self.writer.commit_user = commit_user

    @property
    def commit_user(self) -> str:
        return str(self.writer.commit_user)

    def write(self, iterator: Iterator[pa.RecordBatch]) -> PaimonCommitMessage:
        delta = self.writer.store.open().options.full_compaction_delta_commits or 0
        if delta > 0:
            # Paimon's streaming rule: a full compaction of the written buckets every
            # ``full-compaction.delta-commits`` batches (not in every batch, as batch writes do)
            batch_id = task_batch_id()
            self.writer.full_compaction = batch_id is not None and (batch_id + 1) % delta == 0
        return self.writer.write(iterator)

    def committed(self, batch_id: int) -> bool:
        """Whether this query has committed batch ``batch_id`` already."""
        return batch_id in self.writer._table().filter_committed([batch_id])

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803 - Spark's name
        batch_id = int(batchId)
        if self.committed(batch_id):
            _LOG.warning(
                "Table %s: batch %d of streaming query %s is committed already (a replay after a "
                "restart): nothing is committed and the replay's files are deleted",
                self.writer.table_name, batch_id, self.commit_user,
            )
            ok = [m for m in messages if isinstance(m, PaimonCommitMessage)]
            self.writer._table().abort_changes([m.changes for m in ok])
            self.writer._clean_staging(ok)
            return
        self.writer.commit_identifier = batch_id
        self.writer.commit(messages)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803 - Spark's name
        self.writer.abort(messages)


def task_batch_id() -> int | None:
    """The micro-batch id of the running Spark task (Spark's local property
    ``streaming.sql.batchId``), None outside a streaming task."""
    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        raw = ctx.getLocalProperty("streaming.sql.batchId") if ctx is not None else None
        return int(raw) if raw is not None else None
    except (ImportError, ValueError, TypeError):
        return None


def stream_writer(source: Any, schema: st.StructType, overwrite: bool) -> PaimonStreamWriter:
    """The writer of one micro-batch of the data source ``source`` (a ``PaimonDataSource``):
    its batch writer (``overwrite``: complete output mode) with the query's commit user."""
    writer: PaimonWriter = source.writer(schema, overwrite, merge_schema=merge_stream_schema(source, schema))
    user = stream_commit_user(source.options, writer.store.schema.options, writer.table_name)
    return PaimonStreamWriter(writer, user)


MERGE_SCHEMA = "write.merge-schema"
TYPE_WIDENING = "write.merge-schema.type-widening"
EXPLICIT_CAST = "write.merge-schema.explicit-cast"


def merge_stream_schema(source: Any, schema: st.StructType) -> bool:
    """Paimon's ``write.merge-schema`` on a streaming write (PaimonSinkTest "enable schema
    evolution"): the query's schema merged into the table's by Paimon's rules
    (``ops/merge_schema.py``: new columns and ROW fields added; with ``type-widening`` /
    ``explicit-cast`` column types changed) and committed before the query's first batch is
    written. A streaming query's schema is fixed for its life: the merge is done when the query
    starts (or restarts), where Spark creates the writer the tasks get; Spark creates the writer
    again for each batch's commit, where the merge finds nothing new (as Paimon's sink, which merges
    before every batch). A refused change fails the query before anything is written. Whether the
    option is set (the micro-batches' columns are then matched to the table's by name)."""
    opts = _lower(source.options)
    if not _bool_option(opts, MERGE_SCHEMA):
        return False
    from paimon_sql.spark import spark_types
    from paimon_sql.spark.source_options import TableRef
    from paimon_sql.table.writing import merge_schema

    ref = TableRef.of(source.options)
    table = ref.load(source.options)
    data = spark_types.arrow_schema(schema.json(), f"data written into {table.name}")
    _, changes = merge_schema(table, data, _bool_option(opts, TYPE_WIDENING), _bool_option(opts, EXPLICIT_CAST))
    if changes:
        _LOG.info("Table %s: schema merged with the streaming query's (%d changes)", table.name, len(changes))
    return True
