"""``t$ro``: Paimon's read-optimized table. A primary-key table is read from the files of its highest
level only (``num-levels`` - 1, where full compaction puts everything), so nothing is merged: reads
are as fast as reading the files, and rows not compacted yet are not seen. Deletion vectors still
apply. An append table reads as itself. The columns are the table's; time travel works as on the
table."""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from paimon_sql.predicate import Predicate
from paimon_sql.table.system.base import SystemTable
from paimon_sql.types import DataField


class ReadOptimizedTable(SystemTable):
    SYSTEM_NAME = "ro"
    TIME_TRAVEL = True

    @property
    def fields(self) -> tuple[DataField, ...]:
        return tuple(self.table.schema.fields)

    @property
    def arrow_schema(self) -> pa.Schema:
        return self.table.arrow_schema

    @property
    def column_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def read(
        self,
        columns: Sequence[str] | None = None,
        filter: str | Predicate | None = None,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
    ) -> pa.Table:
        """The rows of the table's highest level, projected to ``columns`` and filtered by ``filter``."""
        return self.table.read(columns, filter, snapshot_id, tag, timestamp_ms, read_optimized=True)
