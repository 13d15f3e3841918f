"""The bridge handlers without Spark: metadata calls, error kinds, time travel, statement rewrite."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.spark import handlers
from paimon_sql.spark.handlers import dispatch, rewrite_sql
from paimon_sql.spark.handlers.tag_statements import SessionCatalogs


def _schema(*cols: tuple[str, str, bool]) -> str:
    return json.dumps(
        {"type": "struct", "fields": [{"name": n, "type": t, "nullable": nl, "metadata": {}} for n, t, nl in cols]}
    )


@pytest.fixture()
def wh(tmp_path: Any) -> str:
    w = str(tmp_path / "wh")
    assert "result" in dispatch("initialize", {"warehouse": w})
    return w


def ok(method: str, **params: Any) -> dict[str, Any]:
    resp = dispatch(method, params)
    assert "error" not in resp, resp
    result: dict[str, Any] = resp["result"]
    return result


def err(method: str, **params: Any) -> dict[str, Any]:
    resp = dispatch(method, params)
    assert "error" in resp, resp
    error: dict[str, Any] = resp["error"]
    return error


def test_initialize_creates_the_default_database(wh: str) -> None:
    assert ok("list_namespaces", warehouse=wh)["namespaces"] == ["default"]
    assert ok("namespace_exists", warehouse=wh, namespace="default")["exists"] is True
    assert ok("namespace_exists", warehouse=wh, namespace="nope")["exists"] is False


def test_namespace_life_cycle_and_error_kinds(wh: str) -> None:
    ok("create_namespace", warehouse=wh, namespace="db", metadata={})
    assert err("create_namespace", warehouse=wh, namespace="db", metadata={})["kind"] == "AlreadyExists"
    assert ok("load_namespace_metadata", warehouse=wh, namespace="db")["metadata"]["location"].endswith("db.db")
    assert err("load_namespace_metadata", warehouse=wh, namespace="x")["kind"] == "NoSuchNamespace"
    assert err("list_tables", warehouse=wh, namespace="x")["kind"] == "NoSuchNamespace"
    ok("create_table", warehouse=wh, namespace="db", table="t", schema=_schema(("a", "long", True)), partition_keys=[], properties={})
    e = err("drop_namespace", warehouse=wh, namespace="db", cascade=False)
    assert e["kind"] == "NonEmptyNamespace" and "not empty" in e["message"]
    assert ok("drop_namespace", warehouse=wh, namespace="db", cascade=True)["dropped"] is True
    assert ok("drop_namespace", warehouse=wh, namespace="db", cascade=True)["dropped"] is False


def test_create_table_maps_properties_and_reports_warnings(wh: str) -> None:
    resp = dispatch(
        "create_table",
        {
            "warehouse": wh,
            "namespace": "default",
            "table": "t",
            "schema": _schema(("id", "long", True), ("v", "double", True), ("dt", "string", True)),
            "partition_keys": ["dt"],
            "properties": {
                "primary-key": "id,dt",
                "bucket": "2",
                "merge-engine": "aggregation",
                "fields.v.aggregate-function": "sum",
                "option.file.format": "orc",
                "provider": "paimon",
                "owner": "someone",
                "comment": "the table",
                "my-own-key": "x",
            },
        },
    )
    assert "error" not in resp, resp
    assert any("my-own-key" in w for w in resp["warnings"])
    desc = resp["result"]
    assert desc["primary_keys"] == ["id", "dt"] and desc["partition_keys"] == ["dt"]
    assert desc["options"] == {"warehouse": Catalog(wh).warehouse, "table": "default.t"}
    assert desc["read_only"] is False
    props = desc["properties"]
    assert props["primary-key"] == "id,dt" and props["file.format"] == "orc" and props["comment"] == "the table"
    assert "owner" not in props and props["provider"] == "paimon"
    fields = json.loads(desc["schema"])["fields"]
    assert [(f["name"], f["nullable"]) for f in fields] == [("id", False), ("v", True), ("dt", False)]
    table = Catalog(wh).get_table("default.t")
    assert table.options["merge-engine"] == "aggregation" and table.schema.comment == "the table"


def test_column_comments_are_stored(wh: str) -> None:
    schema = json.dumps({"type": "struct", "fields": [
        {"name": "id", "type": "long", "nullable": True, "metadata": {"comment": "the id"}}]})
    ok("create_table", warehouse=wh, namespace="default", table="c", schema=schema, partition_keys=[], properties={})
    assert Catalog(wh).get_table("default.c").schema.fields[0].description == "the id"
    ok("alter_table", warehouse=wh, namespace="default", table="c",
       changes=[{"op": "update_column_comment", "name": ["id"], "comment": "key"}])
    assert Catalog(wh).get_table("default.c").schema.fields[0].description == "key"


def test_bad_property_fails_with_key_and_value_and_creates_nothing(wh: str) -> None:
    e = err("create_table", warehouse=wh, namespace="default", table="bad", schema=_schema(("id", "long", True)),
            partition_keys=[], properties={"bucket": "two"})
    assert e["kind"] == "IllegalArgument"
    assert "'bucket'" in e["message"] and "'two'" in e["message"]
    assert ok("list_tables", warehouse=wh, namespace="default")["tables"] == []


def test_create_table_rejects_foreign_provider_and_location(wh: str) -> None:
    e = err("create_table", warehouse=wh, namespace="default", table="p", schema=_schema(("id", "long", True)),
            partition_keys=[], properties={"provider": "parquet"})
    assert e["kind"] == "IllegalArgument" and "USING parquet" in e["message"]
    e = err("create_table", warehouse=wh, namespace="default", table="p", schema=_schema(("id", "long", True)),
            partition_keys=[], properties={"location": "/elsewhere"})
    assert e["kind"] == "Unsupported" and "/elsewhere" in e["message"]


def test_load_table_not_found_kinds(wh: str) -> None:
    assert err("load_table", warehouse=wh, namespace="default", table="nope")["kind"] == "NoSuchTable"
    assert err("load_table", warehouse=wh, namespace="nodb", table="nope")["kind"] == "NoSuchNamespace"
    assert err("load_table", warehouse=wh, namespace="default", table="nope$files")["kind"] == "NoSuchTable"


def _table_with_snapshots(wh: str) -> Any:
    cat = Catalog(wh)
    t = cat.create_table("default.tt", pa.schema([("id", pa.int64())]))
    t.write(pa.table({"id": [1]}))
    t = t.alter(add_columns=[pa.field("x", pa.string())])
    t.write(pa.table({"id": [2], "x": ["b"]}))
    return t


def test_time_travel_options_and_schema(wh: str) -> None:
    t = _table_with_snapshots(wh)
    d1 = ok("load_table", warehouse=wh, namespace="default", table="tt", version="1")
    assert d1["options"]["scan.snapshot-id"] == "1" and d1["read_only"] is True
    assert [f["name"] for f in json.loads(d1["schema"])["fields"]] == ["id"]  # the snapshot's schema
    d2 = ok("load_table", warehouse=wh, namespace="default", table="tt", version="2")
    assert [f["name"] for f in json.loads(d2["schema"])["fields"]] == ["id", "x"]
    ms = t.snapshot(1).time_millis
    d3 = ok("load_table", warehouse=wh, namespace="default", table="tt", timestamp_micros=ms * 1000 + 999)
    assert d3["options"]["scan.timestamp-millis"] == str(ms)
    e = err("load_table", warehouse=wh, namespace="default", table="tt", version="7")
    assert e["kind"] == "NotFound" and "Snapshot 7" in e["message"]
    e = err("load_table", warehouse=wh, namespace="default", table="tt", version="nosuchtag")
    assert e["kind"] == "NotFound" and "nosuchtag" in e["message"]
    e = err("load_table", warehouse=wh, namespace="default", table="tt", timestamp_micros=1000)
    assert e["kind"] == "NotFound" and "no snapshot at or before" in e["message"]


def test_alter_table_changes(wh: str) -> None:
    ok("create_table", warehouse=wh, namespace="default", table="a",
       schema=_schema(("id", "integer", True), ("s", "string", True), ("old", "string", True)), partition_keys=[], properties={})
    changes = [
        {"op": "add_column", "name": ["n"], "type": '"long"', "nullable": True, "comment": None, "position": None},
        {"op": "rename_column", "name": ["s"], "new_name": "s2"},
        {"op": "update_column_type", "name": ["id"], "type": '"long"'},
        {"op": "drop_column", "name": ["old"], "if_exists": False},
        {"op": "drop_column", "name": ["never"], "if_exists": True},
        {"op": "set_property", "key": "target-file-size", "value": "20 mb"},
        {"op": "set_property", "key": "comment", "value": "c"},
    ]
    desc = ok("alter_table", warehouse=wh, namespace="default", table="a", changes=changes)
    fields = [(f["name"], f["type"]) for f in json.loads(desc["schema"])["fields"]]
    assert fields == [("id", "long"), ("s2", "string"), ("n", "long")]
    assert desc["properties"]["target-file-size"] == "20 mb" and desc["properties"]["comment"] == "c"
    ok("alter_table", warehouse=wh, namespace="default", table="a",
       changes=[{"op": "remove_property", "key": "target-file-size"}])
    assert "target-file-size" not in Catalog(wh).get_table("default.a").options


def test_alter_table_bad_changes_leave_the_table_unchanged(wh: str) -> None:
    ok("create_table", warehouse=wh, namespace="default", table="b", schema=_schema(("id", "integer", True)),
       partition_keys=[], properties={})
    before = Catalog(wh).get_table("default.b").schema
    e = err("alter_table", warehouse=wh, namespace="default", table="b",
            changes=[{"op": "set_property", "key": "bucket", "value": "-7"}])
    assert e["kind"] == "IllegalArgument" and "'bucket'" in e["message"] and "-7" in e["message"]
    e = err("alter_table", warehouse=wh, namespace="default", table="b",
            changes=[{"op": "add_column", "name": ["x", "y"], "type": '"long"', "nullable": True, "position": "first"}])
    assert e["kind"] == "IllegalArgument" and "'x.y'" in e["message"] and "'x' does not exist" in e["message"]
    e = err("alter_table", warehouse=wh, namespace="default", table="b",
            changes=[{"op": "update_column_type", "name": ["id"], "type": '"date"'}])
    assert e["kind"] == "IllegalArgument" and "cannot be converted to DATE" in e["message"]
    # a valid change before a refused one: nothing is applied
    e = err("alter_table", warehouse=wh, namespace="default", table="b",
            changes=[{"op": "update_column_comment", "name": ["id"], "comment": "x"},
                     {"op": "set_property", "key": "primary-key", "value": "id"}])
    assert e["kind"] == "Unsupported"
    assert Catalog(wh).get_table("default.b").schema == before


def test_drop_and_rename(wh: str) -> None:
    ok("create_table", warehouse=wh, namespace="default", table="r", schema=_schema(("id", "integer", True)),
       partition_keys=[], properties={})
    ok("rename_table", warehouse=wh, namespace="default", table="r", new_namespace="default", new_table="r2")
    assert ok("list_tables", warehouse=wh, namespace="default")["tables"] == ["r2"]
    assert err("rename_table", warehouse=wh, namespace="default", table="r", new_namespace="default",
               new_table="r3")["kind"] == "NoSuchTable"
    assert ok("drop_table", warehouse=wh, namespace="default", table="r2")["dropped"] is True
    assert ok("drop_table", warehouse=wh, namespace="default", table="r2")["dropped"] is False


def test_unknown_method_and_unexpected_errors_carry_a_traceback(wh: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert dispatch("nope", {})["error"]["kind"] == "Internal"

    def boom(params: Any) -> dict[str, Any]:
        raise KeyError("x")

    monkeypatch.setitem(handlers.HANDLERS, "ping", boom)
    e = dispatch("ping", {})["error"]
    assert e["kind"] == "Internal" and "KeyError" in e["message"] and "Traceback" in e["traceback"]


def test_missing_warehouse_is_a_clear_error() -> None:
    e = err("list_namespaces")
    assert e["kind"] == "IllegalArgument" and "warehouse" in e["message"]


def test_sql_literal() -> None:
    assert handlers.sql_literal(None) == "NULL"
    assert handlers.sql_literal(True) == "true"
    assert handlers.sql_literal(3) == "3"
    assert handlers.sql_literal("it's") == "'it\\'s'"


# -- statement rewrite ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT * FROM db.t$files", "SELECT * FROM db.`t$files`"),
        ("select * from t$snapshots where x = 'a$b'", "select * from `t$snapshots` where x = 'a$b'"),
        ("SELECT * FROM db.t$branch_b$files", "SELECT * FROM db.`t$branch_b$files`"),
        ("SELECT * FROM db.`t$files`", "SELECT * FROM db.`t$files`"),
        ("SELECT 'x$y', \"a$b\" -- t$c\n FROM t", "SELECT 'x$y', \"a$b\" -- t$c\n FROM t"),
        ("SELECT * FROM t $files", "SELECT * FROM t $files"),
        ("SELECT a.x FROM t$options a JOIN u$tags b ON a.key = b.tag_name",
         "SELECT a.x FROM `t$options` a JOIN `u$tags` b ON a.key = b.tag_name"),
        ("db.t$files", "db.`t$files`"),
    ],
)
def test_rewrite_quotes_dollar_names(sql: str, expected: str) -> None:
    assert rewrite_sql(sql) == expected


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("CALL sys.rollback(table => 'db.t', snapshot => 1)", "CALL `paimon`.sys.rollback(table => 'db.t', snapshot => 1)"),
        ("/* c */ call `sys`.create_tag('db.t', 't1')", "/* c */ call `paimon`.`sys`.create_tag('db.t', 't1')"),
        ("-- x\nCALL sys.x()", "-- x\nCALL `paimon`.sys.x()"),
        ("CALL paimon.sys.x()", "CALL paimon.sys.x()"),
        ("CALL other.x()", "CALL other.x()"),
        ("SELECT 'CALL sys.x()'", "SELECT 'CALL sys.x()'"),
    ],
)
def test_rewrite_qualifies_call_sys(sql: str, expected: str) -> None:
    assert rewrite_sql(sql, "paimon") == expected


def test_rewrite_without_catalog_leaves_call_alone_and_bad_text_unchanged() -> None:
    assert rewrite_sql("CALL sys.x()") == "CALL sys.x()"
    assert rewrite_sql("SELECT 'unterminated $") == "SELECT 'unterminated $"
    assert ok("rewrite_statement", sql="SELECT * FROM t$files", catalog=None) == {
        "sql": "SELECT * FROM `t$files`", "changed": True
    }


# -- tag statements (Paimon's SHOW TAGS / ALTER TABLE ... TAG) ----------------------------------

# the paimon catalog is current; "other" is a second paimon_sql catalog, "hive" and spark_catalog not
IN_PAIMON = SessionCatalogs("paimon", True, {"paimon": True, "other": True, "hive": False, "spark_catalog": False})
IN_SPARK = SessionCatalogs("spark_catalog", False, {"paimon": True, "spark_catalog": False})
CREATE = "CALL `paimon`.sys.alter_table_create_tag"


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SHOW TAGS T", "SELECT tag_name AS tag FROM `T$tags` ORDER BY tag_name"),
        ("show tags db.`t`;", "SELECT tag_name AS tag FROM `db`.`t$tags` ORDER BY tag_name"),
        ("/* c */ SHOW TAGS other.db.t", "SELECT tag_name AS tag FROM `other`.`db`.`t$tags` ORDER BY tag_name"),
        ("SHOW TAGS db.t$branch_b", "SELECT tag_name AS tag FROM `db`.`t$branch_b$tags` ORDER BY tag_name"),
        ("SHOW TAGS `my db`.`a``b`", "SELECT tag_name AS tag FROM `my db`.`a``b$tags` ORDER BY tag_name"),
        ("alter table T create tag `2024-10-12`", f"{CREATE}(table => 'T', tag => '2024-10-12')"),
        ("ALTER TABLE db.t CREATE TAG tag_1 RETAIN 2 DAYS",
         f"{CREATE}(table => 'db.t', tag => 'tag_1', time_retained => '2 days')"),
        ("alter table T create tag `tag-4` as of version 2 RETAIN 3 HOURS",
         f"{CREATE}(table => 'T', tag => 'tag-4', snapshot => 2, time_retained => '3 hours')"),
        ("ALTER TABLE T CREATE TAG IF NOT EXISTS `tag-1` AS OF VERSION 1 RETAIN 1 minutes",
         f"{CREATE}(table => 'T', tag => 'tag-1', snapshot => 1, time_retained => '1 minutes', if_not_exists => true)"),
        ("ALTER TABLE T CREATE TAG x RETAIN 30 SECONDS", f"{CREATE}(table => 'T', tag => 'x', time_retained => '30 seconds')"),
        ("alter table T replace tag `tag-1` as of version 2 RETAIN 1 HOURS",
         f"{CREATE}(table => 'T', tag => 'tag-1', snapshot => 2, time_retained => '1 hours', replace => true)"),
        ("ALTER TABLE T CREATE OR REPLACE TAG `tag-1`", f"{CREATE}(table => 'T', tag => 'tag-1', replace => true)"),
        ("ALTER TABLE `other`.db.t CREATE TAG `it's`",
         "CALL `other`.sys.alter_table_create_tag(table => 'db.t', tag => 'it\\'s')"),
        ("ALTER TABLE db.t$branch_b CREATE TAG tag", f"{CREATE}(table => 'db.t$branch_b', tag => 'tag')"),
        ("alter table T delete tag `2024-10-12`", "CALL `paimon`.sys.alter_table_delete_tag(table => 'T', tag => '2024-10-12')"),
        ("alter table T delete tag if EXISTS `2024-10-13, 2024-10-14`",
         "CALL `paimon`.sys.alter_table_delete_tag(table => 'T', tag => '2024-10-13, 2024-10-14')"),
        ("alter table T rename tag `tag-1` to `tag-2`",
         "CALL `paimon`.sys.alter_table_rename_tag(table => 'T', tag => 'tag-1', target_tag => 'tag-2')"),
        ("-- note\nALTER TABLE T RENAME TAG a TO b;;",
         "CALL `paimon`.sys.alter_table_rename_tag(table => 'T', tag => 'a', target_tag => 'b')"),
    ],
)
def test_rewrite_tag_statements(sql: str, expected: str) -> None:
    assert rewrite_sql(sql, None, IN_PAIMON) == expected


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE t ADD COLUMNS (x INT)",
        "ALTER TABLE t SET TBLPROPERTIES ('a' = 'CREATE TAG x')",
        "ALTER TABLE t RENAME TO u",
        "SHOW TABLES",
        "SHOW TAGS",
        "alter table t create tag it's",
        "SELECT 'SHOW TAGS t'",
    ],
)
def test_rewrite_leaves_other_statements(sql: str) -> None:
    assert rewrite_sql(sql, None, IN_PAIMON) == sql


@pytest.mark.parametrize(
    ("session", "sql"),
    [
        (IN_PAIMON, "SHOW TAGS hive.db.t"),
        (IN_PAIMON, "ALTER TABLE hive.db.t CREATE TAG x"),
        (IN_PAIMON, "ALTER TABLE spark_catalog.db.t DELETE TAG x"),
        (IN_PAIMON, "ALTER TABLE SPARK_CATALOG.db.t RENAME TAG x TO y"),
        (IN_SPARK, "SHOW TAGS t"),
        (IN_SPARK, "SHOW TAGS db.t"),
        (IN_SPARK, "ALTER TABLE db.t CREATE TAG x RETAIN 2 WEEKS"),  # not ours: no error either
        (IN_SPARK, "ALTER TABLE t CREATE TAG x extra"),
    ],
)
def test_rewrite_leaves_tables_of_other_catalogs(session: SessionCatalogs, sql: str) -> None:
    assert rewrite_sql(sql, None, session) == sql


def test_rewrite_tag_statements_in_another_current_catalog() -> None:
    assert rewrite_sql("SHOW TAGS paimon.db.t", None, IN_SPARK) == (
        "SELECT tag_name AS tag FROM `paimon`.`db`.`t$tags` ORDER BY tag_name"
    )
    assert rewrite_sql("ALTER TABLE paimon.db.t CREATE OR REPLACE TAG v1", None, IN_SPARK) == (
        f"{CREATE}(table => 'db.t', tag => 'v1', replace => true)"
    )


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("ALTER TABLE t CREATE TAG x RETAIN 2 WEEKS", "expected DAYS, HOURS, MINUTES or SECONDS after RETAIN 2, found 'WEEKS'"),
        ("ALTER TABLE t CREATE TAG x RETAIN DAYS", "expected a whole number after RETAIN, found 'DAYS'"),
        ("ALTER TABLE t CREATE TAG x RETAIN 1.5 DAYS", "expected a whole number after RETAIN, found '1.5'"),
        ("ALTER TABLE t CREATE TAG x AS OF VERSION -1", "expected a snapshot id after AS OF VERSION, found '-'"),
        ("ALTER TABLE t CREATE TAG x AS OF VERSION 99999999999999999999", "too large"),
        ("ALTER TABLE t CREATE TAG 2024", "expected a tag name, found '2024' (position 26)"),
        ("ALTER TABLE t CREATE TAG", "expected a tag name, found the end of the statement"),
        ("ALTER TABLE t CREATE TAG x extra", "CREATE TAG statement: expected the end of the statement, found 'extra'"),
        ("ALTER TABLE t REPLACE TAG IF NOT EXISTS x", "REPLACE TAG statement: expected the end of the statement"),
        ("ALTER TABLE t DELETE TAG a, b", "DELETE TAG statement: expected the end of the statement, found ','"),
        ("ALTER TABLE t RENAME TAG a b", "RENAME TAG statement: expected TO, found 'b'"),
        ("ALTER TABLE paimon.a.b.c CREATE TAG x", "must be named 'table' or 'database.table'"),
        ("SHOW TAGS t u", "SHOW TAGS statement: expected the end of the statement, found 'u' (position 13)"),
    ],
)
def test_rewrite_tag_statement_errors(sql: str, message: str) -> None:
    with pytest.raises(ValidationError) as e:
        rewrite_sql(sql, None, IN_PAIMON)
    assert message in str(e.value) and sql in str(e.value)


def test_rewrite_statement_handler_with_session() -> None:
    session = {"current_catalog": "paimon", "current_is_ours": True, "catalogs": {"paimon": True}}
    assert ok("rewrite_statement", sql="SHOW TAGS t", catalog=None, session=session) == {
        "sql": "SELECT tag_name AS tag FROM `t$tags` ORDER BY tag_name", "changed": True
    }
    assert ok("rewrite_statement", sql="SHOW TAGS t", catalog=None) == {"sql": "SHOW TAGS t", "changed": False}
    e = err("rewrite_statement", sql="ALTER TABLE t CREATE TAG", catalog=None, session=session)
    assert e["kind"] == "IllegalArgument" and "expected a tag name" in e["message"]
    e = err("rewrite_statement", sql="SHOW TAGS t", catalog=None, session={"current_catalog": "paimon"})
    assert e["kind"] == "IllegalArgument" and "session" in e["message"]


def test_system_table_time_travel(wh: str) -> None:
    _table_with_snapshots(wh)
    d = ok("load_table", warehouse=wh, namespace="default", table="tt$files", version="1")
    assert d["options"] == {"warehouse": Catalog(wh).warehouse, "table": "default.tt$files", "scan.snapshot-id": "1"}
    assert d["read_only"] is True
    e = err("load_table", warehouse=wh, namespace="default", table="tt$snapshots", version="1")
    assert e["kind"] == "Unsupported" and "no time travel" in e["message"]
    e = err("load_table", warehouse=wh, namespace="default", table="tt$nope")
    assert e["kind"] == "NotFound" and "nope" in e["message"]


def test_alter_bucket_of_a_table_with_data_warns_how_to_rescale(wh: str) -> None:
    t = Catalog(wh).create_table("default.r", pa.schema([("id", pa.int32())]), primary_keys=["id"],
                                 options={"bucket": "2"})
    t.write(pa.table({"id": [1, 2, 3]}))
    resp = dispatch("alter_table", {"warehouse": wh, "namespace": "default", "table": "r",
                                    "changes": [{"op": "set_property", "key": "bucket", "value": "4"}]})
    assert resp["result"]["bucket"] == 4
    assert any("CALL sys.rescale(table => 'default.r')" in w for w in resp["warnings"])
    resp = dispatch("alter_table", {"warehouse": wh, "namespace": "default", "table": "r",
                                    "changes": [{"op": "set_property", "key": "merge-engine", "value": "first-row"}]})
    assert resp["error"] == {"kind": "Unsupported", "message": "Change 'merge-engine' is not supported yet.",
                             "traceback": None}
