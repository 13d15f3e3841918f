"""Post-commit maintenance of one table (the ``maintain`` part of Paimon's ``TableCommitImpl``),
with the runtime state it keeps between commits: the background expiry thread and the failure it
left (``snapshot.expire.execution-mode`` = async), when partitions were last checked for expiry
(``partition.expiration-check-interval``) and where automatic tag creation stopped.

One ``TableMaintenance`` per table folder and branch in this process, from a bounded registry
(``maintenance_of``): the least recently used one beyond ``MAX_TABLES`` is closed (its background
thread finishes what it was given, then stops). ``close_all`` closes every one.

Order after every commit, as Paimon's: automatic tags and tag retention, partition expiry,
consumers, snapshots, then changelogs (so a new tag protects its snapshot before snapshots
expire); a batch write's commit also creates ``tag.automatic-creation`` = batch tags. Nothing with
``write-only``. A failure is kept and raised by the table's next commit in this process, before it
commits anything (``check``), in sync mode too: the commit itself landed.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor

from paimon_sql.errors import PaimonError
from paimon_sql.meta.file_store import FileStore
from paimon_sql.ops import partitions as partition_ops
from paimon_sql.ops import tag_auto as tag_auto_ops
from paimon_sql.ops.expire import changelog_decoupled, expire_changelogs, expire_consumers, expire_snapshots
from paimon_sql.options.lifecycle import SNAPSHOT_EXPIRE_EXECUTION_MODE
from paimon_sql.process_state import ProcessCache, process_cache

_LOG = logging.getLogger(__name__)

MAX_TABLES = 256


class TableMaintenance:
    """The post-commit maintenance of one table (branch) and its state; see the module doc."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.lock = threading.Lock()
        self.error: BaseException | None = None
        self.pool: ThreadPoolExecutor | None = None
        self.closed = False
        self.partition_clock = partition_ops.PartitionCheckClock()
        self.tag_positions: tag_auto_ops.AutoTagPositions = {}

    def check(self, store: FileStore) -> None:
        """Raises (once) the failure of the last maintenance of the table in this process."""
        with self.lock:
            err, self.error = self.error, None
        if err is not None:
            raise PaimonError(
                f"Snapshot expiry of table {store.name} after an earlier commit failed (nothing was committed now; "
                f"commit again to continue): {type(err).__name__}: {err}"
            ) from err

    def after_commit(self, store: FileStore, batch_write: bool = False) -> None:
        """Runs the maintenance after a commit of ``store`` (``batch_write``: a batch write's
        commit): in this thread with ``snapshot.expire.execution-mode = sync`` (the default), else
        on the table's background thread (runs in order)."""
        if store.options.write_only:
            return
        if store.options.get(SNAPSHOT_EXPIRE_EXECUTION_MODE) != "async":
            self._run(store, batch_write)
            return
        with self.lock:
            if not self.closed and self.pool is None:
                self.pool = ThreadPoolExecutor(1, thread_name_prefix="paimon-expire")
            pool = self.pool
        if pool is None:  # closed (evicted from the registry) meanwhile: no new thread, run it here
            self._run(store, batch_write)
            return
        pool.submit(self._run, store, batch_write)

    def _run(self, store: FileStore, batch_write: bool) -> None:
        try:
            tag_auto_ops.run_tag_auto_manager(store, batch_write, self.tag_positions)
            partition_ops.expire_partitions_after_commit(store, self.partition_clock)
            expire_consumers(store)
            expire_snapshots(store)
            if changelog_decoupled(store):
                expire_changelogs(store)
        except Exception as e:  # noqa: BLE001 - surfaced by the next commit
            _LOG.error("Snapshot expiry of table %s after a commit failed: %s", store.name, e)
            with self.lock:
                if self.error is None:
                    self.error = e

    def wait(self, timeout_s: float = 60.0) -> None:
        """Waits until the background maintenance submitted so far has run."""
        with self.lock:
            pool = self.pool
        if pool is not None:
            pool.submit(lambda: None).result(timeout=timeout_s)

    def close(self) -> None:
        """Stops the background thread after the maintenance already submitted (not waited for)."""
        with self.lock:
            self.closed = True
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=False)


_REGISTRY: ProcessCache[str, TableMaintenance] = process_cache(
    "ops.maintenance", lambda: MAX_TABLES, TableMaintenance.close)


def maintenance_of(store: FileStore) -> TableMaintenance:
    """The maintenance of ``store``'s table folder and branch in this process (bounded registry)."""
    key = store.meta_path
    return _REGISTRY.get_or_create(key, lambda: TableMaintenance(key), lambda m: not m.closed)


def close_all() -> None:
    """Closes every table's maintenance (their background threads stop after their work)."""
    _REGISTRY.clear()
