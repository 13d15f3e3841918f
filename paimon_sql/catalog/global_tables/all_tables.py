"""``sys.tables``: one row per table of the catalog (Paimon's ``AllTablesTable``).

The type is the table's ``type`` option (``table`` by default); ``owner``, ``created_at``,
``created_by``, ``updated_at`` and ``updated_by`` are the table options ``owner``, ``createdAt``,
``createdBy``, ``updatedAt`` and ``updatedBy`` (which a REST catalog sets; null here unless a
table has them). ``record_count``, ``file_size_in_bytes``, ``file_count`` and
``last_file_creation_time`` come from a catalog with version management (REST) only: Paimon's
filesystem catalog leaves them null, and so does paimon_sql.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.catalog.global_tables.base import (
    GlobalSystemTable,
    all_identifiers,
    load_tables,
    selected,
)
from paimon_sql.errors import ValidationError
from paimon_sql.predicate import Predicate
from paimon_sql.table.system.base import ColumnFn, constant
from paimon_sql.types import BigIntType, BooleanType, DataField, VarCharType

TYPE_OPTION = "type"
DEFAULT_TABLE_TYPE = "table"
OWNER, CREATED_AT, CREATED_BY, UPDATED_AT, UPDATED_BY = "owner", "createdAt", "createdBy", "updatedAt", "updatedBy"
_JAVA_LONG = re.compile(r"[+-]?[0-9]+\Z")


class AllTablesTable(GlobalSystemTable):
    SYSTEM_NAME = "tables"
    FIELDS = (
        DataField(0, "database_name", VarCharType()),
        DataField(1, "table_name", VarCharType()),
        DataField(2, "table_type", VarCharType()),
        DataField(3, "partitioned", BooleanType()),
        DataField(4, "primary_key", BooleanType()),
        DataField(5, "owner", VarCharType()),
        DataField(6, "created_at", BigIntType()),
        DataField(7, "created_by", VarCharType()),
        DataField(8, "updated_at", BigIntType()),
        DataField(9, "updated_by", VarCharType()),
        DataField(10, "record_count", BigIntType()),
        DataField(11, "file_size_in_bytes", BigIntType()),
        DataField(12, "file_count", BigIntType()),
        DataField(13, "last_file_creation_time", BigIntType()),
    )

    def _columns(self, needed: frozenset[str], pred: Predicate | None) -> tuple[int, Mapping[str, ColumnFn]]:
        idents = all_identifiers(self.catalog)
        keep = selected(idents, pred)
        tables = load_tables(self.catalog, [i for i in idents if i in keep])
        rows = list(tables)
        opts = [tables[i].schema.options for i in rows]
        n = len(rows)

        def option(key: str) -> ColumnFn:
            return lambda: pa.array([o.get(key) for o in opts], pa.string())

        def long_option(key: str) -> ColumnFn:
            return lambda: pa.array([_parse_long(o.get(key), key, i.full_name) for o, i in zip(opts, rows)], pa.int64())

        return n, {
            "database_name": lambda: pa.array([i.database for i in rows], pa.string()),
            "table_name": lambda: pa.array([i.table for i in rows], pa.string()),
            "table_type": lambda: pa.array([o.get(TYPE_OPTION, DEFAULT_TABLE_TYPE) for o in opts], pa.string()),
            "partitioned": lambda: pa.array([bool(tables[i].schema.partition_keys) for i in rows], pa.bool_()),
            "primary_key": lambda: pa.array([bool(tables[i].schema.primary_keys) for i in rows], pa.bool_()),
            "owner": option(OWNER),
            "created_at": long_option(CREATED_AT),
            "created_by": option(CREATED_BY),
            "updated_at": long_option(UPDATED_AT),
            "updated_by": option(UPDATED_BY),
            "record_count": constant(n, None, pa.int64()),
            "file_size_in_bytes": constant(n, None, pa.int64()),
            "file_count": constant(n, None, pa.int64()),
            "last_file_creation_time": constant(n, None, pa.int64()),
        }


def _parse_long(value: str | None, key: str, table: str) -> int | None:
    """Java's ``Long.parseLong`` of an option (None when absent); a value it refuses is an error
    naming the table and option."""
    if value is None:
        return None
    if not _JAVA_LONG.match(value) or not -(2**63) <= int(value) < 2**63:
        raise ValidationError(f"Option {key!r} = {value!r} of table {table} is not a number (a BIGINT of sys.tables)")
    return int(value)
