"""Paimon's global system tables of database ``sys`` (``sys.tables``, ``sys.partitions``,
``sys.all_table_options``, ``sys.catalog_options``) over a real catalog with several databases,
tables and partitions: columns as Paimon declares them, rows and row order as Paimon gives them,
and the database ``sys`` as Paimon's catalog treats it."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.catalog.global_tables import GLOBAL_SYSTEM_TABLES, GlobalSystemTable
from paimon_sql.catalog.global_tables.all_partitions import identifier_hash
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import TableNotFoundError, ValidationError
from paimon_sql.procedures.registry import table_arg
from paimon_sql.table.system._format import (
    java_concurrent_hash_map_order,
    java_hash_map_order,
    java_hash_of_strings,
)
from paimon_sql.table.table import Table

# Paimon's TABLE_TYPE of each global system table (org.apache.paimon.table.system.All*Table,
# CatalogOptionsTable), as type strings
PAIMON_COLUMNS = {
    "tables": [
        "database_name STRING", "table_name STRING", "table_type STRING", "partitioned BOOLEAN",
        "primary_key BOOLEAN", "owner STRING", "created_at BIGINT", "created_by STRING", "updated_at BIGINT",
        "updated_by STRING", "record_count BIGINT", "file_size_in_bytes BIGINT", "file_count BIGINT",
        "last_file_creation_time BIGINT",
    ],
    "partitions": [
        "database_name STRING", "table_name STRING", "partition_name STRING", "record_count BIGINT",
        "file_size_in_bytes BIGINT", "file_count BIGINT", "last_file_creation_time BIGINT", "done BOOLEAN",
    ],
    "all_table_options": ["database_name STRING", "table_name STRING", "key STRING", "value STRING"],
    "catalog_options": ["key STRING NOT NULL", "value STRING NOT NULL"],
}
ENABLED = {"catalog-options-table.enabled": "true"}


def _sys(cat: Catalog, name: str) -> GlobalSystemTable:
    t = cat.get_table(f"sys.{name}")
    assert isinstance(t, GlobalSystemTable)
    return t


@pytest.fixture()
def wh(tmp_path) -> Catalog:  # type: ignore[no-untyped-def]
    """Two databases: db.p (partitioned by a string and a date, three partitions), db.pk (primary
    key, unpartitioned, owner options), db2.agg (Paimon's AllTableOptionsTableTest table), db2.e
    (partitioned, no snapshot), and an empty database."""
    cat = Catalog(str(tmp_path / "warehouse"))
    for name in ("db", "db2", "empty"):
        cat.create_database(name)
    p = cat.create_table(
        "db.p", pa.schema([("id", pa.int64()), ("g", pa.string()), ("d", pa.date32())]), partition_keys=["g", "d"],
    )
    day = dt.date(2024, 1, 2)
    p.write(pa.table({"id": [1, 2, 3], "g": ["a", "b", "a"], "d": [day, day, day]}))
    p.write(pa.table({"id": [4, 5], "g": [None, "a"], "d": [day, dt.date(2024, 1, 3)]}))
    pk = cat.create_table(
        "db.pk", pa.schema([("k", pa.int32()), ("v", pa.string())]), primary_keys=["k"],
        options={"bucket": "2", "owner": "alice", "createdAt": "1700000000000", "updatedBy": "bob"},
    )
    pk.write(pa.table({"k": [1, 2, 3], "v": ["x", "y", "z"]}))
    cat.create_table(
        "db2.agg", pa.schema([("product_id", pa.int32()), ("price", pa.int32()), ("sales", pa.int32())]),
        primary_keys=["product_id"],
        options={"merge-engine": "aggregation", "fields.price.aggregate-function": "max",
                 "fields.sales.aggregate-function": "sum"},
    )
    cat.create_table("db2.e", pa.schema([("id", pa.int64()), ("g", pa.string())]), partition_keys=["g"])
    return cat


# -- the database sys --------------------------------------------------------------------------


def test_registry_and_columns_are_paimons(wh: Catalog) -> None:
    assert list(GLOBAL_SYSTEM_TABLES) == ["tables", "partitions", "all_table_options", "catalog_options"]
    cat = Catalog(wh.warehouse, ENABLED)
    for name, cols in PAIMON_COLUMNS.items():
        t = _sys(cat, name)
        assert [f"{f.name} {f.type.to_string()}" for f in t.fields] == cols
        assert t.name == f"sys.{name}" and repr(t) == f"{type(t).__name__}('sys.{name}')"
        result = t.read()
        assert result.schema == t.arrow_schema
        assert [f.nullable for f in result.schema] == [not c.endswith("NOT NULL") for c in cols]


def test_sys_is_a_database_of_the_global_tables_only(wh: Catalog) -> None:
    # Paimon: getDatabase("sys") exists, the filesystem catalog does not list it; its tables are
    # loadGlobalTableNames (catalog_options only with catalog-options-table.enabled)
    assert wh.database_exists("sys")
    assert wh.list_databases() == ["db", "db2", "empty"]
    assert wh.list_tables("sys") == ["tables", "partitions", "all_table_options"]
    assert Catalog(wh.warehouse, ENABLED).list_tables("sys") == [
        "tables", "partitions", "all_table_options", "catalog_options",
    ]
    assert wh.table_exists("sys.tables") and wh.table_exists("sys.PARTITIONS")
    assert not wh.table_exists("sys.catalog_options") and not wh.table_exists("sys.nope")
    assert isinstance(wh.get_table("sys.TABLES"), GLOBAL_SYSTEM_TABLES["tables"])


def test_unknown_and_disabled_global_tables(wh: Catalog) -> None:
    with pytest.raises(TableNotFoundError, match=r"sys\.nope does not exist.*tables, partitions, all_table_options"):
        wh.get_table("sys.nope")
    with pytest.raises(TableNotFoundError, match="catalog-options-table.enabled=true"):
        wh.get_table("sys.catalog_options")
    with pytest.raises(TableNotFoundError, match="no branches or system tables"):
        wh.get_table("sys.tables$files")
    with pytest.raises(ValidationError, match="catalog-options-table.enabled.*'yes'"):
        Catalog(wh.warehouse, {"catalog-options-table.enabled": "yes"}).list_tables("sys")


def test_sys_cannot_be_created_dropped_or_given_tables(wh: Catalog) -> None:
    schema = pa.schema([("id", pa.int64())])
    with pytest.raises(ValidationError, match="create database sys.*system database"):
        wh.create_database("sys")
    with pytest.raises(ValidationError, match="create database sys"):
        wh.create_database("sys", ignore_if_exists=True)
    with pytest.raises(ValidationError, match="drop database sys"):
        wh.drop_database("sys", cascade=True)
    with pytest.raises(ValidationError, match=r"create table sys\.x"):
        wh.create_table("sys.x", schema)
    with pytest.raises(ValidationError, match=r"create table sys\.tables"):
        wh.create_table("sys.tables", schema, ignore_if_exists=True)
    with pytest.raises(ValidationError, match=r"drop table sys\.tables"):
        wh.drop_table("sys.tables")
    with pytest.raises(ValidationError, match=r"rename table db\.pk to sys\.pk"):
        wh.rename_table("db.pk", "sys.pk")
    with pytest.raises(ValidationError, match=r"rename table sys\.tables"):
        wh.rename_table("sys.tables", "db.t2")
    assert not (wh.file_io.exists(wh.warehouse + "/sys.db"))
    assert wh.list_tables("db") == ["p", "pk"]


def test_global_tables_are_read_only_views(wh: Catalog) -> None:
    t = _sys(wh, "tables")
    assert not isinstance(t, Table) and not hasattr(t, "write")
    with pytest.raises(ValidationError, match="not the system table sys.tables"):
        table_arg(wh, "create_tag", "sys.tables")


def test_a_stray_sys_folder_is_not_a_database(wh: Catalog) -> None:
    wh.file_io.mkdirs(wh.warehouse + "/sys.db/t/schema")
    assert wh.list_databases() == ["db", "db2", "empty"]
    assert wh.list_tables("sys") == ["tables", "partitions", "all_table_options"]
    assert [r["database_name"] for r in _sys(wh, "tables").read().to_pylist()] == ["db", "db", "db2", "db2"]


# -- sys.tables ----------------------------------------------------------------------------------


def test_tables(wh: Catalog) -> None:
    rows = _sys(wh, "tables").read().to_pylist()
    none = dict.fromkeys(("record_count", "file_size_in_bytes", "file_count", "last_file_creation_time"))
    assert rows == [
        {"database_name": "db", "table_name": "p", "table_type": "table", "partitioned": True,
         "primary_key": False, "owner": None, "created_at": None, "created_by": None, "updated_at": None,
         "updated_by": None, **none},
        {"database_name": "db", "table_name": "pk", "table_type": "table", "partitioned": False,
         "primary_key": True, "owner": "alice", "created_at": 1700000000000, "created_by": None,
         "updated_at": None, "updated_by": "bob", **none},
        {"database_name": "db2", "table_name": "agg", "table_type": "table", "partitioned": False,
         "primary_key": True, "owner": None, "created_at": None, "created_by": None, "updated_at": None,
         "updated_by": None, **none},
        {"database_name": "db2", "table_name": "e", "table_type": "table", "partitioned": True,
         "primary_key": False, "owner": None, "created_at": None, "created_by": None, "updated_at": None,
         "updated_by": None, **none},
    ]


def test_tables_follow_the_catalog(wh: Catalog) -> None:
    wh.rename_table("db.pk", "db2.pk2")
    wh.drop_table("db2.e")
    names = [(r["database_name"], r["table_name"]) for r in _sys(wh, "tables").read().to_pylist()]
    assert names == [("db", "p"), ("db2", "agg"), ("db2", "pk2")]
    wh.drop_database("db2", cascade=True)
    assert [r["table_name"] for r in _sys(wh, "tables").read(["table_name"]).to_pylist()] == ["p"]


def test_tables_bad_created_at_names_table_and_option(wh: Catalog) -> None:
    wh.get_table("db.pk").alter(set_options={"createdAt": "yesterday"})  # type: ignore[union-attr]
    with pytest.raises(ValidationError, match=r"'createdAt' = 'yesterday' of table db\.pk"):
        _sys(wh, "tables").read()
    # the column is not computed when not asked for
    assert _sys(wh, "tables").read(["table_name"]).num_rows == 4


def test_tables_projection_and_filter(wh: Catalog) -> None:
    t = _sys(wh, "tables")
    got = t.read(columns=["TABLE_NAME", "primary_key"], filter="database_name = 'db2' AND partitioned = false")
    assert got.to_pylist() == [{"table_name": "agg", "primary_key": True}]
    assert t.read(filter="table_name IN ('p', 'e')")["table_name"].to_pylist() == ["p", "e"]
    assert t.read(filter="database_name = 'nope'").num_rows == 0
    with pytest.raises(ValidationError, match="Column 'nope' does not exist in system table sys.tables"):
        t.read(columns=["nope"])


# -- sys.partitions ------------------------------------------------------------------------------


def test_partitions_match_each_tables_partitions(wh: Catalog) -> None:
    rows = _sys(wh, "partitions").read().to_pylist()
    # db.p only: db2.e has no snapshot, the others are unpartitioned
    assert {(r["database_name"], r["table_name"]) for r in rows} == {("db", "p")}
    # legacy partition names: a DATE as days since the epoch, null as the default partition name
    days = (dt.date(2024, 1, 2) - dt.date(1970, 1, 1)).days
    by_name = {r["partition_name"]: r for r in rows}
    assert set(by_name) == {
        f"g=a/d={days}", f"g=b/d={days}", f"g=__DEFAULT_PARTITION__/d={days}", f"g=a/d={days + 1}",
    }
    per_table = {r["partition"]: r for r in wh.get_table("db.p$partitions").read().to_pylist()}
    for name, r in by_name.items():
        g, d = (kv.split("=")[1] for kv in name.split("/"))
        mine = per_table[f"g={g}/d={dt.date(1970, 1, 1) + dt.timedelta(days=int(d))}"]
        assert (r["record_count"], r["file_size_in_bytes"], r["file_count"]) == (
            mine["record_count"], mine["file_size_in_bytes"], mine["file_count"],
        )
        last = mine["last_update_time"].replace(tzinfo=dt.timezone.utc)
        assert r["last_file_creation_time"] == int(last.timestamp() * 1000)
        assert r["done"] is False


def test_partitions_row_order_is_paimons(wh: Catalog) -> None:
    """Tables in HashMap<Identifier> order, each table's partitions in ConcurrentHashMap<BinaryRow>
    order of first appearance in its manifests (both checked against Java below)."""
    wh.create_table("db2.q", pa.schema([("id", pa.int64()), ("h", pa.int32())]), partition_keys=["h"]).write(
        pa.table({"id": list(range(40)), "h": [i % 20 for i in range(40)]})
    )
    t = wh.get_table("db.p")
    assert isinstance(t, Table)
    rows = _sys(wh, "partitions").read(["table_name", "partition_name"]).to_pylist()
    tables = [r["table_name"] for r in rows]
    expected_tables = java_hash_map_order(
        [Identifier("db", "p"), Identifier("db2", "e"), Identifier("db2", "q")], identifier_hash
    )
    assert list(dict.fromkeys(tables)) == [i.table for i in expected_tables if i.table != "e"]
    q = [int(r["partition_name"].split("=")[1]) for r in rows if r["table_name"] == "q"]
    assert sorted(q) == list(range(20)) and q != sorted(q)  # 20 partitions: resized, hash order


def test_partitions_after_overwrite_and_delete(wh: Catalog) -> None:
    t = wh.get_table("db.p")
    assert isinstance(t, Table)
    t.write(pa.table({"id": [9], "g": ["z"], "d": [dt.date(2024, 1, 2)]}), overwrite=True)
    rows = _sys(wh, "partitions").read(filter="table_name = 'p'").to_pylist()
    days = (dt.date(2024, 1, 2) - dt.date(1970, 1, 1)).days
    assert [(r["partition_name"], r["record_count"], r["file_count"]) for r in rows] == [(f"g=z/d={days}", 1, 1)]


def test_partition_names_without_legacy_names(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    t = cat.create_table(
        "db.n", pa.schema([("id", pa.int64()), ("d", pa.date32()), ("s", pa.string())]),
        partition_keys=["d", "s"], options={"partition.legacy-name": "false", "partition.default-name": "NULLS"},
    )
    t.write(pa.table({"id": [1], "d": [dt.date(2024, 5, 6)], "s": [""]}))
    assert _sys(cat, "partitions").read(["partition_name"]).to_pylist() == [{"partition_name": "d=2024-05-06/s=NULLS"}]


def test_partitions_filter_spares_other_tables(wh: Catalog, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from paimon_sql.catalog.global_tables import all_partitions

    scanned: list[str] = []
    real = all_partitions.table_partitions

    def spy(table: Table) -> tuple[list[str], dict[str, list[object]]]:
        scanned.append(table.name)
        return real(table)

    monkeypatch.setattr(all_partitions, "table_partitions", spy)
    rows = _sys(wh, "partitions").read(filter="database_name = 'db2'")
    assert rows.num_rows == 0 and scanned == ["db2.e"]


# -- sys.all_table_options ---------------------------------------------------------------------


def test_all_table_options(wh: Catalog) -> None:
    rows = _sys(wh, "all_table_options").read().to_pylist()
    # Paimon's AllTableOptionsTableTest: the aggregation table's options, besides its path
    agg = [(r["key"], r["value"]) for r in rows if r["table_name"] == "agg" and r["key"] != "path"]
    assert sorted(agg) == [
        ("fields.price.aggregate-function", "max"), ("fields.sales.aggregate-function", "sum"),
        ("merge-engine", "aggregation"),
    ]
    for ident in (Identifier("db", "p"), Identifier("db", "pk"), Identifier("db2", "agg"), Identifier("db2", "e")):
        mine = {r["key"]: r["value"] for r in rows if (r["database_name"], r["table_name"]) == (ident.database, ident.table)}
        stored = wh.get_table(ident).schema.options  # type: ignore[union-attr]
        assert mine == {**stored, "path": f"{wh.warehouse}/{ident.database}.db/{ident.table}"}


def test_all_table_options_row_order_is_paimons(wh: Catalog) -> None:
    rows = _sys(wh, "all_table_options").read().to_pylist()
    idents = [Identifier("db", "p"), Identifier("db", "pk"), Identifier("db2", "agg"), Identifier("db2", "e")]
    order = [(i.database, i.table) for i in java_hash_map_order(idents, identifier_hash)]
    assert list(dict.fromkeys((r["database_name"], r["table_name"]) for r in rows)) == order
    # one table's options: the order of the map of a table Paimon's catalog loads (checked in Java)
    pk = [r["key"] for r in rows if r["table_name"] == "pk"]
    stored = [*wh.get_table("db.pk").schema.options, "path"]  # type: ignore[union-attr]
    assert pk == java_hash_map_order(java_hash_map_order(java_hash_map_order(stored), copied=True))


def test_all_table_options_derives_scan_mode(wh: Catalog) -> None:
    from paimon_sql.catalog.global_tables.all_table_options import loaded_options

    assert loaded_options({"scan.snapshot-id": "3"}, "/w/db.db/t")["scan.mode"] == "from-snapshot"
    assert loaded_options({"scan.timestamp-millis": "3", "scan.snapshot-id": "3"}, "/p")["scan.mode"] == "from-timestamp"
    assert loaded_options({"scan.mode": "latest", "scan.snapshot-id": "3"}, "/p")["scan.mode"] == "latest"
    assert "scan.mode" not in loaded_options({"bucket": "1"}, "/p")


def test_all_table_options_path_keeps_the_warehouse_scheme(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cat = Catalog(f"file:{tmp_path}/wh")
    cat.create_database("db")
    cat.create_table("db.t", pa.schema([("id", pa.int64())]))
    rows = _sys(cat, "all_table_options").read(filter="key = 'path'").to_pylist()
    assert [r["value"] for r in rows] == [f"file:{tmp_path}/wh/db.db/t"]


# -- sys.catalog_options -----------------------------------------------------------------------


def test_catalog_options(wh: Catalog) -> None:
    opts = {**ENABLED, "table-default.bucket": "2", "lock.enabled": "false"}
    cat = Catalog(wh.warehouse, opts)
    rows = _sys(cat, "catalog_options").read().to_pylist()
    expected = {"warehouse": wh.warehouse, **opts}  # a HashMap filled with the warehouse first
    assert [r["key"] for r in rows] == java_hash_map_order(expected)
    assert {r["key"]: r["value"] for r in rows} == expected
    assert _sys(cat, "catalog_options").read(["value"], filter="key = 'lock.enabled'").to_pylist() == [{"value": "false"}]


# -- Java's collections, as checked on a JVM -------------------------------------------------------


def test_java_collection_orders_match_java() -> None:
    # Objects.hash("db", "t") and Objects.hash("default", "T") printed by Java 17
    assert java_hash_of_strings("db", "t") == 100215
    assert java_hash_of_strings("default", "T") == 644281844
    # a ConcurrentHashMap<K, ...> with K.hashCode() = h filled by compute() in this order: Java 17
    # iterates it so (bin 0's nodes split on resizing, the ones before the last run reversed)
    hashes = [16, 0, 48, 32, 80, 64, 1, 2, 3, 4, 5, 6, 17, 65536]
    assert java_concurrent_hash_map_order(hashes, lambda h: h) == [32, 0, 64, 1, 65536, 2, 3, 4, 5, 6, 80, 48, 16, 17]
    # new HashMap<>(a HashMap filled in this order), iterated by Java 17
    keys = ["bucket", "path", "merge-engine", "fields.price.aggregate-function", "fields.sales.aggregate-function",
            "file.format"]
    assert java_hash_map_order(java_hash_map_order(keys), copied=True) == [
        "bucket", "path", "fields.sales.aggregate-function", "merge-engine", "fields.price.aggregate-function",
        "file.format",
    ]
