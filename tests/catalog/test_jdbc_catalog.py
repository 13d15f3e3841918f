"""The JDBC catalog (``metastore = jdbc``) on SQLite and on a real PostgreSQL server: catalog
operations, the rows in Paimon's tables (names and columns of Paimon's ``JdbcUtils`` DDL; facts of
Paimon's ``JdbcCatalogTest``), bad input, and pypaimon 2.1.0's own JdbcCatalog opening what we made
(and the other way round)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql.catalog.factory import load_catalog
from paimon_sql.catalog.jdbc import JdbcCatalog
from paimon_sql.errors import (
    AlreadyExistsError,
    DatabaseNotEmptyError,
    DatabaseNotFoundError,
    NotFoundError,
    TableNotFoundError,
    UnsupportedError,
    ValidationError,
)
from paimon_sql.table.table import Table
from tests.helpers.postgres_server import PostgresServer, postgres_server_fixture  # noqa: F401
from tests.helpers.s3_server import S3Warehouse, s3_server_fixture, s3_warehouse_fixture  # noqa: F401

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


class Backend:
    """One catalog database: its options and a way to run SQL on it directly."""

    def __init__(self, kind: str, options: dict[str, str], rows: Callable[[str], list[tuple[Any, ...]]]) -> None:
        self.kind = kind
        self.options = options
        self.rows = rows


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        db = tmp_path / "catalog.db"

        def rows(sql: str) -> list[tuple[Any, ...]]:
            con = sqlite3.connect(db)
            try:
                return [tuple(r) for r in con.execute(sql).fetchall()]
            finally:
                con.close()

        yield Backend("sqlite", {"metastore": "jdbc", "uri": f"jdbc:sqlite:{db}"}, rows)
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        name = server.new_database()
        yield Backend("postgresql", server.options(name), lambda sql: server.rows(name, sql))


def _catalog(tmp_path: Path, backend: Backend, **extra: str) -> JdbcCatalog:
    cat = load_catalog(str(tmp_path / "wh"), {**backend.options, **extra})
    assert isinstance(cat, JdbcCatalog)
    return cat


def test_databases_with_properties(tmp_path: Path, backend: Backend) -> None:
    cat = _catalog(tmp_path, backend)
    wh = str(tmp_path / "wh")
    assert cat.list_databases() == []
    cat.create_database("db1", properties={"owner": "me", "k": "v"})
    cat.create_database("db2")
    with pytest.raises(AlreadyExistsError, match="Database db1 already exists"):
        cat.create_database("db1")
    cat.create_database("db1", ignore_if_exists=True)
    assert cat.list_databases() == ["db1", "db2"]
    assert cat.database_exists("db1") and not cat.database_exists("nope")
    assert cat.database_properties("db1") == {"owner": "me", "k": "v", "location": f"{wh}/db1.db"}
    # Paimon's rows: the 'exists' marker and the location, under catalog key 'jdbc'
    assert sorted(backend.rows("SELECT catalog_key, database_name, property_key, property_value "
                               "FROM paimon_database_properties WHERE database_name = 'db2'")) == [
        ("jdbc", "db2", "exists", "true"), ("jdbc", "db2", "location", f"{wh}/db2.db")]
    cat.alter_database("db1", {"k": "v2", "new": "x"}, remove_keys=["owner"])
    assert cat.database_properties("db1") == {"k": "v2", "new": "x", "location": f"{wh}/db1.db"}
    with pytest.raises(DatabaseNotFoundError):
        cat.database_properties("nope")
    # another catalog key in the same database sees none of them
    other = _catalog(tmp_path, backend, **{"catalog-key": "other"})
    assert other.list_databases() == []
    cat.drop_database("db2")
    assert cat.list_databases() == ["db1"]
    assert backend.rows("SELECT * FROM paimon_database_properties WHERE database_name = 'db2'") == []
    with pytest.raises(DatabaseNotFoundError):
        cat.drop_database("db2")
    cat.drop_database("db2", ignore_if_not_exists=True)


def test_tables_create_list_rename_drop(tmp_path: Path, backend: Backend) -> None:
    cat = _catalog(tmp_path, backend)
    cat.create_database("db")
    t = cat.create_table("db.t", SCHEMA, primary_keys=["id", "dt"], partition_keys=["dt"],
                         options={"bucket": "2", "file.format": "parquet"})
    assert isinstance(t, Table)
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"], "dt": ["x", "y"]}, schema=SCHEMA))
    cat.create_table("db.ap", SCHEMA)
    assert cat.list_tables("db") == ["ap", "t"]
    assert backend.rows("SELECT catalog_key, database_name, table_name FROM paimon_tables ORDER BY table_name") == [
        ("jdbc", "db", "ap"), ("jdbc", "db", "t")]
    # sync-all-properties (default true): options with the keys, as Paimon's collectTableProperties
    props = dict(backend.rows("SELECT property_key, property_value FROM paimon_table_properties "
                              "WHERE table_name = 't'"))
    assert props == {"bucket": "2", "file.format": "parquet", "primary-key": "id,dt", "partition": "dt",
                     "bucket-key": "id"}
    # the data stays where Paimon puts it
    assert (tmp_path / "wh" / "db.db" / "t" / "schema" / "schema-0").is_file()
    assert (tmp_path / "wh" / "db.db" / "t" / "snapshot" / "snapshot-1").is_file()

    with pytest.raises(AlreadyExistsError, match="Table db.t already exists"):
        cat.create_table("db.t", SCHEMA)
    assert cat.create_table("db.t", SCHEMA, ignore_if_exists=True).latest_snapshot() is not None
    with pytest.raises(DatabaseNotFoundError):
        cat.create_table("nodb.t", SCHEMA)
    with pytest.raises(DatabaseNotFoundError):  # Paimon's testUpperCase: names are as given
        cat.create_table("DB.t2", SCHEMA)
    with pytest.raises(TableNotFoundError, match="Table db.missing does not exist"):
        cat.get_table("db.missing")
    with pytest.raises(DatabaseNotFoundError):
        cat.get_table("nodb.t")
    assert not cat.table_exists("db.missing")

    cat.rename_table("db.t", "db.t2")
    assert cat.list_tables("db") == ["ap", "t2"]
    assert cat.get_table("db.t2").read().num_rows == 2  # type: ignore[union-attr]
    assert not (tmp_path / "wh" / "db.db" / "t").exists()
    # (the append table without options has no rows there)
    assert backend.rows("SELECT DISTINCT table_name FROM paimon_table_properties ORDER BY table_name") == [("t2",)]
    with pytest.raises(AlreadyExistsError):
        cat.rename_table("db.ap", "db.t2")
    with pytest.raises(TableNotFoundError):
        cat.rename_table("db.nope", "db.x")

    with pytest.raises(DatabaseNotEmptyError):
        cat.drop_database("db")
    cat.drop_table("db.ap")
    assert cat.list_tables("db") == ["t2"]
    assert not (tmp_path / "wh" / "db.db" / "ap").exists()
    with pytest.raises(TableNotFoundError):
        cat.drop_table("db.ap")
    cat.drop_database("db", cascade=True)
    assert cat.list_databases() == []
    assert backend.rows("SELECT * FROM paimon_tables") == []
    assert backend.rows("SELECT * FROM paimon_table_properties") == []
    assert not (tmp_path / "wh" / "db.db").exists()


def test_table_folder_missing_and_orphan_folders_and_repair(tmp_path: Path, backend: Backend) -> None:
    cat = _catalog(tmp_path, backend)
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA)
    path = tmp_path / "wh" / "db.db" / "t"
    # Paimon's testDropTableWhenTablePathMissing
    import shutil

    shutil.rmtree(path)
    with pytest.raises(NotFoundError, match=f"There is no paimon table in {path}"):
        cat.get_table("db.t")
    assert cat.list_tables("db") == ["t"]
    cat.drop_table("db.t")
    assert cat.list_tables("db") == []
    # a table of the filesystem catalog in the same warehouse: not listed, repaired on demand
    fs = load_catalog(str(tmp_path / "wh"))
    fs.create_database("db", ignore_if_exists=True)
    fs.create_table("db.fs", SCHEMA)
    assert cat.list_tables("db") == []
    with pytest.raises(AlreadyExistsError, match="repair"):
        cat.create_table("db.fs", SCHEMA)
    cat.repair_table("db.fs")
    assert cat.list_tables("db") == ["fs"]
    with pytest.raises(TableNotFoundError):
        cat.repair_table("db.none")


def test_global_system_tables_list_the_jdbc_catalog(tmp_path: Path, backend: Backend) -> None:
    cat = _catalog(tmp_path, backend)
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, options={"bucket": "-1"})
    load_catalog(str(tmp_path / "wh")).create_table("db.hidden", SCHEMA)  # on disk, not in the catalog
    tables = cat.get_table("sys.tables").read()  # type: ignore[union-attr]
    assert tables.column("table_name").to_pylist() == ["t"]
    opts = cat.get_table("sys.all_table_options").read().to_pylist()  # type: ignore[union-attr]
    assert {(r["table_name"], r["key"]) for r in opts} >= {("t", "bucket")}
    assert all(r["table_name"] == "t" for r in opts)


def test_bad_input_names_the_option_and_writes_nothing(tmp_path: Path) -> None:
    wh = tmp_path / "wh"
    with pytest.raises(ValidationError, match="'uri'"):
        load_catalog(str(wh), {"metastore": "jdbc"})
    with pytest.raises(ValidationError, match=r"'uri' has an unknown JDBC URI kind 'jdbc:oracle:thin:@x'"):
        load_catalog(str(wh), {"metastore": "jdbc", "uri": "jdbc:oracle:thin:@x"})
    with pytest.raises(ValidationError, match="'uri' has an unknown JDBC URI kind"):
        load_catalog(str(wh), {"metastore": "jdbc", "uri": "/just/a/path.db"})
    with pytest.raises(UnsupportedError, match="'uri'.*not 'mysql'"):
        load_catalog(str(wh), {"metastore": "jdbc", "uri": "jdbc:mysql://h:3306/db"})
    with pytest.raises(ValidationError, match="'lock-acquire-timeout'"):
        load_catalog(str(wh), {"metastore": "jdbc", "uri": f"sqlite:{tmp_path / 'c.db'}",
                               "lock-acquire-timeout": "soon"})
    # refused port: the error names 'uri'
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pytest.importorskip("pg8000")
    with pytest.raises(ValidationError, match=r"Cannot connect to the PostgreSQL server of catalog option 'uri'"):
        load_catalog(str(wh), {"metastore": "jdbc", "uri": f"jdbc:postgresql://127.0.0.1:{port}/db",
                               "jdbc.user": "u", "jdbc.password": "p"})
    assert not wh.exists()


def test_postgres_wrong_password_and_missing_database(tmp_path: Path, postgres_server: PostgresServer) -> None:
    name = postgres_server.new_database()
    wh = tmp_path / "wh"
    with pytest.raises(ValidationError, match=r"refused the credentials of catalog options 'jdbc.user'"):
        load_catalog(str(wh), {**postgres_server.options(name), "jdbc.password": "wrong"})
    with pytest.raises(ValidationError, match=r"'uri' = .* names a database the server does not have"):
        load_catalog(str(wh), postgres_server.options("no_such_db"))
    assert not wh.exists()
    assert postgres_server.rows(name, "SELECT count(*) FROM information_schema.tables "
                                      "WHERE table_name LIKE 'paimon%'") == [(0,)]


def test_sqlite_uri_forms_and_ddl(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    for uri in (f"jdbc:sqlite:{db}", f"sqlite:{db}", f"jdbc:sqlite:file:{db}?mode=rwc"):
        cat = load_catalog(str(tmp_path / "wh"), {"metastore": "jdbc", "uri": uri, "lock.enabled": "true"})
        cat.create_database("db", ignore_if_exists=True)
    con = sqlite3.connect(db)
    ddl = dict(con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
    con.close()
    assert sorted(ddl) == ["paimon_database_properties", "paimon_distributed_locks", "paimon_table_properties",
                           "paimon_tables", "paimon_views"]
    cols = {name: [c.split()[0] for c in sql[sql.index("(") + 1:].split(",") if c.split() and "KEY" not in c
                   and not c.strip().startswith(("catalog_key)", "database_name)", "table_name)"))]
            for name, sql in ddl.items()}
    assert cols["paimon_tables"][:3] == ["catalog_key", "database_name", "table_name"]
    assert cols["paimon_distributed_locks"][:3] == ["lock_id", "acquired_at", "expire_time_seconds"]
    assert "VARCHAR(255)" in ddl["paimon_distributed_locks"]  # lock-key-max-length


def test_pypaimon_jdbc_catalog_opens_ours_and_we_open_its(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.helpers.interop_util import PypaimonIO, ensure_pypaimon_python

    python, why = ensure_pypaimon_python()
    if python is None:
        pytest.skip(why)
    uri = f"jdbc:sqlite:{tmp_path / 'catalog.db'}"
    options = {"metastore": "jdbc", "uri": uri}
    cat = load_catalog(str(tmp_path / "wh"), options)
    cat.create_database("db")
    t = cat.create_table("db.ours", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    assert isinstance(t, Table)
    t.write(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "dt": ["x"] * 3}, schema=SCHEMA))
    t.write(pa.table({"id": [2], "v": ["B"], "dt": ["x"]}, schema=SCHEMA))

    monkeypatch.setenv("PYPAIMON_CATALOG_OPTIONS", json.dumps(options))
    io = PypaimonIO(python, tmp_path / "wh", tmp_path)
    got = io.read("db.ours").sort_by("id")
    assert got.column("v").to_pylist() == ["a", "B", "c"]
    # pypaimon creates a table through its JdbcCatalog: ours lists and reads it
    io.write("db.theirs", pa.table({"id": [7, 8], "v": ["p", "q"], "dt": ["z", "z"]}, schema=SCHEMA))
    assert cat.list_tables("db") == ["ours", "theirs"]
    theirs = cat.get_table("db.theirs")
    assert sorted(theirs.read().column("id").to_pylist()) == [7, 8]  # type: ignore[union-attr]


def test_jdbc_catalog_on_an_s3_warehouse_takes_the_lock_by_default(tmp_path: Path, s3_warehouse: S3Warehouse) -> None:
    """Paimon's rule: on an object store ``lock.enabled`` defaults to true; commits then create
    their snapshot under the table's lock (the conditional PUT inside it)."""
    from paimon_sql.fs.snapshot_commit import CatalogLockCommit, ConditionalPutCommit

    options = {**s3_warehouse.options, "metastore": "jdbc", "uri": f"jdbc:sqlite:{tmp_path / 'c.db'}"}
    cat = load_catalog(s3_warehouse.uri, options)
    cat.create_database("db")
    t = cat.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    assert isinstance(t, Table)
    commit = t.file_io.snapshot_commit
    assert isinstance(commit, CatalogLockCommit) and isinstance(commit.inner, ConditionalPutCommit)
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"], "dt": ["x", "x"]}, schema=SCHEMA))
    assert load_catalog(s3_warehouse.uri, options).get_table("db.t").read().num_rows == 2  # type: ignore[union-attr]
    keys = s3_warehouse.server.keys(s3_warehouse.bucket)
    assert "warehouse/db.db/t/snapshot/snapshot-1" in keys and "warehouse/db.db/t/schema/schema-0" in keys
    con = sqlite3.connect(tmp_path / "c.db")
    try:
        assert con.execute("SELECT property_value FROM paimon_database_properties WHERE property_key = "
                           "'location'").fetchall() == [(f"{s3_warehouse.uri}/db.db",)]
        assert con.execute("SELECT count(*) FROM paimon_distributed_locks").fetchone() == (0,)
    finally:
        con.close()
