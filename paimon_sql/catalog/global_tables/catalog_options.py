"""``sys.catalog_options``: the catalog's options (Paimon's ``CatalogOptionsTable``), one row per
option in the order of the ``HashMap`` Paimon's ``Options`` keeps them in.

The options are those the catalog was created with, ``warehouse`` included (in Spark: every
``spark.sql.catalog.<name>.<key>`` setting, as given). Paimon has this table only when the catalog
option ``catalog-options-table.enabled`` is ``true``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.catalog.global_tables.base import GlobalSystemTable
from paimon_sql.errors import ValidationError
from paimon_sql.predicate import Predicate
from paimon_sql.table.system._format import java_hash_map_order
from paimon_sql.table.system.base import ColumnFn
from paimon_sql.types import DataField, VarCharType

ENABLED_OPTION = "catalog-options-table.enabled"


def enabled(options: Mapping[str, str]) -> bool:
    """Whether the catalog option ``catalog-options-table.enabled`` is true (default false; any
    other value than true/false, in any case, is an error as in Paimon)."""
    value = str(options.get(ENABLED_OPTION, "false"))
    if value.lower() not in ("true", "false"):
        raise ValidationError(
            f"Invalid catalog option {ENABLED_OPTION!r} = {value!r}: expected true or false"
        )
    return value.lower() == "true"


class CatalogOptionsTable(GlobalSystemTable):
    SYSTEM_NAME = "catalog_options"
    FIELDS = (
        DataField(0, "key", VarCharType(nullable=False)),
        DataField(1, "value", VarCharType(nullable=False)),
    )

    def _columns(self, needed: frozenset[str], pred: Predicate | None) -> tuple[int, Mapping[str, ColumnFn]]:
        opts = self.catalog.catalog_options
        keys = java_hash_map_order(opts)
        return len(keys), {
            "key": lambda: pa.array(keys, pa.string()),
            "value": lambda: pa.array([opts[k] for k in keys], pa.string()),
        }
