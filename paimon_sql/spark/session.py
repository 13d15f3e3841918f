"""A SparkSession (or spark-sql command line) configured for the ``paimon`` catalog."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paimon_sql.errors import ValidationError
from paimon_sql.spark import CATALOG_CLASS, EXTENSIONS_CLASS, check_spark_version, jar_path

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_WAREHOUSE = "warehouse"
DEFAULT_MASTER = "local[*]"
DEFAULT_CATALOG = "paimon"
WARMUP_CONF = "spark.paimon_sql.warmup.enabled"  # the background start of Spark's Python workers
ARROW_NO_BYTE_LIMIT = 2**31 - 1  # Int.MaxValue: Spark skips its per-row batch-size check


def absolute_warehouse(warehouse: str) -> str:
    """A warehouse path made absolute (URIs with a scheme are kept): Spark's Python workers and
    the catalog may not share the current folder."""
    w = str(warehouse)
    if "://" in w or w.startswith("file:"):
        return w
    return os.path.abspath(os.path.expanduser(w))


def catalog_conf(
    warehouse: str | None = None,
    catalog: str = DEFAULT_CATALOG,
    default_catalog: bool = True,
    python: str | None = None,
    catalog_options: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The Spark settings of a Paimon catalog named ``catalog`` (all but the jar);
    ``catalog_options`` are more options of the catalog (``{"s3.endpoint": ...}`` for an
    ``s3://`` warehouse), set as ``spark.sql.catalog.<catalog>.<key>``."""
    if not catalog or not catalog.replace("_", "").isalnum():
        raise ValidationError(f"Invalid catalog name {catalog!r}: use letters, digits and '_'")
    py = python or sys.executable
    conf = {
        f"spark.sql.catalog.{catalog}": CATALOG_CLASS,
        f"spark.sql.catalog.{catalog}.warehouse": absolute_warehouse(warehouse or DEFAULT_WAREHOUSE),
        "spark.sql.extensions": EXTENSIONS_CLASS,
        "spark.sql.python.filterPushdown.enabled": "true",
        # Spark checks an Arrow batch's byte size after EVERY row it adds when this is below
        # Int.MaxValue (pyspark 4.3: ArrowWriter.sizeInBytes per row, about half the CPU of moving
        # rows to the Python writers); batches stay bounded by arrow.maxRecordsPerBatch rows.
        "spark.sql.execution.arrow.maxBytesPerBatch": str(ARROW_NO_BYTE_LIMIT),
        # Unix domain sockets between Spark and its Python workers: about 35 ms less per query
        # than TCP on loopback (every scan and write task talks to a Python worker)
        "spark.python.unix.domain.socket.enabled": "true",
        # a join on a fixed-bucket table's bucket key shuffles only the other side, by the table's
        # own bucket function (the table's scan reports its bucket layout: a storage-partitioned
        # join; MERGE INTO a primary-key table reads the target without a shuffle)
        "spark.sql.sources.v2.bucketing.shuffle.enabled": "true",
        "spark.pyspark.python": py,
        "spark.pyspark.driver.python": py,
    }
    if default_catalog:
        conf["spark.sql.defaultCatalog"] = catalog
    for key, value in (catalog_options or {}).items():
        if str(key) in ("warehouse", ""):
            raise ValidationError(f"Catalog option {key!r} is not an extra option (use the warehouse argument)")
        conf[f"spark.sql.catalog.{catalog}.{key}"] = str(value)
    return conf


def parse_catalog_options(items: Sequence[str]) -> dict[str, str]:
    """``--catalog-option KEY=VALUE`` arguments (``paimon-sql``, ``python -m paimon_sql.spark``)."""
    options: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValidationError(f"--catalog-option takes KEY=VALUE (e.g. s3.endpoint=http://host:9000), got {item!r}")
        options[key.strip()] = value
    return options


def session(
    warehouse: str | None = None,
    master: str | None = None,
    *,
    catalog: str = DEFAULT_CATALOG,
    default_catalog: bool = True,
    app_name: str = "paimon-sql",
    conf: Mapping[str, Any] | None = None,
    catalog_options: Mapping[str, Any] | None = None,
    **extra_conf: Any,
) -> SparkSession:
    """A SparkSession with the Paimon catalog ``catalog`` on ``warehouse`` (default ``./warehouse``),
    its JVM shim jar, the SQL extensions (unquoted ``t$files``, ``CALL sys.x``), Python filter
    pushdown and this interpreter as the Python of Spark's workers. ``master`` defaults to
    ``local[*]``. More settings: ``conf={...}`` or keyword arguments with the full key, e.g.
    ``session(**{"spark.sql.shuffle.partitions": "4"})``. ``catalog_options`` are the Paimon
    catalog's own options, e.g. ``session("s3://bucket/wh", catalog_options={"s3.endpoint": ...,
    "s3.access-key": ..., "s3.secret-key": ...})``.

    Spark reads the jar only when its JVM starts: call this before any other SparkSession exists
    in the process (or stop that one first)."""
    from pyspark.sql import SparkSession

    settings: dict[str, str] = {
        "spark.master": master or DEFAULT_MASTER,
        "spark.app.name": app_name,
        **catalog_conf(warehouse, catalog, default_catalog, catalog_options=catalog_options),
    }
    jar = jar_path()
    check_spark_version(jar=jar)
    for k, v in {**(conf or {}), **extra_conf}.items():
        settings[str(k)] = str(v)
    jars = [j for j in settings.get("spark.jars", "").split(",") if j]
    if jar not in jars:
        jars.insert(0, jar)
    settings["spark.jars"] = ",".join(jars)
    os.environ.setdefault("PYSPARK_PYTHON", settings["spark.pyspark.python"])
    builder = SparkSession.builder
    for k, v in settings.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    jvm_jars = spark.sparkContext.getConf().get("spark.jars", "")
    if jar not in jvm_jars.split(","):
        raise ValidationError(
            "A SparkSession without the paimon_sql jar was already running in this process: stop it "
            "(spark.stop()) before calling paimon_sql.spark.session()"
        )
    _register_data_source(spark)
    return spark


def _register_data_source(spark: SparkSession) -> None:
    """Registers the Python data source explicitly (Spark also discovers the installed
    ``pyspark_paimon_sql`` module by itself, but not from a default editable install). The shim
    registers it (``EngineDataSource.register``): ``spark.dataSource.register`` would first run
    Spark's lookup of every installed Python data source, a Python process of its own (about a
    second of the session's start)."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    jvm.org.paimon_sql.spark.EngineDataSource.register(spark._jsparkSession)
