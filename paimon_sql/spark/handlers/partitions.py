"""Bridge calls of Spark's partition management (``SupportsAtomicPartitionManagement`` in the
shim's ``PaimonTable``): ``SHOW PARTITIONS``, ``ALTER TABLE t DROP PARTITION`` and
``TRUNCATE TABLE t PARTITION`` over ``ops/partitions.py``.

Partition values travel as Spark's JSON-able forms (``Values.java``): strings, numbers, booleans,
dates as ISO text, timestamps as microseconds since the epoch, decimals as text, null."""

from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Sequence
from typing import Any

from paimon_sql import types as pt
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.format.partition_path import partition_value_string
from paimon_sql.spark.handlers.common import catalog_of, data_table, str_param
from paimon_sql.spark.handlers.registry import Params, Result, handler
from paimon_sql.table.table import Table
from paimon_sql.types import DataType, DefaultTypeVisitor

_EPOCH = _dt.datetime(1970, 1, 1)


def _table(params: Params) -> Table:
    ident = Identifier.parse(str_param(params, "table"))
    if ident.system_table is not None:
        raise UnsupportedError(f"System table {ident.full_name} has no partitions to manage")
    return data_table(catalog_of(params), ident)


def _to_spark(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        naive = value.astimezone(_dt.timezone.utc).replace(tzinfo=None) if value.tzinfo else value
        delta = naive - _EPOCH
        return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        raise UnsupportedError("BINARY partition values cannot be listed through Spark")
    return value


class _FromSpark(DefaultTypeVisitor[Any]):
    """A Spark partition value (JSON form) as the Python value ``partition_value_string`` takes."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def default(self, t: DataType) -> Any:
        return self.value

    def visit_date(self, t: pt.DateType) -> Any:
        return _dt.date.fromisoformat(self.value) if isinstance(self.value, str) else self.value

    def _timestamp(self) -> Any:
        v = self.value
        return _EPOCH + _dt.timedelta(microseconds=v) if isinstance(v, int) and not isinstance(v, bool) else v

    def visit_timestamp(self, t: pt.TimestampType) -> Any:
        return self._timestamp()

    def visit_local_zoned_timestamp(self, t: pt.LocalZonedTimestampType) -> Any:
        return self._timestamp()


def _from_spark(value: Any, dtype: DataType) -> Any:
    return None if value is None else dtype.accept(_FromSpark(value))


def _specs(table: Table, params: Params) -> list[dict[str, str]]:
    """The partition identifiers of a request (lists of values of the first partition columns)
    as column -> folder text specs."""
    rows = params.get("partitions")
    if not isinstance(rows, Sequence) or isinstance(rows, str) or not rows:
        raise ValidationError("Bridge request is missing the list parameter 'partitions'")
    store = table.store
    fields = store.partition_fields
    default = store.options.partition_default_name
    specs = []
    for row in rows:
        if not isinstance(row, Sequence) or isinstance(row, str) or not 0 < len(row) <= len(fields):
            raise ValidationError(
                f"Partition values {row!r} of table {table.identifier} do not fit its partition columns "
                f"{[f.name for f in fields]}"
            )
        specs.append({
            f.name: partition_value_string(_from_spark(v, f.type), f.type, default, False)
            for f, v in zip(fields, row)
        })
    return specs


@handler("list_partitions", read_only=True)
def list_partitions(params: Params) -> Result:
    """Every partition with files in the latest snapshot: its values (Spark's JSON forms) and
    Paimon's partition statistics."""
    table = _table(params)
    return {"partitions": [
        {
            "values": [_to_spark(v) for v in p.values],
            "recordCount": p.record_count,
            "fileSizeInBytes": p.file_size_in_bytes,
            "fileCount": p.file_count,
            "lastFileCreationTime": p.last_file_creation_time_ms,
        }
        for p in table.partitions()
    ]}


@handler("drop_partitions")
def drop_partitions(params: Params) -> Result:
    """``ALTER TABLE t DROP PARTITION (...)[, PARTITION (...)]`` and ``TRUNCATE TABLE t PARTITION``:
    one OVERWRITE commit deleting the partitions' files (Spark checked that full specs exist; a
    prefix spec matching nothing still commits, as Paimon's ``truncatePartitions``)."""
    table = _table(params)
    result = table.drop_partitions(_specs(table, params), commit_if_empty=True)
    return {"snapshot": result.snapshot_id, "files": result.files}
