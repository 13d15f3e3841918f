"""``sys.partitions``: one row per partition of every partitioned table (Paimon's
``AllPartitionsTable`` over ``Catalog.listPartitions`` of a filesystem catalog).

A table's partitions are those of its latest snapshot with files left (all levels), with the
statistics ``t$partitions`` computes: record count, file size and file count summed over ADD (+)
and DELETE (-) entries, and the newest file creation time (epoch millis; paimon_sql stores and
shows creation times as UTC); ``done`` is false. ``partition_name`` is ``k=v/k2=v2`` with the
values as partition folders name them (unescaped; ``partition.legacy-name`` and
``partition.default-name`` apply).

Row order is Paimon's: the tables in ``HashMap<Identifier, ...>`` order, each table's partitions in
the order of the ``ConcurrentHashMap<BinaryRow, ...>`` its scan merges them in (simulated; Java
fills it from manifests read in parallel, so ties inside one hash bin may come out otherwise).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.catalog.global_tables.base import (
    GlobalSystemTable,
    all_identifiers,
    load_tables,
    selected,
)
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.format.binary_row import decode_row
from paimon_sql.format.murmur import murmur_hash_bytes
from paimon_sql.format.partition_path import partition_value_string
from paimon_sql.meta.data_file_meta import wall_clock_to_epoch_ms
from paimon_sql.meta.file_store import FileStore
from paimon_sql.predicate import Predicate
from paimon_sql.table.system._format import (
    java_concurrent_hash_map_order,
    java_hash_map_order,
    java_hash_of_strings,
)
from paimon_sql.table.system._snapshot_files import all_entries
from paimon_sql.table.system.base import ColumnFn, constant
from paimon_sql.table.system.partitions import entry_stats
from paimon_sql.table.table import Table
from paimon_sql.types import BigIntType, BooleanType, DataField, VarCharType

_STATS = ("record_count", "file_size_in_bytes", "file_count", "last_file_creation_time")


class AllPartitionsTable(GlobalSystemTable):
    SYSTEM_NAME = "partitions"
    FIELDS = (
        DataField(0, "database_name", VarCharType()),
        DataField(1, "table_name", VarCharType()),
        DataField(2, "partition_name", VarCharType()),
        DataField(3, "record_count", BigIntType()),
        DataField(4, "file_size_in_bytes", BigIntType()),
        DataField(5, "file_count", BigIntType()),
        DataField(6, "last_file_creation_time", BigIntType()),
        DataField(7, "done", BooleanType()),
    )

    def _columns(self, needed: frozenset[str], pred: Predicate | None) -> tuple[int, Mapping[str, ColumnFn]]:
        # every table is loaded (its schema says whether it is partitioned, and the partitioned
        # ones make the map whose order the rows follow); only the selected ones are scanned
        idents = all_identifiers(self.catalog)
        tables = load_tables(self.catalog, idents)
        partitioned = [i for i, t in tables.items() if t.schema.partition_keys]
        keep = selected(partitioned, pred)
        rows: dict[str, list[object]] = {c: [] for c in ("database_name", "table_name", "partition_name", *_STATS)}
        for ident in java_hash_map_order(partitioned, identifier_hash):
            if ident not in keep:
                continue
            names, stats = table_partitions(tables[ident])
            rows["database_name"].extend([ident.database] * len(names))
            rows["table_name"].extend([ident.table] * len(names))
            rows["partition_name"].extend(names)
            for c in _STATS:
                rows[c].extend(stats[c])
        n = len(rows["partition_name"])
        cols: dict[str, ColumnFn] = {
            c: (lambda c=c: pa.array(rows[c], pa.string() if c.endswith("_name") else pa.int64()))  # type: ignore[misc]
            for c in rows
        }
        cols["done"] = constant(n, False, pa.bool_())
        return n, cols


def identifier_hash(ident: Identifier) -> int:
    """``Identifier.hashCode()``: ``Objects.hash(database, object)``."""
    return java_hash_of_strings(ident.database, ident.table)


def table_partitions(table: Table) -> tuple[list[str], dict[str, list[object]]]:
    """The partition names of the table's latest snapshot (partitions with files) and their
    statistics, in Paimon's order."""
    store = table.store
    snap = store.snapshots.latest()
    if snap is None:
        return [], {c: [] for c in _STATS}
    entries = all_entries(store, snap)
    g = entry_stats(store, snap, by_bucket=False, entries=entries)
    at = {p: i for i, p in enumerate(g["partition"].to_pylist())}
    order = [p for p in java_concurrent_hash_map_order((e.partition for e in entries), partition_hash) if p in at]
    idx = pa.array([at[p] for p in order], pa.int64())
    stats: dict[str, list[object]] = {
        "record_count": g["record_count"].take(idx).to_pylist(),
        "file_size_in_bytes": g["file_size_in_bytes"].take(idx).to_pylist(),
        "file_count": g["file_count"].take(idx).to_pylist(),
        # $partitions shows the writers' local wall clock; this column is epoch millis
        "last_file_creation_time": [None if v is None else wall_clock_to_epoch_ms(v)
                                    for v in g["last_update_time"].take(idx).to_pylist()],
    }
    return [partition_name(store, p) for p in order], stats


def partition_hash(partition: bytes) -> int:
    """``BinaryRow.hashCode()`` of a serialised partition (Murmur3 of the row, after its 4-byte
    arity)."""
    return murmur_hash_bytes(partition[4:]) & 0xFFFFFFFF


def partition_name(store: FileStore, partition: bytes) -> str:
    """``k=v/k2=v2`` as Paimon's ``InternalRowPartitionComputer`` and ``buildPartitionName`` make it."""
    values = decode_row(partition, store.partition_types)
    default, legacy = store.options.partition_default_name, store.options.partition_legacy_name
    return "/".join(
        f"{f.name}={partition_value_string(v, f.type, default, legacy)}"
        for f, v in zip(store.partition_fields, values)
    )
