"""``t$tags``: one row per tag of the table (or branch), by tag name.

``commit_time`` is the tagged snapshot's ``timeMillis`` (the wall clock of the table's ``time_zone``;
Paimon: the JVM's default zone); ``create_time`` and
``time_retained`` come from the tag file's ``tagCreateTime`` / ``tagTimeRetained``, written only for
tags created with a retention; ``time_retained`` reads as ``Duration.toString()`` (``PT24H``).
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from paimon_sql.errors import NotFoundError
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.tags import TAG_CREATE_TIME, TAG_TIME_RETAINED
from paimon_sql.table.system._format import (
    java_duration_string,
    java_string_key,
    parse_duration_json,
    parse_local_date_time_millis,
)
from paimon_sql.table.system.base import ColumnFn, ReadContext, SystemTable, id_candidates
from paimon_sql.types import BigIntType, DataField, TimestampType, VarCharType


def time_retained_string(tag: Snapshot) -> str | None:
    parsed = parse_duration_json(tag.extra.get(TAG_TIME_RETAINED))
    return None if parsed is None else java_duration_string(*parsed)


class TagsTable(SystemTable):
    SYSTEM_NAME = "tags"
    FIELDS = (
        DataField(0, "tag_name", VarCharType(nullable=False)),
        DataField(1, "snapshot_id", BigIntType(nullable=False)),
        DataField(2, "schema_id", BigIntType(nullable=False)),
        DataField(3, "commit_time", TimestampType(3, nullable=False)),
        DataField(4, "record_count", BigIntType()),
        DataField(5, "create_time", TimestampType(3)),
        DataField(6, "time_retained", VarCharType()),
    )

    def _columns(self, ctx: ReadContext) -> tuple[int, Mapping[str, ColumnFn]]:
        tm = ctx.store.tags
        names = sorted(tm.tag_names(), key=java_string_key)
        names = id_candidates(ctx.predicate, "tag_name", names)
        tags: list[tuple[str, Snapshot]] = []
        for name in names:
            try:
                tags.append((name, tm.tagged_snapshot(name)))
            except NotFoundError:
                continue  # deleted since the listing

        def col(get, t: pa.DataType) -> ColumnFn:  # type: ignore[no-untyped-def]
            return lambda: pa.array([get(n, s) for n, s in tags], t)

        return len(tags), {
            "tag_name": col(lambda n, s: n, pa.string()),
            "snapshot_id": col(lambda n, s: s.id, pa.int64()),
            "schema_id": col(lambda n, s: s.schema_id, pa.int64()),
            "commit_time": lambda: self._local_timestamps([s.time_millis for _, s in tags]),
            "record_count": col(lambda n, s: s.total_record_count, pa.int64()),
            "create_time": col(
                lambda n, s: parse_local_date_time_millis(s.extra.get(TAG_CREATE_TIME)), pa.timestamp("ms")
            ),
            "time_retained": col(lambda n, s: time_retained_string(s), pa.string()),
        }
