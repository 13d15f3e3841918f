"""Spark column ``DEFAULT`` values of Paimon tables, as Paimon 2.x's Spark catalog keeps them:
in the schema (``DataField.default_value``: the SQL text Spark gives, ``5`` or ``'my_value'``),
shown to Spark as the field metadata ``CURRENT_DEFAULT`` / ``EXISTS_DEFAULT`` (so ``INSERT INTO t
(a) VALUES ...``, ``VALUES (1, DEFAULT)`` and ``SHOW CREATE TABLE`` use them), applied by writers
to null values (:mod:`paimon_sql.write.column_defaults`). ``ALTER TABLE t ALTER COLUMN c SET DEFAULT
v`` / ``DROP DEFAULT`` change them; ``ADD COLUMN c ... DEFAULT v`` is refused, as Paimon refuses it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from paimon_sql.errors import UnsupportedError
from paimon_sql.meta.schema_change import SchemaChange
from paimon_sql.ops.alter import apply_changes
from paimon_sql.table.table import Table
from paimon_sql.types import DataField
from paimon_sql.write.column_defaults import default_text, with_defaults

__all__ = [
    "CURRENT_DEFAULT", "EXISTS_DEFAULT", "add_default_metadata", "alter_with_defaults", "column_default_changes",
    "spark_defaults", "with_defaults",
]

CURRENT_DEFAULT = "CURRENT_DEFAULT"
EXISTS_DEFAULT = "EXISTS_DEFAULT"


def spark_defaults(schema_json: str | Mapping[str, Any]) -> dict[str, str]:
    """Column name -> its ``DEFAULT`` SQL text, from a Spark ``StructType``'s field metadata."""
    struct = json.loads(schema_json) if isinstance(schema_json, str) else schema_json
    out: dict[str, str] = {}
    for f in struct.get("fields", []):
        meta = f.get("metadata") or {}
        text = default_text(meta.get(CURRENT_DEFAULT)) if isinstance(meta, Mapping) else None
        if text is not None:
            out[str(f["name"])] = text
    return out


def add_default_metadata(schema_json: str, fields: tuple[DataField, ...] | list[DataField]) -> str:
    """A Spark ``StructType`` JSON whose top-level fields carry their columns' default values."""
    defaults = {f.name: f.default_value for f in fields if f.default_value is not None}
    if not defaults:
        return schema_json
    struct = json.loads(schema_json)
    for f in struct.get("fields", []):
        text = defaults.get(f.get("name"))
        if text is not None:
            meta = dict(f.get("metadata") or {})
            meta[CURRENT_DEFAULT] = text
            meta[EXISTS_DEFAULT] = text
            f["metadata"] = meta
    return json.dumps(struct)


def column_default_changes(table: Table, changes: Sequence[Mapping[str, Any]]) -> dict[str, str | None]:
    """The ``ALTER COLUMN c SET DEFAULT v`` / ``DROP DEFAULT`` of an ALTER TABLE (the shim's
    ``update_column_default`` changes): column -> its new default value text (None: dropped)."""
    out: dict[str, str | None] = {}
    for ch in changes:
        if ch.get("op") != "update_column_default":
            continue
        path = [str(n) for n in ch.get("name") or []]
        if len(path) != 1:
            raise UnsupportedError(
                f"A default value on nested field {'.'.join(path)!r} of table {table.name} is not supported"
            )
        raw = ch.get("default")
        out[path[0]] = default_text(str(raw)) if raw else None
    return out


def alter_with_defaults(table: Table, changes: Sequence[SchemaChange], defaults: Mapping[str, str | None]) -> None:
    """Commits ``changes`` and then these default values as one new schema."""
    schema = with_defaults(apply_changes(table.store, changes), defaults, table.name)
    table.store.schemas.commit(schema)
