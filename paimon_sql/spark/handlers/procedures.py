"""Bridge calls of stored procedures (``CALL sys.x(...)``): listing, describing and running them."""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
from collections.abc import Mapping
from typing import Any

from paimon_sql.errors import ValidationError
from paimon_sql.spark import spark_types
from paimon_sql.spark.handlers.common import catalog_of, str_param
from paimon_sql.spark.handlers.registry import Params, Result, handler


def _find_procedure(name: str) -> Any:
    """The procedure ``name``; an unknown one raises NotFoundError listing the known ones."""
    from paimon_sql.procedures import get_procedure

    return get_procedure(name)


def sql_literal(value: Any) -> str:
    """A Python default value as a Spark SQL literal (a procedure parameter's default)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, decimal.Decimal)):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    raise ValidationError(f"Procedure default {value!r} has no SQL literal form")


@handler("list_procedures", read_only=True)
def list_procedures(params: Params) -> Result:
    from paimon_sql.procedures.registry import listed_procedures

    return {"procedures": listed_procedures()}


@handler("describe_procedure", read_only=True)
def describe_procedure(params: Params) -> Result:
    proc = _find_procedure(str_param(params, "name"))
    return {
        "name": proc.name,
        "description": proc.description,
        "params": [
            {
                "name": p.name,
                "type": p.type,
                "required": bool(p.required),
                "default_sql": None if p.required else sql_literal(p.default),
            }
            for p in proc.params
        ],
        "output": spark_types.ddl_columns([(c, t) for c, t in proc.output]),
    }


def _json_value(v: Any, spark_sql_type: str) -> Any:
    t = spark_sql_type.strip().upper()
    if v is None:
        return None
    if isinstance(v, _dt.datetime):
        if t.startswith("TIMESTAMP"):
            if v.tzinfo is None:
                v = v.replace(tzinfo=_dt.timezone.utc)
            delta = v - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
            return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        return v.isoformat(sep=" ")
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, (list, tuple)):
        inner = t[6:-1] if t.startswith("ARRAY<") else "STRING"
        return [_json_value(x, inner) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _json_value(x, "STRING") for k, x in v.items()}
    if t.startswith("STRING") and not isinstance(v, str):
        return str(v)
    return v


@handler("call_procedure")
def call_procedure(params: Params) -> Result:
    """Runs a procedure; with ``jobs`` = true, a procedure that can run as parallel tasks returns
    ``{"job": {"tasks": [...], "state": ...}}`` instead: the caller runs every task as a Spark task
    (the data source's ``paimon.job.*`` options) and hands their messages to ``finish_procedure``."""
    from paimon_sql.procedures.registry import ProcedureJob, plan_procedure
    from paimon_sql.procedures.registry import call_procedure as run

    name = str_param(params, "name")
    proc = _find_procedure(name)
    required = {p.name for p in proc.params if p.required}
    args = {k: v for k, v in dict(params.get("args") or {}).items() if v is not None or k in required}
    current = params.get("current_database")
    database = current if isinstance(current, str) and current else None
    if params.get("jobs") is True:
        planned = plan_procedure(catalog_of(params), proc.name, args, database)
        if isinstance(planned, ProcedureJob):
            return {"job": {"tasks": planned.tasks, "state": planned.state}}
        result = planned
    else:
        result = run(catalog_of(params), proc.name, args, database)
    return _rows(proc, result)


@handler("finish_procedure")
def finish_procedure(params: Params) -> Result:
    """The result of a procedure's job, from the messages of its tasks."""
    from paimon_sql.procedures.registry import finish_procedure as finish

    proc = _find_procedure(str_param(params, "name"))
    messages = params.get("messages")
    if not isinstance(messages, list):
        raise ValidationError(f"finish_procedure {proc.name}: 'messages' must be a list")
    return _rows(proc, finish(proc.name, str_param(params, "state"), messages))


def _rows(proc: Any, result: Any) -> Result:
    """The rows as JSON values, their columns and, as Spark DDL, the call's output schema (which
    ``verbose => true`` widens beyond the procedure's declared output)."""
    columns = [(c, t) for c, t in result.columns]
    types = [t for _, t in columns]
    rows = [[_json_value(v, types[i] if i < len(types) else "STRING") for i, v in enumerate(row)] for row in result.rows]
    return {"columns": columns, "rows": rows, "output": spark_types.ddl_columns(columns)}
