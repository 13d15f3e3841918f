"""FileIO: the one way the engine touches storage (pyarrow.fs underneath).

Paths handed around the engine are plain strings understood by the FileIO's pyarrow filesystem
(for local storage: absolute OS paths). Snapshot and schema files are created *exclusively*: a
commit is visible once its snapshot file exists, and two writers must never both win one id.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.fs as pafs

from paimon_sql.errors import NotFoundError, UnsupportedError, ValidationError


@dataclass(frozen=True)
class FileStatus:
    path: str
    size: int
    is_dir: bool
    mtime_ms: int


def join(*parts: str) -> str:
    out = parts[0].rstrip("/")
    for p in parts[1:]:
        if p:
            out = out + "/" + p.strip("/")
    return out


def parent(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[0]


def basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


class FileIO:
    """Storage access for one warehouse (a local folder, file:// URI or any pyarrow filesystem URI)."""

    def __init__(self, fs: pafs.FileSystem) -> None:
        self.fs = fs
        self.is_local = isinstance(fs, pafs.LocalFileSystem)

    @staticmethod
    def for_uri(uri: str) -> tuple[FileIO, str]:
        """Returns the FileIO and the normalised root path of ``uri`` (a path or URI)."""
        if not uri:
            raise ValidationError("A warehouse path is required")
        if "://" not in uri and not uri.startswith("file:"):
            return FileIO(pafs.LocalFileSystem()), os.path.abspath(os.path.expanduser(uri))
        if uri.startswith("file:") and not uri.startswith("file://"):
            # Java's "file:/a/b" form
            return FileIO(pafs.LocalFileSystem()), os.path.abspath(uri[len("file:"):])
        try:
            fs, path = pafs.FileSystem.from_uri(uri)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as e:
            raise ValidationError(f"Unsupported warehouse URI {uri!r}: {e}") from e
        if isinstance(fs, pafs.LocalFileSystem):
            path = os.path.abspath(path)
        return FileIO(fs), path.rstrip("/")

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

    def list_status(self, path: str) -> list[FileStatus]:
        """Direct children of ``path``; empty when it does not exist."""
        sel = pafs.FileSelector(path, allow_not_found=True, recursive=False)
        out = []
        for info in self.fs.get_file_info(sel):
            mtime = info.mtime_ns // 1_000_000 if info.mtime_ns is not None else 0
            out.append(FileStatus(info.path, info.size or 0, info.type == pafs.FileType.Directory, mtime))
        return out

    def list_names(self, path: str) -> list[str]:
        return sorted(basename(s.path) for s in self.list_status(path))

    def walk_files(self, path: str) -> Iterator[FileStatus]:
        sel = pafs.FileSelector(path, allow_not_found=True, recursive=True)
        for info in self.fs.get_file_info(sel):
            if info.type == pafs.FileType.File:
                mtime = info.mtime_ns // 1_000_000 if info.mtime_ns is not None else 0
                yield FileStatus(info.path, info.size or 0, False, mtime)

    # -- reading ---------------------------------------------------------------------------------
    def read_bytes(self, path: str) -> bytes:
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
        self.fs.create_dir(parent(path), recursive=True)
        with self.fs.open_output_stream(path) as f:
            f.write(data)

    def open_output_stream(self, path: str) -> pa.NativeFile:
        self.fs.create_dir(parent(path), recursive=True)
        return self.fs.open_output_stream(path)

    def try_create_exclusive(self, path: str, data: bytes) -> bool:
        """Creates ``path`` with ``data`` only if it does not exist; returns False if another writer
        created it first. The file appears whole or not at all."""
        if not self.is_local:  # checked before anything is written
            raise UnsupportedError(
                f"Cannot create {path}: atomic snapshot commits are only implemented on local/mounted "
                f"filesystems, and this warehouse's file system is '{self.fs.type_name}' "
                "(use a local path, or a filesystem mounted at the same path on every node)"
            )
        self.fs.create_dir(parent(path), recursive=True)
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

    def overwrite_atomic(self, path: str, data: bytes) -> None:
        """Replaces ``path`` atomically (hint files): readers see old or new content, never a part."""
        self.fs.create_dir(parent(path), recursive=True)
        tmp = join(parent(path), f".{basename(path)}.{uuid.uuid4()}.tmp")
        with self.fs.open_output_stream(tmp) as f:
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

    def delete_dir(self, path: str) -> None:
        if self.exists(path):
            self.fs.delete_dir(path)

    def delete_empty_dir(self, path: str) -> bool:
        """Deletes the folder ``path`` only if it is empty (Paimon's non-recursive delete of a
        folder); False when it holds anything or does not exist."""
        if self.is_local:
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
        if self.exists(dst):
            raise ValidationError(f"Cannot rename {src} to {dst}: the target exists")
        self.fs.move(src, dst)
