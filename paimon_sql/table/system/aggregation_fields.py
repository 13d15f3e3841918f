"""``t$aggregation_fields``: one row per column of the latest schema with its ``fields.<column>.*``
options, as Paimon's ``AggregationFieldsTable``: the options' values (``function``) and keys
(``function_options``) as Java prints a list (``[sum, true]``), in the options' Java ``HashMap``
order, and the column's type and comment."""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.errors import NotFoundError
from paimon_sql.table.system._format import java_hash_map_order
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import DataField, VarCharType


class AggregationFieldsTable(SystemTable):
    SYSTEM_NAME = "aggregation_fields"
    FIELDS = (
        DataField(0, "field_name", VarCharType(nullable=False)),
        DataField(1, "field_type", VarCharType(nullable=False)),
        DataField(2, "function", VarCharType()),
        DataField(3, "function_options", VarCharType()),
        DataField(4, "comment", VarCharType()),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        latest = ctx.store.schemas.latest()
        if latest is None:
            raise NotFoundError(f"Table {ctx.store.name} does not exist")
        values: dict[str, list[str]] = {}
        keys: dict[str, list[str]] = {}
        for key in java_hash_map_order(latest.options):
            parts = key.split(".")
            if len(parts) > 2 and parts[0] == "fields":
                values.setdefault(parts[1], []).append(latest.options[key])
                keys.setdefault(parts[1], []).append(key)
        fields = list(latest.fields)

        def java_list(items: list[str]) -> str:
            return "[" + ", ".join(items) + "]"

        return len(fields), {
            "field_name": lambda: pa.array([f.name for f in fields], pa.string()),
            "field_type": lambda: pa.array([f.type.to_string() for f in fields], pa.string()),
            "function": lambda: pa.array([java_list(values.get(f.name, [])) for f in fields], pa.string()),
            "function_options": lambda: pa.array([java_list(keys.get(f.name, [])) for f in fields], pa.string()),
            "comment": lambda: pa.array([f.description for f in fields], pa.string()),
        }
