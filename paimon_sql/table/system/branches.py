"""``t$branches``: the branches of the table (folders ``branch/branch-<name>``), by name.

Like Paimon, the branches of the whole table are listed whichever branch the system table is read
on; ``create_time`` is the branch folder's modification time (the wall clock of the table's
``time_zone``; Paimon: the JVM's default zone).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.fs.file_io import basename, join
from paimon_sql.meta.file_store import BRANCH_PREFIX
from paimon_sql.table.system._format import java_string_key
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable
from paimon_sql.types import DataField, TimestampType, VarCharType


class BranchesTable(SystemTable):
    SYSTEM_NAME = "branches"
    FIELDS = (
        DataField(0, "branch_name", VarCharType(nullable=False)),
        DataField(1, "create_time", TimestampType(3, nullable=False)),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        fio = ctx.store.file_io
        rows = []
        for st in fio.list_status(join(ctx.store.path, "branch")):
            name = basename(st.path)
            if st.is_dir and name.startswith(BRANCH_PREFIX) and len(name) > len(BRANCH_PREFIX):
                rows.append((name[len(BRANCH_PREFIX):], st.mtime_ms))
        rows.sort(key=lambda r: java_string_key(r[0]))
        return len(rows), {
            "branch_name": lambda: pa.array([r[0] for r in rows], pa.string()),
            "create_time": lambda: self._local_timestamps([r[1] for r in rows]),
        }
