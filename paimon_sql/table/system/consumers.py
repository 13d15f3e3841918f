"""``t$consumers``: the consumers of the table (or branch), ``consumer/consumer-<id>`` files holding
``{"nextSnapshot": N}``, in Java ``HashMap`` order as Paimon lists them."""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.meta.consumer_manager import ConsumerManager
from paimon_sql.table.system._format import java_hash_map_order
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import BigIntType, DataField, VarCharType


class ConsumersTable(SystemTable):
    SYSTEM_NAME = "consumers"
    FIELDS = (
        DataField(0, "consumer_id", VarCharType(nullable=False)),
        DataField(1, "next_snapshot_id", BigIntType(nullable=False)),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        consumers = {cid: c.next_snapshot for cid, c in ConsumerManager.of(ctx.store).consumers().items()}
        ids = java_hash_map_order(consumers)
        return len(ids), {
            "consumer_id": lambda: pa.array(ids, pa.string()),
            "next_snapshot_id": lambda: pa.array([consumers[i] for i in ids], pa.int64()),
        }
