"""Bridge calls of the catalog's life cycle and its namespaces (Paimon databases)."""

from __future__ import annotations

import os

from paimon_sql.catalog.identifier import SYSTEM_DATABASE, Identifier
from paimon_sql.catalog.jdbc import JdbcCatalog
from paimon_sql.errors import (
    DatabaseNotEmptyError,
    DatabaseNotFoundError,
    TableNotFoundError,
    UnsupportedError,
    ValidationError,
)
from paimon_sql.fs.file_io import FileIO
from paimon_sql.spark.handlers.common import (
    PROP_OWNER,
    catalog_of,
    data_table,
    known_catalog_options,
    str_param,
)
from paimon_sql.spark.handlers.registry import WARNINGS_KEY, Params, Result, handler
from paimon_sql.spark.source_options import split_table_path


@handler("ping", read_only=True)
def ping(params: Params) -> Result:
    from paimon_sql import __version__

    return {"pid": os.getpid(), "version": __version__}


@handler("initialize")
def initialize(params: Params) -> Result:
    """Opens the warehouse and creates its default database (as Paimon's Spark catalog does)."""
    cat = catalog_of(params)
    default = params.get("default_database") or "default"
    cat.create_database(str(default), ignore_if_exists=True)
    return {"warehouse": cat.warehouse, "pid": os.getpid()}


@handler("table_of_path", read_only=True)
def table_of_path(params: Params) -> Result:
    """The warehouse, database and table of a table folder (``spark.read.format("paimon")
    .load(path)``): ``<warehouse>/<db>.db/<table>``, whose names pass the catalog's checks and
    whose table exists (nothing is created)."""
    path = str_param(params, "path")
    warehouse, database, table = split_table_path(path, "The path of a Paimon table")
    ident = Identifier.parse((database, table))
    if ident.system_table is not None or ident.branch is not None:
        raise ValidationError(f"The path of a Paimon table names a table folder, got {path!r}")
    options = known_catalog_options(warehouse)  # a session catalog's s3.* options, if any
    file_io, root = FileIO.for_uri(warehouse, options)
    if not file_io.is_dir(root):
        raise TableNotFoundError(f"Table {ident.full_name} does not exist: no warehouse folder {warehouse}")
    cat = catalog_of({"warehouse": warehouse, "catalog_options": options})
    data_table(cat, ident)  # a missing table, or a path outside the warehouse, is refused here
    return {"warehouse": warehouse, "namespace": ident.database, "table": ident.table}


# ----------------------------------------------------------------------------------------------
# namespaces (databases)
# ----------------------------------------------------------------------------------------------


@handler("list_namespaces", read_only=True)
def list_namespaces(params: Params) -> Result:
    return {"namespaces": catalog_of(params).list_databases()}


@handler("namespace_exists", read_only=True)
def namespace_exists(params: Params) -> Result:
    return {"exists": catalog_of(params).database_exists(str_param(params, "namespace"))}


@handler("load_namespace_metadata", read_only=True)
def load_namespace_metadata(params: Params) -> Result:
    cat = catalog_of(params)
    ns = str_param(params, "namespace")
    if ns == SYSTEM_DATABASE:
        return {"metadata": {}}  # Paimon's Database.of("sys"): no folder, no options
    if isinstance(cat, JdbcCatalog):  # Paimon's getDatabase(ns).options(): the stored properties
        return {"metadata": cat.database_properties(ns)}
    if not cat.database_exists(ns):
        raise DatabaseNotFoundError(f"Database {ns} does not exist")
    return {"metadata": {"location": cat.database_path(ns)}}


@handler("create_namespace")
def create_namespace(params: Params) -> Result:
    cat = catalog_of(params)
    ns = str_param(params, "namespace")
    meta = dict(params.get("metadata") or {})
    warnings: list[str] = []
    loc = meta.get("location")
    if loc and loc.rstrip("/") != cat.database_path(ns).rstrip("/"):
        raise UnsupportedError(
            f"Database {ns} cannot have LOCATION {loc!r}: Paimon databases live in the warehouse "
            f"({cat.database_path(ns)})"
        )
    if isinstance(cat, JdbcCatalog):  # as Paimon's: every property is stored (location: the warehouse's)
        cat.create_database(ns, properties={k: str(v) for k, v in meta.items() if k != "location"})
        return {WARNINGS_KEY: warnings}
    ignored = sorted(k for k in meta if k not in ("location", PROP_OWNER))
    if ignored:
        warnings.append(f"Database {ns}: properties {ignored} are not stored (Paimon databases have none)")
    cat.create_database(ns)
    return {WARNINGS_KEY: warnings}


@handler("alter_namespace")
def alter_namespace(params: Params) -> Result:
    """``ALTER NAMESPACE ... SET / UNSET DBPROPERTIES``: the JDBC catalog keeps database
    properties (Paimon's ``alterDatabase``); the filesystem catalog has none (Paimon: "Alter
    database is not supported.")."""
    cat = catalog_of(params)
    ns = str_param(params, "namespace")
    changes = params.get("changes") or []
    if not isinstance(changes, list) or not all(isinstance(c, dict) for c in changes):
        raise ValidationError(f"Bridge request parameter 'changes' must be a list of objects, got {changes!r}")
    if not isinstance(cat, JdbcCatalog):
        if not cat.database_exists(ns):
            raise DatabaseNotFoundError(f"Database {ns} does not exist")
        raise UnsupportedError(
            f"Alter database is not supported: database {ns} of the filesystem catalog has no properties "
            "(the JDBC catalog, metastore = jdbc, keeps them)"
        )
    sets = {str(c["set"]): str(c.get("value")) for c in changes if "set" in c}
    removes = [str(c["remove"]) for c in changes if "remove" in c]
    cat.alter_database(ns, sets, removes)
    return {}


@handler("drop_namespace")
def drop_namespace(params: Params) -> Result:
    cat = catalog_of(params)
    ns = str_param(params, "namespace")
    if ns == SYSTEM_DATABASE:
        cat.drop_database(ns)  # refused, naming the system database
    if not cat.database_exists(ns):
        return {"dropped": False}
    cascade = bool(params.get("cascade"))
    if not cascade:
        tables = cat.list_tables(ns)
        if tables:
            raise DatabaseNotEmptyError(f"Database {ns} is not empty (tables: {tables}); use DROP ... CASCADE")
    cat.drop_database(ns, cascade=cascade)
    return {"dropped": True}
