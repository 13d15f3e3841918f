"""The base of the global system tables of database ``sys``: read-only views over every table of
a catalog, with Apache Paimon's columns (``org.apache.paimon.table.system.All*Table``).

A global system table is built on the catalog (``Catalog.get_table("sys.tables")``) and computes
its rows when read: the tables of every database (databases and tables by name, as
``Catalog.list_databases`` / ``list_tables`` give them; Paimon lists databases in the file
system's order). Paimon ignores filters on these tables and filters its rows afterwards; so does
``read`` (with the same rows), but a filter on ``database_name`` / ``table_name`` also spares
loading the tables it rules out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import pyarrow as pa

from paimon_sql.catalog.identifier import SYSTEM_DATABASE, Identifier
from paimon_sql.errors import DatabaseNotFoundError, TableNotFoundError
from paimon_sql.predicate import Predicate
from paimon_sql.table.system.base import ColumnFn, MetadataTable, id_candidates
from paimon_sql.table.table import Table


class Catalog(Protocol):
    """What a global system table needs of its catalog (``paimon_sql.catalog.base.AbstractCatalog``
    has it): the tables stay below the catalog layer and never import it."""

    catalog_options: dict[str, str]
    warehouse_uri: str

    def list_databases(self) -> list[str]: ...

    def list_tables(self, database: str) -> list[str]: ...

    def get_table(self, identifier: str | Identifier) -> object: ...

DATABASE_NAME = "database_name"
TABLE_NAME = "table_name"


class GlobalSystemTable(MetadataTable):
    """A read-only table of database ``sys`` over the whole catalog."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.name = f"{SYSTEM_DATABASE}.{self.SYSTEM_NAME}"

    def read(self, columns: Sequence[str] | None = None, filter: str | Predicate | None = None) -> pa.Table:
        """The rows of this table, projected to ``columns`` and filtered by ``filter`` (SQL text
        over its columns, or a ``Predicate``)."""
        out_cols, pred, needed = self._needed(columns, filter)
        n, producers = self._columns(frozenset(needed), pred)
        return self._assemble(n, producers, needed, pred, out_cols)

    def _columns(self, needed: frozenset[str], pred: Predicate | None) -> tuple[int, Mapping[str, ColumnFn]]:
        """The number of rows and, for every column, a function computing it (lazily)."""
        raise NotImplementedError


def all_identifiers(catalog: Catalog) -> list[Identifier]:
    """Every table of the catalog, in Paimon's ``listAllTables`` order (database by database)."""
    out: list[Identifier] = []
    for db in catalog.list_databases():
        if db == SYSTEM_DATABASE:  # a stray sys.db folder: its tables cannot be reached
            continue
        try:
            names = catalog.list_tables(db)
        except DatabaseNotFoundError:  # dropped meanwhile
            continue
        out.extend(Identifier(db, t) for t in names)
    return out


def selected(idents: Sequence[Identifier], pred: Predicate | None) -> set[Identifier]:
    """The identifiers a row could match ``pred`` for, judged from its conjuncts on
    ``database_name`` and ``table_name``."""
    dbs = set(id_candidates(pred, DATABASE_NAME, sorted({i.database for i in idents})))
    tables = set(id_candidates(pred, TABLE_NAME, sorted({i.table for i in idents})))
    return {i for i in idents if i.database in dbs and i.table in tables}


def load_tables(catalog: Catalog, idents: Sequence[Identifier]) -> dict[Identifier, Table]:
    """The tables ``idents`` name, leaving out those dropped meanwhile."""
    out: dict[Identifier, Table] = {}
    for ident in idents:
        try:
            table = catalog.get_table(ident)
        except (TableNotFoundError, DatabaseNotFoundError):
            continue
        if isinstance(table, Table):
            out[ident] = table
    return out


def table_location(catalog: Catalog, ident: Identifier) -> str:
    """The table's folder as Paimon's ``path`` option shows it: the warehouse as the catalog was
    given it (a URI keeps its scheme; ``file:/x`` stays so) followed by ``<db>.db/<table>``."""
    return f"{catalog.warehouse_uri}/{ident.database}.db/{ident.table}"
