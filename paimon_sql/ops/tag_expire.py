"""Expiring tags by time (Paimon's ``expire_tags`` / ``TagTimeExpire``): a tag goes when its
``tagTimeRetained`` has passed since its ``tagCreateTime``, or, with ``older_than``, when it was
created before that time (a tag without those fields counts from its file's modification time, and
only for ``older_than``). Tags go through ``delete_tag``, which deletes the files only they kept."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from paimon_sql.errors import NotFoundError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.ops.file_refs import TAG_CREATE_TIME, TAG_TIME_RETAINED
from paimon_sql.ops.tags import delete_tag, parse_duration_json, parse_local_date_time_millis

_EPOCH = _dt.datetime(1970, 1, 1)


@dataclass(frozen=True)
class ExpireTagsResult:
    expired: tuple[str, ...]


def _local_wall_ms(when: _dt.datetime) -> int:
    """A local wall-clock time as millis of the same wall clock read as UTC (how tags store it)."""
    naive = when.astimezone().replace(tzinfo=None) if when.tzinfo is not None else when
    return (naive - _EPOCH) // _dt.timedelta(milliseconds=1)


def expire_tags(
    store: FileStore, older_than: _dt.datetime | None = None, now: _dt.datetime | None = None,
) -> ExpireTagsResult:
    """Deletes the tags whose retention passed (``now``: local time, default the clock) or that
    were created before ``older_than`` (local time); returns their names, in snapshot order."""
    now_ms = _local_wall_ms(now or _dt.datetime.now())
    older_ms = _local_wall_ms(older_than) if older_than is not None else None
    tags = []
    for name in store.tags.tag_names():
        try:
            tags.append((store.tags.tagged_snapshot(name), name))
        except NotFoundError:
            continue
    expired = []
    for snap, name in sorted(tags, key=lambda t: (t[0].id, t[1])):
        created = parse_local_date_time_millis(snap.extra.get(TAG_CREATE_TIME))
        retained = parse_duration_json(snap.extra.get(TAG_TIME_RETAINED))
        if created is None or retained is None:
            if older_ms is None:
                continue
            try:
                mtime = store.file_io.status(store.tags.path(name)).mtime_ms
            except NotFoundError:
                continue
            created = _local_wall_ms(_dt.datetime.fromtimestamp(mtime / 1000))
        reached = retained is not None and now_ms > created + retained[0] * 1000 + retained[1] // 1_000_000
        older = older_ms is not None and older_ms > created
        if reached or older:
            delete_tag(store, name)
            expired.append(name)
    return ExpireTagsResult(tuple(expired))
