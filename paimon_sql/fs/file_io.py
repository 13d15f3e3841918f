"""FileIO: the one way the engine touches storage (pyarrow.fs underneath).

Paths handed around the engine are plain strings understood by the FileIO's pyarrow filesystem
(for local storage: absolute OS paths). Snapshot and schema files are created *exclusively*: a
commit is visible once its snapshot file exists, and two writers must never both win one id.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.fs as pafs

from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.fs import s3
from paimon_sql.fs.paths import basename, join, parent  # noqa: F401 (re-exported: the engine imports them from here)
from paimon_sql.fs.snapshot_commit import (
    AtomicCreateCommit,
    ConditionalPutCommit,
    NoSafeCommit,
    SnapshotCommit,
)

# a listing or a file creation raced by another process's mkdir/rmdir is tried this many times in
# all (see FileIO._select and FileIO.open_output_stream)
_RACE_ATTEMPTS = 3


@dataclass(frozen=True)
class FileStatus:
    path: str
    size: int
    is_dir: bool
    mtime_ms: int


@dataclass(frozen=True)
class FileIOCapabilities:
    """What a warehouse's store can do; code branches on these, not on the store's type.

    ``local_paths``: paths are the OS's (``os.link``, ``os.rmdir``, symlinks resolved, local
    external paths); ``atomic_rename``: a move replaces its target in one step (hint files are
    written to a temp file and moved); ``whole_object_put``: a written object appears whole (object
    stores: hint files are written in place); ``conditional_create``: a file can be created only if
    absent, in one step (see :mod:`paimon_sql.fs.snapshot_commit`)."""

    local_paths: bool
    atomic_rename: bool
    whole_object_put: bool
    conditional_create: bool


class FileIO:
    """Storage access for one warehouse (a local folder, file:// URI, ``s3://bucket/path`` or any
    pyarrow filesystem URI). ``snapshot_commit`` creates the files that decide commits."""

    def __init__(
        self, fs: pafs.FileSystem, snapshot_commit: SnapshotCommit | None = None,
        capabilities: FileIOCapabilities | None = None,
    ) -> None:
        self.fs = fs
        local = isinstance(fs, pafs.LocalFileSystem)
        self.snapshot_commit: SnapshotCommit = snapshot_commit or (
            AtomicCreateCommit() if local else NoSafeCommit(
                f"this warehouse's file system '{fs.type_name}' has neither an atomic create nor a conditional put"
            )
        )
        self.capabilities = capabilities or FileIOCapabilities(
            local_paths=local, atomic_rename=local, whole_object_put=False,
            conditional_create=not isinstance(self.snapshot_commit, NoSafeCommit),
        )

    @property
    def is_local(self) -> bool:
        """Whether paths are local OS paths (``capabilities.local_paths``)."""
        return self.capabilities.local_paths

    @staticmethod
    def for_uri(uri: str, options: Mapping[str, str] | None = None) -> tuple[FileIO, str]:
        """Returns the FileIO and the normalised root path of ``uri`` (a path or URI); ``options``
        are the catalog's (``s3.*`` for an ``s3://`` warehouse, see :mod:`paimon_sql.fs.s3`)."""
        if not uri:
            raise ValidationError("A warehouse path is required")
        if "://" not in uri and not uri.startswith("file:"):
            return FileIO(pafs.LocalFileSystem()), os.path.abspath(os.path.expanduser(uri))
        if uri.startswith("file:") and not uri.startswith("file://"):
            # Java's "file:/a/b" form
            return FileIO(pafs.LocalFileSystem()), os.path.abspath(uri[len("file:"):])
        if s3.is_s3_uri(uri):
            return FileIO.for_s3(uri, options or {})
        try:
            fs, path = pafs.FileSystem.from_uri(uri)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as e:
            raise ValidationError(f"Unsupported warehouse URI {uri!r}: {e}") from e
        if isinstance(fs, pafs.LocalFileSystem):
            path = os.path.abspath(path)
        return FileIO(fs), path.rstrip("/")

    @staticmethod
    def for_s3(uri: str, options: Mapping[str, str]) -> tuple[FileIO, str]:
        settings = s3.S3Settings.of(options)
        bucket, path = s3.split_s3_uri(uri)
        if settings.region is None and settings.endpoint is None:  # AWS itself: the bucket's region
            settings = dataclasses.replace(settings, region=s3.bucket_region(bucket))
        fs = settings.filesystem()
        if s3.ConditionalPut.available():
            commit: SnapshotCommit = ConditionalPutCommit(s3.ConditionalPut(settings))
        else:
            commit = NoSafeCommit(
                "conditional writes to S3 (If-None-Match) need botocore, which is not installed "
                "(pip install 'paimon-sql[s3]')"
            )
        caps = FileIOCapabilities(
            local_paths=False, atomic_rename=False, whole_object_put=True,
            conditional_create=not isinstance(commit, NoSafeCommit),
        )
        fio = FileIO(fs, commit, caps)
        fio.s3_settings = settings
        if isinstance(commit, ConditionalPutCommit):
            fio.object_client = commit.put
        return fio, path

    s3_settings: s3.S3Settings | None = None
    # whole-object GET / PUT in one request each (botocore), where available
    object_client: s3.ConditionalPut | None = None

    def with_snapshot_commit(self, commit: SnapshotCommit) -> FileIO:
        """This store with another way of creating the files that decide commits (a catalog's
        lock, see :class:`paimon_sql.fs.snapshot_commit.CatalogLockCommit`)."""
        caps = dataclasses.replace(self.capabilities, conditional_create=not isinstance(commit, NoSafeCommit))
        fio = FileIO(self.fs, commit, caps)
        fio.s3_settings = self.s3_settings
        fio.object_client = self.object_client
        return fio

    def check_reachable(self, root: str, warehouse: str) -> None:
        """One request that fails with an error naming the option at fault when the store cannot
        be reached, refuses the credentials, or has no such bucket (object stores only)."""
        if self.s3_settings is not None:
            s3.check_reachable(self.fs, self.s3_settings, root.split("/", 1)[0], warehouse)

    # -- queries ---------------------------------------------------------------------------------
    def exists(self, path: str) -> bool:
        return self.fs.get_file_info(path).type != pafs.FileType.NotFound

    def is_dir(self, path: str) -> bool:
        return self.fs.get_file_info(path).type == pafs.FileType.Directory

    def status(self, path: str) -> FileStatus:
        info = self.fs.get_file_info(path)
        if info.type == pafs.FileType.NotFound:
            raise NotFoundError(f"File {path} does not exist")
        mtime = info.mtime_ns // 1_000_000 if info.mtime_ns is not None else 0
        return FileStatus(path, info.size or 0, info.type == pafs.FileType.Directory, mtime)

    def _select(self, path: str, recursive: bool) -> list[pafs.FileInfo]:
        """The entries under ``path``; none when it does not exist. pyarrow's local listing tells
        "missing" from "failed" by a second look after the listing fails, so a directory another
        process creates between the two (a table's first commit makes ``snapshot/``) comes back as
        FileNotFoundError: look again; a directory that is really gone is then reported empty."""
        sel = pafs.FileSelector(path, allow_not_found=True, recursive=recursive)
        for _ in range(_RACE_ATTEMPTS - 1):
            try:
                return self.fs.get_file_info(sel)
            except FileNotFoundError:
                continue
        return self.fs.get_file_info(sel)

    def list_status(self, path: str) -> list[FileStatus]:
        """Direct children of ``path``; empty when it does not exist."""
        out = []
        for info in self._select(path, recursive=False):
            mtime = info.mtime_ns // 1_000_000 if info.mtime_ns is not None else 0
            out.append(FileStatus(info.path, info.size or 0, info.type == pafs.FileType.Directory, mtime))
        return out

    def list_names(self, path: str) -> list[str]:
        return sorted(basename(s.path) for s in self.list_status(path))

    def walk_files(self, path: str) -> Iterator[FileStatus]:
        for info in self._select(path, recursive=True):
            if info.type == pafs.FileType.File:
                mtime = info.mtime_ns // 1_000_000 if info.mtime_ns is not None else 0
                yield FileStatus(info.path, info.size or 0, False, mtime)

    # -- reading ---------------------------------------------------------------------------------
    def read_bytes(self, path: str) -> bytes:
        if self.object_client is not None:
            data = self.object_client.get(path)
            if data is None:
                raise NotFoundError(f"File {path} does not exist")
            return data
        try:
            with self.fs.open_input_stream(path) as f:
                return bytes(f.read())
        except FileNotFoundError as e:
            raise NotFoundError(f"File {path} does not exist") from e
        except OSError as e:
            if not self.exists(path):
                raise NotFoundError(f"File {path} does not exist") from e
            raise

    def read_text(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def open_input_file(self, path: str) -> pa.NativeFile:
        try:
            return self.fs.open_input_file(path)
        except FileNotFoundError as e:
            raise NotFoundError(f"File {path} does not exist") from e

    # -- writing ---------------------------------------------------------------------------------
    def mkdirs(self, path: str) -> None:
        self.fs.create_dir(path, recursive=True)

    def write_bytes(self, path: str, data: bytes) -> None:
        """Writes a new immutable file (data, manifest...). Not atomic on every store; use
        :meth:`try_create_exclusive` or :meth:`overwrite_atomic` where it matters."""
        if self.object_client is not None:
            self.object_client.put(path, data)
            return
        with self.open_output_stream(path) as f:
            f.write(data)

    def open_output_stream(self, path: str) -> pa.NativeFile:
        """A new file at ``path``, its folders made as needed. On a store with real folders another
        process may remove the folder between its creation and the file's (snapshot expiry and
        orphan removal delete the empty bucket and partition folders they leave): it is made again."""
        if self.capabilities.whole_object_put:  # object stores: a key's folders are implicit
            return self.fs.open_output_stream(path)
        for _ in range(_RACE_ATTEMPTS - 1):
            try:
                self.fs.create_dir(parent(path), recursive=True)
                return self.fs.open_output_stream(path)
            except (FileNotFoundError, FileExistsError):
                # removed after it was made, or while create_dir looked whether the folder it
                # found is one (pyarrow then reports "non-directory entry exists")
                continue
        self.fs.create_dir(parent(path), recursive=True)
        return self.fs.open_output_stream(path)

    def try_create_exclusive(self, path: str, data: bytes) -> bool:
        """Creates ``path`` with ``data`` only if it does not exist; returns False if another writer
        created it first. The file appears whole or not at all (see ``snapshot_commit``)."""
        return self.snapshot_commit.try_create(self, path, data)

    def overwrite_atomic(self, path: str, data: bytes) -> None:
        """Replaces ``path`` atomically (hint files): readers see old or new content, never a part."""
        if self.capabilities.whole_object_put:  # one PUT replaces the object whole
            self.write_bytes(path, data)
            return
        tmp = join(parent(path), f".{basename(path)}.{uuid.uuid4()}.tmp")
        with self.open_output_stream(tmp) as f:
            f.write(data)
        self.fs.move(tmp, path)

    def delete(self, path: str) -> bool:
        try:
            self.fs.delete_file(path)
            return True
        except FileNotFoundError:
            return False
        except OSError:
            if not self.exists(path):
                return False
            raise

    def delete_quietly(self, path: str) -> None:
        with contextlib.suppress(OSError):
            self.delete(path)

    def delete_all_quietly(self, paths: Iterable[str]) -> None:
        for path in paths:
            self.delete_quietly(path)

    def delete_dir(self, path: str) -> None:
        if self.exists(path):
            self.fs.delete_dir(path)

    def delete_empty_dir(self, path: str) -> bool:
        """Deletes the folder ``path`` only if it is empty (Paimon's non-recursive delete of a
        folder); False when it holds anything or does not exist."""
        if self.capabilities.local_paths:
            try:
                os.rmdir(path)
                return True
            except OSError:
                return False
        try:
            if self.list_status(path):
                return False
            self.fs.delete_dir(path)
            return True
        except (OSError, NotFoundError):
            return False

    def rename(self, src: str, dst: str) -> None:
        """Moves a file or folder. On object stores (no atomic rename) a folder is copied object by
        object and then deleted, as Hadoop's S3A does: not atomic, callers must tolerate a partial
        copy left by a crash (an unreferenced folder, never a changed table)."""
        if self.exists(dst):
            raise ValidationError(f"Cannot rename {src} to {dst}: the target exists")
        if self.capabilities.atomic_rename or not self.is_dir(src):
            self.fs.move(src, dst)
            return
        prefix = src.rstrip("/") + "/"
        for status in list(self.walk_files(src)):
            self.fs.copy_file(status.path, join(dst, status.path[len(prefix):]))
        self.fs.delete_dir(src)
