"""Paimon's global system tables, in database ``sys``: ``sys.tables``, ``sys.partitions``,
``sys.all_table_options`` and ``sys.catalog_options`` (the last only when the catalog option
``catalog-options-table.enabled`` is true), with Apache Paimon's columns and rows.

``GLOBAL_SYSTEM_TABLES`` maps each name to its class, in Paimon's order
(``SystemTableLoader.GLOBAL_SYSTEM_TABLES``); ``global_table_names(options)`` lists those a catalog
has; ``load_global_system_table(catalog, name)`` builds one (``Catalog.get_table("sys.tables")``
does). These tables are read-only; the database ``sys`` cannot be created, dropped or given tables.
"""

from __future__ import annotations

from collections.abc import Mapping

from paimon_sql.catalog.global_tables.all_partitions import AllPartitionsTable
from paimon_sql.catalog.global_tables.all_table_options import AllTableOptionsTable
from paimon_sql.catalog.global_tables.all_tables import AllTablesTable
from paimon_sql.catalog.global_tables.base import Catalog, GlobalSystemTable
from paimon_sql.catalog.global_tables.catalog_options import ENABLED_OPTION, CatalogOptionsTable, enabled
from paimon_sql.catalog.identifier import SYSTEM_DATABASE
from paimon_sql.errors import TableNotFoundError

GLOBAL_SYSTEM_TABLES: dict[str, type[GlobalSystemTable]] = {
    cls.SYSTEM_NAME: cls
    for cls in (AllTablesTable, AllPartitionsTable, AllTableOptionsTable, CatalogOptionsTable)
}


def global_table_names(catalog_options: Mapping[str, str]) -> list[str]:
    """The tables of database ``sys`` of a catalog with these options (Paimon's
    ``loadGlobalTableNames``: ``catalog_options`` only when enabled), in Paimon's order."""
    names = list(GLOBAL_SYSTEM_TABLES)
    if not enabled(catalog_options):
        names.remove(CatalogOptionsTable.SYSTEM_NAME)
    return names


def load_global_system_table(catalog: Catalog, name: str) -> GlobalSystemTable:
    """The table ``sys.<name>`` (case-insensitive, as Paimon) of ``catalog``."""
    key = name.lower()
    names = global_table_names(catalog.catalog_options)
    if key not in names:
        hint = (
            f" (it needs the catalog option {ENABLED_OPTION}=true)"
            if key == CatalogOptionsTable.SYSTEM_NAME else ""
        )
        raise TableNotFoundError(
            f"Table {SYSTEM_DATABASE}.{name} does not exist{hint}: the tables of the system database "
            f"{SYSTEM_DATABASE!r} are {', '.join(names)}"
        )
    return GLOBAL_SYSTEM_TABLES[key](catalog)


__all__ = [
    "GLOBAL_SYSTEM_TABLES",
    "AllPartitionsTable",
    "AllTableOptionsTable",
    "AllTablesTable",
    "CatalogOptionsTable",
    "GlobalSystemTable",
    "global_table_names",
    "load_global_system_table",
]
