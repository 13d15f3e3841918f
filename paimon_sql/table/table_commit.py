"""TableCommit: the one way a table's changes are committed (Paimon's ``TableCommitImpl``).

Every commit of a table goes through it: ``Table.write`` / ``commit_changes`` (also Spark's
writes), DELETE, compaction, sort compaction, rescale, partition drops and expiry, copy, merging
branches, repairs, and the ``compact`` procedure's job. It is the core ``FileStoreCommit`` (one
stable commit user, APPEND or OVERWRITE then the same write's COMPACT, conflict checks,
``filter_committed``) plus the post-commit maintenance of ``ops/maintenance.py``: before a commit
the failure of an earlier maintenance is raised (nothing committed), after it automatic tags,
partition expiry, consumers, snapshot and changelog expiry run (in Paimon's order; a background
thread with ``snapshot.expire.execution-mode`` = async).
"""

from __future__ import annotations

from collections.abc import Callable

from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.snapshot import Snapshot
from paimon_sql.ops.maintenance import TableMaintenance, maintenance_of
from paimon_sql.write.commit import CommitRequest, FileStoreCommit, WriteCompaction


class TableCommit(FileStoreCommit):
    """Commits to one table (branch) and maintains it afterwards. ``batch_write``: the commits are
    a batch write's (they also create ``tag.automatic-creation`` = batch tags); ``maintain``:
    run the post-commit maintenance (off for a commit that is maintenance itself)."""

    def __init__(
        self, store: FileStore, commit_user: str | None = None, batch_write: bool = False, maintain: bool = True,
    ) -> None:
        super().__init__(store, commit_user)
        self.batch_write = batch_write
        self.maintain = maintain
        self.maintenance: TableMaintenance = maintenance_of(store)

    def before_commit(self) -> None:
        self.check_maintenance()

    def check_maintenance(self) -> None:
        """Raises (once) the failure of the table's last post-commit maintenance in this process:
        Paimon raises it from the next commit; raising before anything is committed leaves nothing
        half done, and the commit can simply be retried."""
        self.maintenance.check(self.store)

    def commit(
        self, req: CommitRequest, compaction: WriteCompaction | Callable[[], WriteCompaction | None] | None = None
    ) -> Snapshot:
        snap = super().commit(req, compaction)
        self.after_commit()
        return snap

    def after_commit(self) -> None:
        """The post-commit maintenance (also for callers that committed several snapshots and
        maintain once at the end)."""
        if self.maintain:
            self.maintenance.after_commit(self.store, self.batch_write)

    def on(self, store: FileStore) -> TableCommit:
        other = TableCommit(store, self.commit_user, self.batch_write, self.maintain)
        return other

    def wait_maintenance(self, timeout_s: float = 60.0) -> None:
        """Waits until the background maintenance submitted so far has run."""
        self.maintenance.wait(timeout_s)
