"""What every catalog offers (Paimon's ``Catalog`` interface), whatever keeps its metadata.

``Catalog`` (``paimon_sql.catalog.catalog``) is the filesystem catalog, Paimon's default
``metastore = filesystem``; ``load_catalog`` (``paimon_sql.catalog.factory``) picks the catalog an
option map names. Code that only lists and loads tables (the global system tables, procedures)
depends on this interface, not on the filesystem class.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from paimon_sql.errors import UnsupportedError, ValidationError

if TYPE_CHECKING:
    import pyarrow as pa

    from paimon_sql.catalog.global_tables import GlobalSystemTable
    from paimon_sql.catalog.identifier import Identifier
    from paimon_sql.table.system import SystemTable
    from paimon_sql.table.table import Table


METASTORE = "metastore"
# Paimon's metastores that paimon_sql does not implement yet (identifier -> what Paimon calls it)
_NOT_YET = {"hive": "HiveCatalog", "rest": "RESTCatalog"}
FILESYSTEM = "filesystem"
JDBC = "jdbc"
# the metastores paimon_sql implements (factory.FACTORIES builds them)
METASTORES = (FILESYSTEM, JDBC)


def metastore_of(options: Mapping[str, str]) -> str:
    """The ``metastore`` the options name, checked: a known kind not implemented yet is an
    UnsupportedError, an unknown one a ValidationError, both naming the option."""
    given = options.get(METASTORE)
    kind = FILESYSTEM if given is None else str(given).strip().lower()
    if kind in METASTORES:
        return kind
    if kind in _NOT_YET:
        raise UnsupportedError(
            f"Catalog option {METASTORE!r} = {given!r}: Paimon's {_NOT_YET[kind]} is not implemented by "
            "paimon_sql yet (metastores 'filesystem' and 'jdbc' are)"
        )
    raise ValidationError(
        f"Catalog option {METASTORE!r} has unknown value {given!r} (known: {', '.join(sorted([*METASTORES, *_NOT_YET]))})"
    )


class AbstractCatalog(ABC):
    """Databases and tables by name. ``catalog_options`` are the options the catalog was created
    with (``warehouse`` included); ``warehouse_uri`` is the warehouse as Paimon shows it."""

    catalog_options: dict[str, str]
    warehouse_uri: str

    # -- databases -------------------------------------------------------------------------------
    @abstractmethod
    def list_databases(self) -> list[str]: ...

    @abstractmethod
    def database_exists(self, name: str) -> bool: ...

    @abstractmethod
    def create_database(self, name: str, ignore_if_exists: bool = False) -> None: ...

    @abstractmethod
    def drop_database(self, name: str, ignore_if_not_exists: bool = False, cascade: bool = False) -> None: ...

    # -- tables ----------------------------------------------------------------------------------
    @abstractmethod
    def list_tables(self, database: str) -> list[str]: ...

    @abstractmethod
    def table_exists(self, identifier: str | Identifier) -> bool: ...

    @abstractmethod
    def get_table(self, identifier: str | Identifier) -> Table | SystemTable | GlobalSystemTable: ...

    @abstractmethod
    def create_table(
        self,
        identifier: str | Identifier,
        schema: pa.Schema,
        primary_keys: Sequence[str] | None = None,
        partition_keys: Sequence[str] | None = None,
        options: Mapping[str, str] | None = None,
        comment: str | None = None,
        ignore_if_exists: bool = False,
        column_defaults: Mapping[str, str] | None = None,
    ) -> Table: ...

    @abstractmethod
    def drop_table(self, identifier: str | Identifier, ignore_if_not_exists: bool = False) -> None: ...

    @abstractmethod
    def rename_table(self, source: str | Identifier, target: str | Identifier) -> None: ...
