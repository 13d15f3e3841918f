"""``SnapshotCommit``: how a metadata file that decides a commit (``snapshot-<id>``, ``schema-<id>``,
a tag) is created exactly once (Paimon's ``SnapshotCommit``: ``RenamingSnapshotCommit`` with an
optional catalog lock).

A commit is visible once its snapshot file exists; two writers racing on one id must never both
win. Each warehouse's FileIO carries one implementation, chosen by what its store can do:

- :class:`AtomicCreateCommit`: local (or mounted) file systems: the file is written to a temp file,
  fsynced, and hard-linked to its name (``link`` fails when the name exists).
- :class:`ConditionalPutCommit`: S3-compatible stores: one ``PUT`` with ``If-None-Match: *``.
- :class:`NoSafeCommit`: any other store: refuses, before anything is written, naming the catalog
  option ``lock.enabled``.
- :class:`CatalogLockCommit`: a catalog with a lock (the JDBC catalog's, ``lock.enabled``), as
  Paimon's ``RenamingSnapshotCommit`` with a catalog lock: the table's lock is taken, the file is
  checked absent and created (by the store's own safe way when it has one), the lock released.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from paimon_sql.errors import UnsupportedError
from paimon_sql.fs.paths import basename, join, parent

if TYPE_CHECKING:
    import pyarrow.fs as pafs

    from paimon_sql.fs.s3 import ConditionalPut

T = TypeVar("T")

LOCK_ENABLED = "lock.enabled"


class FileIO(Protocol):
    """What a commit strategy uses of the warehouse's ``paimon_sql.fs.file_io.FileIO`` (which
    carries the strategy, hence not imported here)."""

    fs: pafs.FileSystem

    def exists(self, path: str) -> bool: ...

    def overwrite_atomic(self, path: str, data: bytes) -> None: ...


class CatalogLock(ABC):
    """A lock a catalog provides per table (Paimon's ``CatalogLock``); picklable, so that it
    travels with the FileIO to other processes."""

    @abstractmethod
    def run_with_lock(self, database: str, table: str, fn: Callable[[], T]) -> T:
        """Calls ``fn`` while holding the lock of ``database.table`` (``table`` may carry a
        ``$branch_<b>`` suffix: Paimon's object name)."""


class SnapshotCommit(ABC):
    """Creates a file only if it does not exist; the file appears whole or not at all."""

    name: str

    @abstractmethod
    def try_create(self, file_io: FileIO, path: str, data: bytes) -> bool:
        """True when this call created ``path``; False when another writer created it first."""

    def check(self, what: str) -> None:
        """Raises (before anything is written) when commits to ``what`` cannot be made safely."""
        return None


class AtomicCreateCommit(SnapshotCommit):
    name = "atomic-create"

    def try_create(self, file_io: FileIO, path: str, data: bytes) -> bool:
        file_io.fs.create_dir(parent(path), recursive=True)
        tmp = join(parent(path), f".{basename(path)}.{uuid.uuid4()}.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        finally:
            with contextlib.suppress(OSError):  # a leftover temp file is harmless: the outcome is decided
                os.unlink(tmp)


class ConditionalPutCommit(SnapshotCommit):
    name = "conditional-put"

    def __init__(self, put: ConditionalPut) -> None:
        self.put = put

    def try_create(self, file_io: FileIO, path: str, data: bytes) -> bool:
        return self.put.put_if_absent(path, data)


class NoSafeCommit(SnapshotCommit):
    """A store without atomic create or conditional put, and no lock: every commit is refused."""

    name = "none"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def check(self, what: str) -> None:
        raise UnsupportedError(
            f"Cannot commit to {what}: {self.reason}. Set catalog option {LOCK_ENABLED!r} = true with a "
            "catalog that provides a lock (metastore 'jdbc'; Paimon's Hive catalog is not implemented by paimon_sql)"
        )

    def try_create(self, file_io: FileIO, path: str, data: bytes) -> bool:
        self.check(path)
        return False


class CatalogLockCommit(SnapshotCommit):
    """Creates the file while holding its table's catalog lock: the lock of ``<db>.<table>`` (of
    ``<db>.<table>$branch_<b>`` for a branch's files), the table read off the file's path under the
    warehouse ``root``. ``inner`` is the store's own way (atomic create, conditional put), used under
    the lock when the store has one; else the file is checked absent and written whole."""

    name = "catalog-lock"

    def __init__(self, inner: SnapshotCommit, lock: CatalogLock, root: str) -> None:
        self.inner = inner
        self.lock = lock
        self.root = root.rstrip("/")

    def table_of(self, path: str) -> tuple[str, str]:
        """The database and object name (``t`` or ``t$branch_b``) of a file of a table."""
        from paimon_sql.errors import ValidationError

        rel = path[len(self.root) + 1:] if path.startswith(self.root + "/") else ""
        parts = rel.split("/")
        if len(parts) < 3 or not parts[0].endswith(".db") or len(parts[0]) <= 3:
            raise ValidationError(
                f"Cannot take the catalog lock ({LOCK_ENABLED!r}) for {path}: it is not a file of a "
                f"table of the warehouse {self.root}"
            )
        table = parts[1]
        if len(parts) >= 5 and parts[2] == "branch" and parts[3].startswith("branch-"):
            table = f"{table}$branch_{parts[3][len('branch-'):]}"
        return parts[0][:-3], table

    def try_create(self, file_io: FileIO, path: str, data: bytes) -> bool:
        database, table = self.table_of(path)

        def create() -> bool:
            # as Paimon: the store's create may not fail on an existing file, so check first
            if file_io.exists(path):
                return False
            if not isinstance(self.inner, NoSafeCommit):
                return self.inner.try_create(file_io, path, data)
            file_io.overwrite_atomic(path, data)
            return True

        return self.lock.run_with_lock(database, table, create)
