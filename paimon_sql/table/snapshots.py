"""``table.snapshots``: a table's snapshot history (Paimon's ``Table.rollbackTo``, ``expire_snapshots``,
``expire_changelogs``; pyiceberg's ``ManageSnapshots`` rollback half). The logic is in
``ops/rollback.py`` and ``ops/expire.py``; the procedures call the same functions."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from typing import TYPE_CHECKING

from paimon_sql.errors import ValidationError
from paimon_sql.lazy import lazy_module
from paimon_sql.table.facets import Facet

if TYPE_CHECKING:
    from paimon_sql.ops import expire as expire_ops
    from paimon_sql.ops import rollback as rollback_ops
else:
    expire_ops = lazy_module("paimon_sql.ops.expire")
    rollback_ops = lazy_module("paimon_sql.ops.rollback")


class Snapshots(Facet):
    """The snapshots of one table (or branch). ``table.snapshots()`` lists their ids."""

    __slots__ = ()

    def __call__(self) -> list[int]:
        """The ids of the table's snapshots, oldest first."""
        return self.table.store.snapshots.snapshot_ids()

    def rollback(self, snapshot_id: int | None = None, tag: str | None = None) -> rollback_ops.RollbackResult:
        """Rolls back to ``snapshot_id`` or to the snapshot of ``tag`` (later snapshots and tags go)."""
        return rollback_ops.rollback(self.table.store, snapshot_id=snapshot_id, tag=tag)

    def rollback_to_timestamp(self, timestamp_ms: int) -> rollback_ops.RollbackResult:
        """Rolls back to the latest snapshot committed at or before ``timestamp_ms`` (epoch millis)."""
        return rollback_ops.rollback_to_timestamp(self.table.store, timestamp_ms)

    def rollback_to_watermark(self, watermark: int) -> rollback_ops.RollbackResult:
        """Rolls back to the latest snapshot whose watermark is at or below ``watermark``."""
        return rollback_ops.rollback_to_watermark(self.table.store, watermark)

    def expire(
        self,
        retain_max: int | None = None,
        retain_min: int | None = None,
        older_than: str | _dt.datetime | None = None,
        max_deletes: int | None = None,
        dry_run: bool = False,
        options: Mapping[str, str] | None = None,
    ) -> expire_ops.ExpireResult:
        """Expires old snapshots (Paimon's ``expire_snapshots``): snapshots beyond ``retain_max``
        go whatever their age; between it and ``retain_min`` a snapshot goes once the snapshot after
        it is older than ``older_than`` (a local timestamp 'yyyy-MM-dd HH:mm:ss'; default: now minus
        ``snapshot.time-retained``); at most ``max_deletes`` go; consumers and ``retain_min`` protect
        the newest. Defaults come from the table's options, ``options`` overrides them for this call.
        Files only the expired snapshots used are deleted (tags and branches keep theirs).
        ``dry_run`` deletes nothing and reports what would go."""
        table = self.table.copy(options) if options else self.table
        return expire_ops.expire_snapshots(
            table.store, retain_max, retain_min, older_than, max_deletes, dry_run=dry_run
        )

    def expire_changelogs(
        self,
        retain_max: int | None = None,
        retain_min: int | None = None,
        older_than: str | _dt.datetime | None = None,
        max_deletes: int | None = None,
        delete_all: bool = False,
        dry_run: bool = False,
    ) -> expire_ops.ChangelogExpireResult:
        """Expires long-lived changelogs (``changelog/changelog-<id>``, which snapshot expiry keeps
        when ``changelog.num-retained.*`` / ``changelog.time-retained`` exceed the snapshot
        retention), as Paimon's ``expire_changelogs``: beyond ``retain_max`` counted from the latest
        snapshot, the ``retain_min`` newest kept, once older than ``older_than``, at most
        ``max_deletes``, never the latest one; defaults from the table's changelog options.
        ``delete_all`` deletes every one. ``dry_run`` deletes nothing and reports what would go."""
        if not isinstance(delete_all, bool):
            raise ValidationError(
                f"expire_changelogs of table {self.identifier}: argument 'delete_all' must be true or false, "
                f"got {delete_all!r}"
            )
        store = self.table.store
        if delete_all:
            return expire_ops.expire_all_changelogs(store, dry_run=dry_run)
        return expire_ops.expire_changelogs(store, retain_max, retain_min, older_than, max_deletes, dry_run=dry_run)
