"""``t$options``: the options of the table's (or branch's) latest schema, in Java ``HashMap`` order."""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.errors import NotFoundError
from paimon_sql.table.system._format import java_hash_map_order
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import DataField, VarCharType


class OptionsTable(SystemTable):
    SYSTEM_NAME = "options"
    FIELDS = (
        DataField(0, "key", VarCharType(nullable=False)),
        DataField(1, "value", VarCharType(nullable=False)),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        latest = ctx.store.schemas.latest()
        if latest is None:
            raise NotFoundError(f"Table {ctx.store.name} does not exist")
        opts = dict(latest.options)
        keys = java_hash_map_order(opts)
        return len(keys), {
            "key": lambda: pa.array(keys, pa.string()),
            "value": lambda: pa.array([opts[k] for k in keys], pa.string()),
        }
