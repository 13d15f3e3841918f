"""What the bridge calls of every area share: the catalog of a request's warehouse, parameter
checks, and Spark's reserved table properties."""

from __future__ import annotations

import json
from collections.abc import Mapping

from paimon_sql.catalog.base import FILESYSTEM
from paimon_sql.catalog.catalog import Catalog
from paimon_sql.catalog.factory import load_catalog
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.process_state import ProcessCache, process_cache
from paimon_sql.spark.handlers.registry import Params
from paimon_sql.table.table import Table

PROVIDER = "paimon"

# Spark's reserved table properties (TableCatalog.PROP_*) and how CREATE TABLE treats them
PROP_PROVIDER = "provider"
PROP_LOCATION = "location"
PROP_COMMENT = "comment"
PROP_OWNER = "owner"
PROP_EXTERNAL = "external"
IGNORED_PROPS = {PROP_OWNER, "is_managed_location", "collation", "table_type"}
OPTION_PREFIX = "option."

_catalogs: ProcessCache[tuple[str, tuple[tuple[str, str], ...]], Catalog] = process_cache("spark.catalogs", 64)


def catalog_of(params: Params) -> Catalog:
    """The catalog of a request: its ``warehouse`` (absolute) and ``catalog_options`` (the Spark
    catalog's options as configured, which the shim sends with every call)."""
    warehouse = params.get("warehouse")
    if not isinstance(warehouse, str) or not warehouse:
        raise ValidationError("The Paimon catalog needs a 'warehouse' option (a folder or URI)")
    raw = params.get("catalog_options") or {}
    if not isinstance(raw, Mapping):
        raise ValidationError(f"Bridge request parameter 'catalog_options' must be an object, got {raw!r}")
    options = {str(k): str(v) for k, v in raw.items()}
    key = (warehouse, tuple(sorted(options.items())))
    cat = _catalogs.get(key)
    if cat is None:
        opened = load_catalog(warehouse, options)  # the option 'metastore' picks the kind
        if not isinstance(opened, Catalog):
            raise UnsupportedError(f"The Spark catalog cannot use a {type(opened).__name__}")
        _catalogs.put(key, opened)
        cat = opened
    return cat


def known_catalog_options(warehouse: str) -> dict[str, str]:
    """The options of a catalog this process has opened on ``warehouse`` (the session's catalog
    on an ``s3://`` warehouse: its endpoint and credentials), for a table loaded by path; empty when
    none (then the AWS environment variables apply)."""
    for (wh, options), _cat in _catalogs.items():
        if wh.rstrip("/") == warehouse.rstrip("/"):
            return dict(options)
    return {}


def source_options(cat: Catalog, table: str) -> dict[str, str]:
    """The data source options that name ``table`` for Spark's Python workers: the warehouse as
    they can open it (an object store's URI, not its bucket path) and the catalog's storage
    options (``s3.*``: endpoint, credentials) under ``paimon.catalog-options``."""
    from paimon_sql.fs.s3 import is_storage_option
    from paimon_sql.spark.source_options import OPT_CATALOG_OPTIONS

    local = cat.file_io.capabilities.local_paths
    out = {"warehouse": cat.warehouse if local else cat.warehouse_uri, "table": table}
    storage = {k: v for k, v in cat.options.items() if is_storage_option(k)}
    if cat.METASTORE != FILESYSTEM:  # a JDBC catalog's lock goes with its tables
        from paimon_sql.catalog.jdbc import travelling_options

        storage.update(travelling_options(cat.options))
    if storage:
        out[OPT_CATALOG_OPTIONS] = json.dumps(storage)
    return out


def str_param(params: Params, key: str) -> str:
    v = params.get(key)
    if not isinstance(v, str) or not v:
        raise ValidationError(f"Bridge request is missing the string parameter {key!r}")
    return v


def str_map_param(params: Params, key: str) -> dict[str, str]:
    """The parameter ``key``, an object of strings (e.g. data source options)."""
    value = params.get(key)
    if not isinstance(value, dict):
        raise TypeError(f"Bridge parameter {key!r} must be an object, got {value!r}")
    return {str(k): str(v) for k, v in value.items()}


def identifier(params: Params, ns_key: str = "namespace", table_key: str = "table") -> Identifier:
    return Identifier.parse((str_param(params, ns_key), str_param(params, table_key)))


def data_table(cat: Catalog, ident: Identifier) -> Table:
    table = cat.get_table(ident)
    if not isinstance(table, Table):
        raise ValidationError(f"{ident.full_name} is a system table, not a data table")
    return table
