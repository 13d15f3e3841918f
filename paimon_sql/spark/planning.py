"""The driver side of Spark's batch reads and writes of the Python data source, run in the bridge
process (the shim's ``BridgeRead`` and ``BridgeBatchWrite``) instead of in Spark's planner daemons
(one Python process per kind of call, each started when first needed, after a lookup of every
Python data source in a process of its own).

What Spark's planner workers send to the JVM, this builds the same way (pyspark is pinned to 4.3.x):

- a read (``pyspark/sql/worker/plan_data_source_read.py``, ``data_source_pushdown_filters.py``): the
  reader (after ``pushFilters`` of the filters Spark serialized), the pickled ``(function, return
  type)`` command that Spark's Python workers run for each input partition (it unpickles the
  partition, calls ``reader.read`` and turns what it yields into Arrow batches of the scan's schema),
  and the pickled input partitions;
- a write (``write_into_data_source.py``): the pickled command each write task runs over its Arrow
  batches (it returns the task's pickled commit message in the one binary column of the return type)
  and the pickled writer, which comes back with the messages to commit or abort them
  (``commit_data_source_write.py``). Only Arrow writers: every writer ``PaimonDataSource.writer``
  returns is one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, cast

import pyarrow as pa

# what Spark's read and write functions claim as their module: the Python worker then profiles them
# with the data source profiler (spark.sql.pyspark.dataSource.profiler), as it does Spark's own
_SPARK_READ_MODULE = "pyspark.sql.worker.plan_data_source_read"
_SPARK_WRITE_MODULE = "pyspark.sql.worker.write_into_data_source"


def plan_write(options: Mapping[str, str], schema_json: str, return_type_json: str, overwrite: bool) -> tuple[bytes, bytes]:
    """(pickled task command, pickled writer) of a batch write with data source ``options``, of
    rows of ``schema_json`` (Spark's JSON form of a struct type)."""
    from pyspark.serializers import CPickleSerializer
    from pyspark.sql.datasource import CaseInsensitiveDict, DataSourceArrowWriter
    from pyspark.sql.types import BinaryType, StructType, _parse_datatype_json_string

    from paimon_sql.spark.datasource import PaimonDataSource

    schema = _parse_datatype_json_string(schema_json)
    return_type = _parse_datatype_json_string(return_type_json)
    if not isinstance(schema, StructType) or not isinstance(return_type, StructType) \
            or len(return_type) != 1 or not isinstance(return_type[0].dataType, BinaryType):
        raise TypeError(f"plan_write: bad schema {schema_json!r} or return type {return_type_json!r}")
    writer = PaimonDataSource(options=CaseInsensitiveDict(options)).writer(schema, overwrite)
    if not isinstance(writer, DataSourceArrowWriter):
        raise TypeError(f"plan_write: {type(writer).__name__} is not an Arrow writer")
    func = task_function(writer, return_type[0].name)
    return bytes(CPickleSerializer().dumps((func, return_type))), bytes(CPickleSerializer().dumps(writer))


def task_function(writer: Any, column: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """What each write task runs: ``writer.write`` over the task's Arrow batches, then one batch of
    one row: the pickled commit message in ``column``."""

    def data_source_write_func(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow
        from pyspark.serializers import CPickleSerializer
        from pyspark.sql.datasource import WriterCommitMessage

        message = writer.write(iterator)
        if not isinstance(message, WriterCommitMessage):
            raise TypeError(f"The writer's write() returned {type(message).__name__}, not a WriterCommitMessage")
        yield pyarrow.record_batch([pyarrow.array([CPickleSerializer().dumps(message)])], names=[column])

    # pickled by value (a nested function), with the writer in its closure, as Spark's is
    data_source_write_func.__module__ = _SPARK_WRITE_MODULE
    return data_source_write_func


def commit_write(writer_pickled: bytes, messages: Sequence[bytes | None], abort: bool) -> None:
    """Commits (or aborts) the write of the pickled writer with the tasks' pickled messages (None:
    a task that failed)."""
    from pyspark.serializers import CPickleSerializer

    writer = CPickleSerializer().loads(writer_pickled)
    decoded = [None if m is None else CPickleSerializer().loads(m) for m in messages]
    if abort:
        writer.abort(decoded)
    else:
        writer.commit(decoded)


def plan_read(
    options: Mapping[str, str], schema_json: str, filters_json: str | None, max_arrow_batch_size: int,
) -> tuple[bytes, list[bytes], list[int]]:
    """(pickled task command, pickled input partitions, positions of the accepted filters in
    ``filters_json``) of a batch read with data source ``options`` of the columns ``schema_json``.
    ``filters_json``: the filters as Spark serializes them for Python data sources (None: no
    filter pushdown)."""
    import json

    from pyspark.serializers import CPickleSerializer
    from pyspark.sql.datasource import CaseInsensitiveDict, DataSourceReader, InputPartition
    from pyspark.sql.types import StructType, _parse_datatype_json_string

    from paimon_sql.spark.datasource import PaimonDataSource

    schema = _parse_datatype_json_string(schema_json)
    if not isinstance(schema, StructType) or max_arrow_batch_size <= 0:
        raise TypeError(f"plan_read: bad schema {schema_json!r} or batch size {max_arrow_batch_size}")
    reader = PaimonDataSource(options=CaseInsensitiveDict(options)).reader(schema)
    if not isinstance(reader, DataSourceReader):
        raise TypeError(f"plan_read: {type(reader).__name__} is not a DataSourceReader")
    accepted: list[int] = []
    if filters_json is not None:
        from pyspark.sql.worker.data_source_pushdown_filters import deserializeFilter

        filters = [deserializeFilter(f) for f in json.loads(filters_json)]
        rejected = {id(f) for f in reader.pushFilters(list(filters))}  # the very objects offered
        accepted = [i for i, f in enumerate(filters) if id(f) not in rejected]
    try:
        partitions = reader.partitions()
    except NotImplementedError:
        partitions = []
    if not isinstance(partitions, list) or not all(isinstance(p, InputPartition) for p in partitions):
        raise TypeError(f"plan_read: partitions() of {type(reader).__name__} is not a list of InputPartition")
    partitions = partitions or [InputPartition(None)]
    pickle = CPickleSerializer()
    func = read_function(reader, schema, max_arrow_batch_size)
    return (bytes(pickle.dumps((func, schema))), [bytes(pickle.dumps(p)) for p in partitions], accepted)


def read_function(reader: Any, schema: Any, max_arrow_batch_size: int) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """What each read task runs: its input is one batch of one row, the pickled input partition;
    its output, what ``reader.read`` yields for it as Arrow batches of ``schema`` (checked, or
    converted from rows, by Spark's own function)."""

    def data_source_read_func(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark.serializers import CPickleSerializer
        from pyspark.sql.datasource import InputPartition
        from pyspark.sql.worker.plan_data_source_read import records_to_arrow_batches

        from paimon_sql.spark.datasource import PaimonDataSource

        pickled = None
        for batch in iterator:
            if batch.num_columns != 1 or batch.num_rows != 1:
                raise ValueError(f"A read task's input must be 1 row of 1 column, got {batch.num_rows} x {batch.num_columns}")
            pickled = batch.column(0)[0].as_py()
        if pickled is None:
            raise ValueError("A read task's input is empty: no input partition")
        partition = CPickleSerializer().loads(pickled)
        if not isinstance(partition, InputPartition):
            raise TypeError(f"A read task's input partition is a {type(partition).__name__}")
        output = reader.read(partition)
        if not isinstance(output, Iterator):
            raise TypeError(f"read() of {type(reader).__name__} returned a {type(output).__name__}, not an iterator")
        # the data source is only named in its errors (name(), a class method)
        return iter(records_to_arrow_batches(output, max_arrow_batch_size, schema, cast(Any, PaimonDataSource)))

    # pickled by value (a nested function), with the reader in its closure, as Spark's is
    data_source_read_func.__module__ = _SPARK_READ_MODULE
    return data_source_read_func
