from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import (
    AlreadyExistsError,
    DatabaseNotFoundError,
    TableNotFoundError,
    UnsupportedError,
    ValidationError,
)

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def test_databases(tmp_path) -> None:
    cat = Catalog(str(tmp_path))
    assert cat.list_databases() == []
    cat.create_database("a")
    cat.create_database("a", ignore_if_exists=True)
    with pytest.raises(AlreadyExistsError, match="Database a already exists"):
        cat.create_database("a")
    cat.create_database("b")
    assert cat.list_databases() == ["a", "b"]
    cat.create_table("b.t", SCHEMA)
    with pytest.raises(ValidationError, match="not empty"):
        cat.drop_database("b")
    cat.drop_database("b", cascade=True)
    assert cat.list_databases() == ["a"]
    with pytest.raises(DatabaseNotFoundError):
        cat.drop_database("zzz")
    cat.drop_database("zzz", ignore_if_not_exists=True)


def test_file_uri_warehouse(tmp_path) -> None:
    cat = Catalog("file://" + str(tmp_path / "wh"))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA)
    assert (tmp_path / "wh" / "db.db" / "t" / "schema" / "schema-0").exists()
    cat2 = Catalog("file:" + str(tmp_path / "wh"))  # Java's spelling
    assert cat2.list_tables("db") == ["t"]


def test_non_local_warehouse_refuses_commits_naming_its_file_system() -> None:
    """Exclusive schema/snapshot creation exists on local (or mounted) storage and on S3 (conditional
    PUT): a warehouse on another pyarrow file system (here Arrow's in-memory ``mock:``) refuses the
    first commit, naming the catalog option of a lock, writing nothing."""
    cat = Catalog("mock:///wh")
    cat.create_database("db")
    with pytest.raises(UnsupportedError, match=r"file system 'mock' has neither an atomic create nor a "
                       r"conditional put. Set catalog option 'lock.enabled'"):
        cat.create_table("db.t", SCHEMA)
    assert cat.list_tables("db") == []
    assert not cat.file_io.exists("wh/db.db/t/schema")


def test_tables(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "2"})
    assert t.schema.primary_keys == ("id",)
    assert not t.schema.field("id").type.nullable  # primary keys are forced NOT NULL
    assert catalog.list_tables("db") == ["t"]
    assert catalog.create_table("db.t", SCHEMA, ignore_if_exists=True).name == "db.t"
    with pytest.raises(AlreadyExistsError, match="db.t"):
        catalog.create_table("db.t", SCHEMA)
    catalog.rename_table("db.t", "db.u")
    assert catalog.list_tables("db") == ["u"]
    with pytest.raises(TableNotFoundError, match="db.t does not exist"):
        catalog.get_table("db.t")
    catalog.drop_table("db.u")
    assert catalog.list_tables("db") == []
    with pytest.raises(TableNotFoundError):
        catalog.drop_table("db.u")


def test_unknown_database_and_table(catalog: Catalog) -> None:
    with pytest.raises(DatabaseNotFoundError, match="nope"):
        catalog.get_table("nope.t")
    with pytest.raises(DatabaseNotFoundError, match="nope"):
        catalog.create_table("nope.t", SCHEMA)
    with pytest.raises(TableNotFoundError, match="db.missing"):
        catalog.get_table("db.missing")
    with pytest.raises(TableNotFoundError, match="db.t does not exist"):
        catalog.get_table("db.t$files")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"options": {"bucket": "x"}}, "bucket"),
        ({"primary_keys": ["id"], "options": {"merge-engine": "nope"}}, "merge-engine"),
        ({"primary_keys": ["missing"]}, "missing"),
        ({"partition_keys": ["missing"]}, "missing"),
        ({"options": {"bucket": "2"}}, "bucket-key"),
    ],
)
def test_bad_create_table(catalog: Catalog, kwargs, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValidationError, match=match):
        catalog.create_table("db.bad", SCHEMA, **kwargs)
    assert not catalog.table_exists("db.bad")


def test_cross_partition_upsert_table(catalog: Catalog) -> None:
    """A primary key without every partition column: a cross-partition upsert table (see
    tests/write/test_cross_partition.py); with sequence.field refused as Paimon refuses it."""
    t = catalog.create_table("db.x", SCHEMA, primary_keys=["id"], partition_keys=["v"])
    assert t.store.options.bucket == -1
    with pytest.raises(ValidationError, match="You can not use sequence.field in cross partition update case"):
        catalog.create_table("db.y", SCHEMA, primary_keys=["id"], partition_keys=["v"],
                             options={"sequence.field": "id"})
    assert not catalog.table_exists("db.y")


def test_column_comments_and_exact_types_from_arrow_metadata(tmp_path: Path) -> None:
    from paimon_sql.types import ARROW_COMMENT_KEY, ARROW_TYPE_KEY

    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    schema = pa.schema([
        pa.field("id", pa.int64(), False, metadata={ARROW_COMMENT_KEY: b"the key"}),
        pa.field("code", pa.string(), metadata={ARROW_TYPE_KEY: b"CHAR(4)"}),
        pa.field("name", pa.string(), metadata={ARROW_TYPE_KEY: b"VARCHAR(9)", ARROW_COMMENT_KEY: b"who"}),
    ])
    t = cat.create_table("db.t", schema, primary_keys=["id"], options={"bucket": "1"})
    again = Catalog(str(tmp_path)).get_table("db.t")
    assert [(f.name, f.type.to_string(), f.description) for f in again.schema.fields] == [
        ("id", "BIGINT NOT NULL", "the key"), ("code", "CHAR(4)", None), ("name", "VARCHAR(9)", "who")]
    t.alter(column_comments={"code": "iso code", "id": None})
    fields = Catalog(str(tmp_path)).get_table("db.t").schema.fields
    assert [f.description for f in fields] == [None, "iso code", "who"]
    with pytest.raises(ValidationError, match="'n'.*INT.*does not match"):
        cat.create_table("db.bad", pa.schema([pa.field("n", pa.string(), metadata={ARROW_TYPE_KEY: b"INT"})]))
    with pytest.raises(ValidationError, match="'nope'"):
        t.alter(column_comments={"nope": "x"})
