"""What the JVM shim asks Python: catalog metadata, procedures and statement rewrites.

Every bridge call is a function ``params -> result`` (JSON objects) registered with
``@handler("name")`` (``@handler("name", read_only=True)`` when it changes nothing) in the module
of its area:

- ``catalog``: the catalog's life cycle and namespaces (databases);
- ``tables``: loading a table and the DDL (create, alter, drop, rename);
- ``merge_schema``: a Spark write's schema evolution (``write.merge-schema``);
- ``replace``: REPLACE TABLE / CREATE OR REPLACE TABLE in place;
- ``scan``: read planning (native parquet reads, ``count(*)`` from the manifests);
- ``write``: DELETE FROM and TRUNCATE, the driver side of Spark's batch writes;
- ``row_level``: the snapshot an UPDATE / MERGE INTO / DELETE of an append table reads;
- ``partitions``: SHOW PARTITIONS, DROP PARTITION, TRUNCATE ... PARTITION;
- ``procedures``: listing, describing and calling stored procedures;
- ``statements``: the parser extension's statement rewrite;
- ``registry``: the registry itself, ``bridge_info`` and :func:`dispatch` (used by the bridge,
  ``python -m paimon_sql.spark.bridge``), which reports errors by their ``bridge_kind``.

A new area is a new module here, imported below. No pyspark import in this package.

Data source options a loaded table carries (the contract with ``paimon_sql.spark.datasource``):
``warehouse``, ``table`` (``db.t``, ``db.t$branch_b``, ``db.t$files``) and, for time travel, one of
``scan.snapshot-id`` / ``scan.tag-name`` / ``scan.timestamp-millis``.
"""

from __future__ import annotations

# the area modules register their calls when imported
from paimon_sql.spark.handlers import (  # noqa: F401
    catalog,
    merge_schema,
    partitions,
    procedures,
    replace,
    row_level,
    scan,
    statements,
    tables,
    write,
)
from paimon_sql.spark.handlers.common import PROVIDER
from paimon_sql.spark.handlers.procedures import sql_literal
from paimon_sql.spark.handlers.registry import (
    HANDLERS,
    READ_ONLY,
    WARNINGS_KEY,
    Handler,
    Params,
    Result,
    dispatch,
    dumps,
    handler,
)
from paimon_sql.spark.handlers.statements import rewrite_sql

__all__ = [
    "HANDLERS",
    "PROVIDER",
    "READ_ONLY",
    "WARNINGS_KEY",
    "Handler",
    "Params",
    "Result",
    "dispatch",
    "dumps",
    "handler",
    "rewrite_sql",
    "sql_literal",
]
