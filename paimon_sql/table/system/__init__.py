"""System tables: ``<db>.<table>$<name>`` metadata views with Apache Paimon's columns.

``SYSTEM_TABLES`` maps each supported name to its class; ``load_system_table(table, name)`` builds
one over a data table (or branch). See ``base.SystemTable`` for the reading interface. The
catalog-wide tables of database ``sys`` (``sys.tables``...) are in ``paimon_sql.catalog.global_tables``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.errors import NotFoundError, UnsupportedError
from paimon_sql.table.system.aggregation_fields import AggregationFieldsTable
from paimon_sql.table.system.audit_log import AuditLogTable, BinlogTable
from paimon_sql.table.system.base import SystemTable
from paimon_sql.table.system.branches import BranchesTable
from paimon_sql.table.system.buckets import BucketsTable
from paimon_sql.table.system.consumers import ConsumersTable
from paimon_sql.table.system.files import FilesTable
from paimon_sql.table.system.manifests import ManifestsTable
from paimon_sql.table.system.options import OptionsTable
from paimon_sql.table.system.partitions import PartitionsTable
from paimon_sql.table.system.read_optimized import ReadOptimizedTable
from paimon_sql.table.system.schemas import SchemasTable
from paimon_sql.table.system.snapshots import SnapshotsTable
from paimon_sql.table.system.table_indexes import TableIndexesTable
from paimon_sql.table.system.tags import TagsTable

if TYPE_CHECKING:
    from paimon_sql.table.table import Table

SYSTEM_TABLES: dict[str, type[SystemTable]] = {
    cls.SYSTEM_NAME: cls
    for cls in (
        SnapshotsTable,
        SchemasTable,
        OptionsTable,
        FilesTable,
        ManifestsTable,
        PartitionsTable,
        BucketsTable,
        TagsTable,
        BranchesTable,
        ConsumersTable,
        TableIndexesTable,
        AggregationFieldsTable,
        ReadOptimizedTable,
        AuditLogTable,
        BinlogTable,
    )
}

# System tables Apache Paimon has that paimon_sql does not implement (yet).
PAIMON_ONLY_SYSTEM_TABLES = (
    "statistics", "file_indexes",
    "file_key_ranges", "row_tracking",
)


def load_system_table(table: Table, name: str) -> SystemTable:
    """The system table ``name`` (case-insensitive) of ``table``."""
    key = name.lower()
    cls = SYSTEM_TABLES.get(key)
    if cls is not None:
        return cls(table)
    full = f"{table.name}${name}"
    if key in PAIMON_ONLY_SYSTEM_TABLES:
        raise UnsupportedError(
            f"System table {full} is an Apache Paimon system table that paimon_sql does not support "
            f"yet; supported system tables: {', '.join(sorted(SYSTEM_TABLES))}"
        )
    raise NotFoundError(
        f"System table {full} does not exist: {name!r} is no system table; system tables are "
        f"{', '.join(sorted(SYSTEM_TABLES))}"
    )


__all__ = [
    "SYSTEM_TABLES",
    "AggregationFieldsTable",
    "AuditLogTable",
    "BinlogTable",
    "BranchesTable",
    "BucketsTable",
    "ConsumersTable",
    "FilesTable",
    "ManifestsTable",
    "OptionsTable",
    "PartitionsTable",
    "ReadOptimizedTable",
    "SchemasTable",
    "SnapshotsTable",
    "SystemTable",
    "TableIndexesTable",
    "TagsTable",
    "load_system_table",
]
