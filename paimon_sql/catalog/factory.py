"""``load_catalog``: the catalog an option map names (Paimon's ``CatalogFactory``).

The ``metastore`` option picks the kind, as in Paimon: ``filesystem`` (the default) keeps databases
as ``<warehouse>/<db>.db`` folders; ``jdbc`` keeps them in a relational database
(``paimon_sql.catalog.jdbc``). Paimon's other metastores are known and refused until they exist
here; any other value is an error naming the option.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from paimon_sql.catalog.base import FILESYSTEM, JDBC, AbstractCatalog, metastore_of
from paimon_sql.catalog.catalog import Catalog
from paimon_sql.errors import ValidationError

# metastore identifier -> factory (warehouse, catalog options) -> catalog; base.METASTORES lists the same keys


def _jdbc(warehouse: str, options: Mapping[str, str]) -> AbstractCatalog:
    from paimon_sql.catalog.jdbc import JdbcCatalog  # sqlite3 and the driver on first use

    return JdbcCatalog(warehouse, options)


FACTORIES: dict[str, Callable[[str, Mapping[str, str]], AbstractCatalog]] = {FILESYSTEM: Catalog, JDBC: _jdbc}


def load_catalog(warehouse: str | os.PathLike[str], options: Mapping[str, str] | None = None) -> AbstractCatalog:
    """The catalog of ``warehouse`` that ``options`` name (``metastore``, default ``filesystem``)."""
    if options is not None and not isinstance(options, Mapping):
        raise ValidationError(f"The catalog options must be a dict of key -> value, got {options!r}")
    if not isinstance(warehouse, (str, os.PathLike)):
        raise ValidationError(f"The warehouse must be a path or URI, got {type(warehouse).__name__}")
    opts = {str(k): str(v) for k, v in (options or {}).items()}
    return FACTORIES[metastore_of(opts)](os.fspath(warehouse), opts)


def worker_catalog(warehouse: str, options: Mapping[str, str], lists: bool = False) -> AbstractCatalog:
    """The catalog through which another process (a Spark Python worker) opens a table of a
    catalog by name. For a JDBC catalog: the warehouse's folders, whose commits take the catalog's
    lock (``JdbcTablesView``: nothing queried at open), unless the table ``lists`` the catalog (the
    global system tables: the JDBC catalog itself)."""
    opts = {str(k): str(v) for k, v in options.items()}
    if metastore_of(opts) == JDBC and not lists:
        from paimon_sql.catalog.jdbc import JdbcTablesView

        return JdbcTablesView(warehouse, opts)
    return load_catalog(warehouse, opts)
