"""``table.tags``: a table's tags (Paimon's ``Table.createTag`` / ``deleteTag`` / ``replaceTag`` /
``renameTag``, the tag procedures, tag expiry and automatic creation; pyiceberg's
``ManageSnapshots`` tag half). The logic is in ``ops/tags.py``, ``ops/tag_changes.py``,
``ops/tag_expire.py`` and ``ops/tag_auto.py``; the procedures call the same functions."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from paimon_sql.lazy import lazy_module
from paimon_sql.ops.maintenance import maintenance_of
from paimon_sql.options.lifecycle import TAG_DEFAULT_TIME_RETAINED, TAG_TIME_EXPIRE_ENABLED
from paimon_sql.table.facets import Facet

if TYPE_CHECKING:
    from paimon_sql.ops import expire as expire_ops
    from paimon_sql.ops import tag_auto as tag_auto_ops
    from paimon_sql.ops import tag_changes as tag_change_ops
    from paimon_sql.ops import tag_expire as tag_expire_ops
    from paimon_sql.ops import tags as tag_ops
else:
    expire_ops = lazy_module("paimon_sql.ops.expire")
    tag_auto_ops = lazy_module("paimon_sql.ops.tag_auto")
    tag_change_ops = lazy_module("paimon_sql.ops.tag_changes")
    tag_expire_ops = lazy_module("paimon_sql.ops.tag_expire")
    tag_ops = lazy_module("paimon_sql.ops.tags")

TimeRetained = str | int | _dt.timedelta | None


class Tags(Facet):
    """The tags of one table (or branch). ``table.tags()`` lists their names."""

    __slots__ = ()

    def __call__(self) -> list[str]:
        """The names of the tags, sorted."""
        return self.table.store.tags.tag_names()

    def create(
        self, tag: str, snapshot_id: int | None = None, time_retained: TimeRetained = None
    ) -> tag_ops.CreateTagResult:
        """Tags ``snapshot_id`` (default: the latest snapshot). ``time_retained``: a duration
        (``'1 d'``), a timedelta or milliseconds; None takes the table's ``tag.default-time-retained``
        (as Paimon's ``Table.createTag``)."""
        store = self.table.store
        ms = tag_change_ops.parse_time_retained(time_retained, f"create_tag of table {self.identifier}")
        if ms is None:
            ms = store.options.get(TAG_DEFAULT_TIME_RETAINED)
        return tag_ops.create_tag(store, tag, snapshot_id, ms)

    def delete(self, tag: str) -> tag_ops.DeleteTagResult:
        """Deletes ``tag`` (nothing happens when it does not exist, as in Paimon)."""
        return tag_ops.delete_tag(self.table.store, tag)

    def replace(
        self, tag: str, snapshot_id: int | None = None, time_retained: TimeRetained = None
    ) -> tag_change_ops.ReplaceTagResult:
        """Points the existing ``tag`` at ``snapshot_id`` (default: the latest) with ``time_retained``."""
        ms = tag_change_ops.parse_time_retained(time_retained, f"replace_tag of table {self.identifier}")
        return tag_change_ops.replace_tag(self.table.store, tag, snapshot_id, ms)

    def rename(self, tag: str, target_tag: str) -> tag_change_ops.RenameTagResult:
        """Renames ``tag`` to ``target_tag``."""
        return tag_change_ops.rename_tag(self.table.store, tag, target_tag)

    def create_from_timestamp(
        self, tag: str, timestamp_ms: int, time_retained: TimeRetained = None
    ) -> tag_change_ops.CreateTagFromTimestampResult:
        """Tags the earliest snapshot (or tagged snapshot) committed at or after ``timestamp_ms``."""
        where = f"create_tag_from_timestamp of table {self.identifier}"
        ms = tag_change_ops.parse_time_retained(time_retained, where)
        return tag_change_ops.create_tag_from_timestamp(self.table.store, tag, timestamp_ms, ms)

    def expire(self, older_than: str | _dt.datetime | None = None) -> list[str]:
        """Deletes the tags whose ``time_retained`` has passed, and with ``older_than`` (a local
        timestamp 'yyyy-MM-dd HH:mm:ss' or a datetime) those created before it (Paimon's
        ``expire_tags``); returns their names."""
        when = None
        if isinstance(older_than, _dt.datetime):
            when = older_than
        elif older_than is not None:
            ms = expire_ops.parse_timestamp_ms(older_than, f"expire_tags of table {self.identifier}: older_than")
            when = _dt.datetime.fromtimestamp(ms / 1000)
        return list(tag_expire_ops.expire_tags(self.table.store, when).expired)

    def trigger_automatic_creation(self) -> tag_auto_ops.AutoTagResult:
        """Paimon's ``trigger_tag_automatic_creation``: creates the ``tag.automatic-creation``
        (process-time / watermark) tags the snapshots call for, deletes automatic tags beyond
        ``tag.num-retained-max``, then (``tag.time-expire-enabled``) tags whose retention passed."""
        store = self.table.store
        result = tag_auto_ops.create_auto_tags(store, maintenance_of(store).tag_positions)
        if store.options.get(TAG_TIME_EXPIRE_ENABLED):
            tag_expire_ops.expire_tags(store)
        return result
