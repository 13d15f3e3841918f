"""``sys.all_table_options``: one row per option of every table (Paimon's ``AllTableOptionsTable``).

A table's options are those of its latest schema plus ``path`` (the table's folder, which
Paimon's catalog adds when it loads a table), and ``scan.mode`` where Paimon derives it from a
stored time-travel option (``CoreOptions.setDefaultValues``).

Row order is Paimon's: the tables in ``HashMap<Identifier, ...>`` order; each table's options in
the order of the map Paimon's loaded table holds them in (the schema's ``HashMap`` filled in file
order, ``path`` added, copied with ``new HashMap<>(map)``, then put into a new ``Options``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.catalog.global_tables.all_partitions import identifier_hash
from paimon_sql.catalog.global_tables.base import (
    GlobalSystemTable,
    all_identifiers,
    load_tables,
    selected,
    table_location,
)
from paimon_sql.predicate import Predicate
from paimon_sql.table.system._format import java_hash_map_order
from paimon_sql.table.system.base import ColumnFn
from paimon_sql.types import DataField, VarCharType

PATH = "path"
SCAN_MODE = "scan.mode"
# CoreOptions.setDefaultValues: a stored option that implies a startup mode, in the order it checks
_IMPLIED_SCAN_MODES = (
    (("scan.timestamp-millis",), "from-timestamp"),
    (("scan.timestamp",), "from-timestamp"),
    (("scan.file-creation-time-millis",), "from-file-creation-time"),
    (("scan.snapshot-id",), "from-snapshot"),
    (("incremental-between-timestamp", "incremental-between", "incremental-to-auto-tag"), "incremental"),
)


class AllTableOptionsTable(GlobalSystemTable):
    SYSTEM_NAME = "all_table_options"
    FIELDS = (
        DataField(0, "database_name", VarCharType()),
        DataField(1, "table_name", VarCharType()),
        DataField(2, "key", VarCharType()),
        DataField(3, "value", VarCharType()),
    )

    def _columns(self, needed: frozenset[str], pred: Predicate | None) -> tuple[int, Mapping[str, ColumnFn]]:
        idents = all_identifiers(self.catalog)
        keep = selected(idents, pred)
        tables = load_tables(self.catalog, [i for i in idents if i in keep])
        cols: dict[str, list[str]] = {"database_name": [], "table_name": [], "key": [], "value": []}
        for ident in java_hash_map_order(idents, identifier_hash):
            table = tables.get(ident)
            if table is None:
                continue
            opts = loaded_options(table.schema.options, table_location(self.catalog, ident))
            for key, value in opts.items():
                cols["database_name"].append(ident.database)
                cols["table_name"].append(ident.table)
                cols["key"].append(key)
                cols["value"].append(value)
        n = len(cols["key"])
        return n, {c: (lambda c=c: pa.array(cols[c], pa.string())) for c in cols}


def loaded_options(stored: Mapping[str, str], path: str) -> dict[str, str]:
    """The options of a table as Paimon's catalog loads it, in its map's iteration order."""
    opts = dict(stored)
    opts[PATH] = path  # AbstractCatalog.putPathOption on the schema's HashMap
    order = java_hash_map_order(opts)  # the schema's HashMap, filled in file order
    order = java_hash_map_order(order, copied=True)  # copyInternal: new HashMap<>(schema options)
    if SCAN_MODE not in opts:
        for keys, mode in _IMPLIED_SCAN_MODES:
            if any(k in opts for k in keys):
                opts[SCAN_MODE] = mode
                order.append(SCAN_MODE)
                break
    return {k: opts[k] for k in java_hash_map_order(order)}  # Options.fromMap, then setDefaultValues
