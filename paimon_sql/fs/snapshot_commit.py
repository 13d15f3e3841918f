"""``SnapshotCommit``: how a metadata file that decides a commit (``snapshot-<id>``, ``schema-<id>``,
a tag) is created exactly once (Paimon's ``SnapshotCommit``: ``RenamingSnapshotCommit`` with an
optional catalog lock).

A commit is visible once its snapshot file exists; two writers racing on one id must never both
win. Each warehouse's FileIO carries one implementation, chosen by what its store can do:

- :class:`AtomicCreateCommit`: local (or mounted) file systems: the file is written to a temp file,
  fsynced, and hard-linked to its name (``link`` fails when the name exists).
- :class:`ConditionalPutCommit`: S3-compatible stores: one ``PUT`` with ``If-None-Match: *``.
- :class:`NoSafeCommit`: any other store: refuses, before anything is written, naming the catalog
  option ``lock.enabled`` (a catalog lock, e.g. the JDBC catalog's, is the next implementation:
  acquire the table's lock, check that the file is absent, write it, release).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from paimon_sql.errors import UnsupportedError

if TYPE_CHECKING:
    from paimon_sql.fs.file_io import FileIO
    from paimon_sql.fs.s3 import ConditionalPut

LOCK_ENABLED = "lock.enabled"


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
        from paimon_sql.fs.file_io import basename, join, parent

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
            "catalog that provides a lock (Paimon's JDBC or Hive catalog; not implemented by paimon_sql yet)"
        )

    def try_create(self, file_io: FileIO, path: str, data: bytes) -> bool:
        self.check(path)
        return False
