"""paimon_sql: Apache Paimon tables with a vectorised Python engine."""

from __future__ import annotations

from paimon_sql.catalog.catalog import Catalog
from paimon_sql.catalog.factory import load_catalog
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import PaimonError
from paimon_sql.table.table import Table

__all__ = ["Catalog", "Identifier", "PaimonError", "Table", "load_catalog"]
__version__ = "0.1.0"
