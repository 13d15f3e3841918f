"""The contract between the Python bridge and the JVM shim: the calls the shim makes exist, the
shim's read-only set is the one the handlers declare, and it knows every error kind they report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from paimon_sql import errors
from paimon_sql.spark import handlers
from paimon_sql.spark.handlers import HANDLERS, READ_ONLY, dispatch, handler

SHIM = Path(__file__).resolve().parents[2] / "jvm-shim" / "src" / "main" / "java" / "org" / "paimon_sql" / "spark"


def _java(name: str) -> str:
    return (SHIM / name).read_text(encoding="utf-8")


def test_every_call_of_the_shim_is_a_registered_handler() -> None:
    called = set()
    for path in SHIM.glob("*.java"):
        # PythonBridge.call / PaimonCatalog.call (Spark's Python) and PaimonCatalog.request (its own)
        called |= set(re.findall(r"\b(?:call|request)\(\s*\"([a-z_]+)\"", path.read_text(encoding="utf-8")))
    called |= set(re.findall(r"INFO_METHOD = \"([a-z_]+)\"", _java("PythonBridge.java")))
    assert len(called) >= 20
    assert called - set(HANDLERS) == set()


def test_read_only_calls_are_registered_and_change_nothing_by_name() -> None:
    assert READ_ONLY <= set(HANDLERS)
    assert {"bridge_info", "load_table", "list_tables", "plan_native_read", "count_rows"} <= READ_ONLY
    for mutating in ("initialize", "create_table", "alter_table", "drop_table", "delete_where", "call_procedure"):
        assert mutating not in READ_ONLY


def test_bridge_info_reports_the_registry_and_the_error_kinds() -> None:
    info = dispatch("bridge_info", {})["result"]
    assert info["read_only"] == sorted(READ_ONLY)
    assert set(info["error_kinds"]) == errors.bridge_kinds()


def test_a_call_cannot_be_registered_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handlers.registry, "HANDLERS", dict(HANDLERS))
    with pytest.raises(RuntimeError, match="'ping' is registered twice"):
        handler("ping", read_only=True)(lambda params: {})


def test_errors_declare_their_bridge_kind() -> None:
    assert errors.bridge_kind(errors.TableNotFoundError("x")) == "NoSuchTable"
    assert errors.bridge_kind(errors.DatabaseNotFoundError("x")) == "NoSuchNamespace"
    assert errors.bridge_kind(errors.NotFoundError("x")) == "NotFound"
    assert errors.bridge_kind(errors.DatabaseNotEmptyError("x")) == "NonEmptyNamespace"
    assert errors.bridge_kind(errors.ValidationError("x")) == "IllegalArgument"
    assert errors.bridge_kind(errors.WriteConflictError("x")) == "CommitConflict"  # inherited
    assert errors.bridge_kind(errors.CorruptFileError("x")) == "PaimonError"
    assert errors.bridge_kind(KeyError("x")) == "Internal"


def test_the_shim_knows_every_error_kind() -> None:
    java_kinds = set(re.findall(r"^\s+[A-Z_]+\(\"(\w+)\"\)[,;]", _java("ErrorKind.java"), re.M))
    assert "NoSuchTable" in java_kinds
    assert errors.bridge_kinds() - java_kinds == set()


@pytest.mark.spark
def test_the_running_shim_uses_the_handlers_read_only_set_and_error_kinds(spark: Any) -> None:
    spark.sql("SHOW NAMESPACES IN paimon").collect()  # a bridge call: the process answered bridge_info
    jvm = spark.sparkContext._jvm.org.paimon_sql.spark
    assert set(jvm.PythonBridge.readOnlyMethods()) == READ_ONLY
    for kind in errors.bridge_kinds():
        assert jvm.ErrorKind.of(kind).wire() == kind
    assert jvm.ErrorKind.of("NoSuchTable").sqlState() == "42704"


@pytest.mark.spark
def test_an_engine_error_reaches_spark_with_the_sql_state_of_its_kind(spark: Any, db: str) -> None:
    from pyspark.errors import AnalysisException

    spark.sql(f"CREATE TABLE {db}.s (id BIGINT)")
    with pytest.raises(AnalysisException) as info:
        spark.sql(f"ALTER TABLE {db}.s SET TBLPROPERTIES ('bucket' = 'many')")
    assert "bucket" in str(info.value)
    assert info.value.getSqlState() == "22023"  # IllegalArgument (ValidationError)
