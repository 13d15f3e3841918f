"""Spark's auto-discovery hook for the ``paimon_sql`` Python data source.

Spark registers the ``DefaultSource`` of every importable top-level module named ``pyspark_*``
(``pyspark/sql/worker/lookup_data_sources.py``), also in the JVM-only spark-sql shell. The module
must be visible to ``pkgutil.iter_modules()``: a normal install or an editable install with
``--config-settings editable_mode=compat`` (not pip's default editable mode).
"""

from __future__ import annotations

from paimon_sql.spark.datasource import PaimonDataSource as DefaultSource

__all__ = ["DefaultSource"]
