"""paimon_sql: Apache Paimon tables with a vectorised Python engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paimon_sql.errors import PaimonError
from paimon_sql.lazy import lazy_attributes

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog
    from paimon_sql.catalog.factory import load_catalog
    from paimon_sql.catalog.identifier import Identifier
    from paimon_sql.table.table import Table

__all__ = ["Catalog", "Identifier", "PaimonError", "Table", "load_catalog"]
__version__ = "0.1.0"

# imported on first use: ``import paimon_sql.spark.bridge`` (or a Spark worker's entry module)
# does not pay for the whole engine
_LAZY = {
    "Catalog": "paimon_sql.catalog.catalog",
    "load_catalog": "paimon_sql.catalog.factory",
    "Identifier": "paimon_sql.catalog.identifier",
    "Table": "paimon_sql.table.table",
}


__getattr__ = lazy_attributes(__name__, _LAZY, globals())
